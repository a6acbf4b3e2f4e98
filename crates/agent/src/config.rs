use std::time::Duration;

/// Limits and switches of the agent loop.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// Model calls per run before the run stops with `maxSteps`.
    pub max_steps: u32,
    /// A tool call running longer than this is stopped with an error result.
    pub tool_timeout: Duration,
    /// Tool output longer than this is shortened before the model sees it.
    pub max_output_chars: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_steps: 25,
            tool_timeout: Duration::from_secs(120),
            max_output_chars: 4000,
        }
    }
}
