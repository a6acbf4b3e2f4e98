//! One tool of an MCP server, as the agent sees it: `mcp__SERVER__TOOL`.

use async_trait::async_trait;
use rmcp::model::{CallToolResult, ContentBlock, Tool};

use super::McpHub;
use crate::permissions::ToolEffect;
use crate::{AgentTool, PermissionRule, ToolContext, ToolOutput};

/// OpenAI-compatible endpoints accept function names of at most 64 characters from
/// `[a-zA-Z0-9_-]`.
const MAX_NAME: usize = 64;

/// `mcp__SERVER__TOOL`, with characters a model endpoint refuses replaced by `_`.
pub fn agent_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut name = format!("mcp__{server}__{clean}");
    name.truncate(MAX_NAME);
    name
}

pub struct McpTool {
    hub: McpHub,
    server: String,
    name: String,
    description: String,
    tool: Tool,
}

impl McpTool {
    pub fn new(hub: McpHub, server: &str, tool: Tool) -> Self {
        let description = format!(
            "[MCP server {server}] {}",
            tool.description.as_deref().unwrap_or("(no description)")
        );
        Self {
            hub,
            server: server.to_string(),
            name: agent_name(server, &tool.name),
            description,
            tool,
        }
    }
}

#[async_trait]
impl AgentTool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> serde_json::Value {
        let mut schema = serde_json::Value::Object((*self.tool.input_schema).clone());
        if let Some(object) = schema.as_object_mut() {
            object.remove("$schema");
            object.entry("type").or_insert_with(|| "object".into());
        }
        schema
    }

    /// What an outside program does is unknown: it asks unless a rule allows it, and is
    /// refused in read-only mode.
    fn effect(&self, _arguments: &serde_json::Value) -> ToolEffect {
        ToolEffect::Command
    }

    fn check_permissions(&self, _arguments: &serde_json::Value) -> Vec<PermissionRule> {
        vec![PermissionRule::Ask {
            reason: format!(
                "{} runs the tool {} of the MCP server {}, a program outside Asterism",
                self.name, self.tool.name, self.server
            ),
        }]
    }

    async fn execute(&self, arguments: serde_json::Value, _context: &ToolContext) -> ToolOutput {
        match self
            .hub
            .call(&self.server, &self.tool.name, arguments)
            .await
        {
            Ok(result) => output(&self.server, &self.tool.name, result),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}

/// The result's text for the model (text blocks, resources' text, a note for images),
/// its structured content when there is no text, and an error when the server says so.
fn output(server: &str, tool: &str, result: CallToolResult) -> ToolOutput {
    let mut parts: Vec<String> = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!("[an image, {}]", image.mime_type),
            ContentBlock::Audio(audio) => format!("[audio, {}]", audio.mime_type),
            ContentBlock::Resource(resource) => {
                serde_json::to_string(&resource.resource).unwrap_or_default()
            }
            ContentBlock::ResourceLink(link) => format!("[resource {}]", link.uri),
            _ => "[content of a kind Asterism does not read]".into(),
        })
        .collect();
    if parts.iter().all(|part| part.trim().is_empty()) {
        parts = result
            .structured_content
            .iter()
            .map(|value| serde_json::to_string_pretty(value).unwrap_or_default())
            .collect();
    }
    let text = parts.join("\n");
    let metadata = serde_json::json!({
        "server": server,
        "tool": tool,
        "structured": result.structured_content,
    });
    let output = if result.is_error.unwrap_or(false) {
        ToolOutput::error(if text.is_empty() {
            format!("{tool} failed")
        } else {
            text
        })
    } else {
        ToolOutput::ok(text)
    };
    output.with_metadata(metadata)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_what_model_endpoints_accept() {
        assert_eq!(
            agent_name("astro", "cone_search"),
            "mcp__astro__cone_search"
        );
        assert_eq!(
            agent_name("astro", "sim.bad/query"),
            "mcp__astro__sim_bad_query"
        );
        assert_eq!(agent_name("astro", &"x".repeat(100)).len(), 64);
    }
}
