use std::time::Duration;

use crate::compaction::CompactionConfig;

/// Limits and switches of the agent loop.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// Model calls per run before the run stops with `maxSteps`.
    pub max_steps: u32,
    /// A tool call running longer than this is stopped with an error result.
    pub tool_timeout: Duration,
    /// Tool output longer than this goes to a file; the model gets a stub and a preview.
    pub max_output_chars: usize,
    /// A call whose arguments are longer than this (bytes of JSON) is refused before the
    /// tool runs, with an error quoting only their start (`MAX_TOOL_ARGUMENT_KB`).
    pub max_argument_bytes: usize,
    /// The same call this many times in a row is refused as a loop (0 turns it off).
    pub duplicate_call_threshold: usize,
    /// Start each tool call as soon as its arguments are complete in the stream.
    pub streaming_tools: bool,
    /// How long a permission request waits for the user.
    pub permission_timeout: Duration,
    pub compaction: CompactionConfig,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_steps: 25,
            tool_timeout: Duration::from_secs(120),
            max_output_chars: 4000,
            max_argument_bytes: 256 * 1024,
            duplicate_call_threshold: 3,
            streaming_tools: true,
            permission_timeout: Duration::from_secs(300),
            compaction: CompactionConfig::default(),
        }
    }
}
