//! The tools, one file each.

mod query_target;

pub use query_target::QueryTargetTool;

use std::sync::Arc;

use crate::ToolRegistry;

/// Registers the base tools of this release.
pub(crate) fn add_base_tools(registry: &mut ToolRegistry) {
    registry.add_tool(Arc::new(QueryTargetTool));
}
