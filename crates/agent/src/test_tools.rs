//! Fixture tools for tests and benchmarks of the runtime: echo, delay, never-finishing,
//! panicking, oversized output, a write and a command that need permission, a
//! sibling-aborting failure. Not registered in any shipped registry.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::permissions::ToolEffect;
use crate::{AgentTool, InterruptBehavior, ProgressSender, ToolContext, ToolOutput};

fn text(arguments: &Value, key: &str) -> String {
    arguments
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Returns its `text` argument.
pub struct EchoTool;

#[async_trait]
impl AgentTool for EchoTool {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "Returns its text."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}})
    }
    fn is_concurrency_safe(&self, _arguments: &Value) -> bool {
        true
    }
    async fn execute(&self, arguments: Value, _context: &ToolContext) -> ToolOutput {
        ToolOutput::ok(text(&arguments, "text"))
    }
}

/// Sleeps `ms` milliseconds (reporting progress), then answers.
pub struct DelayTool;

#[async_trait]
impl AgentTool for DelayTool {
    fn name(&self) -> &str {
        "delay"
    }
    fn description(&self) -> &str {
        "Waits ms milliseconds."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"ms": {"type": "integer"}, "exclusive": {"type": "boolean"}}})
    }
    /// `exclusive: true` makes the call one that must run alone.
    fn is_concurrency_safe(&self, arguments: &Value) -> bool {
        !arguments
            .get("exclusive")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Read
    }
    async fn execute(&self, arguments: Value, context: &ToolContext) -> ToolOutput {
        let progress = ProgressSender::new(context.events.clone(), context.tool_call_id.clone());
        self.execute_with_progress(arguments, context, progress)
            .await
    }
    async fn execute_with_progress(
        &self,
        arguments: Value,
        _context: &ToolContext,
        progress: ProgressSender,
    ) -> ToolOutput {
        let ms = arguments.get("ms").and_then(Value::as_u64).unwrap_or(10);
        progress.report("waiting", Some(0.0));
        tokio::time::sleep(Duration::from_millis(ms)).await;
        ToolOutput::ok(format!("waited {ms} ms"))
    }
}

/// Never finishes (honours cancellation).
pub struct NeverTool;

#[async_trait]
impl AgentTool for NeverTool {
    fn name(&self) -> &str {
        "never"
    }
    fn description(&self) -> &str {
        "Never returns."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Read
    }
    async fn execute(&self, _arguments: Value, _context: &ToolContext) -> ToolOutput {
        std::future::pending().await
    }
}

/// Writes for `ms` milliseconds and must not be interrupted.
pub struct BlockingWriteTool;

#[async_trait]
impl AgentTool for BlockingWriteTool {
    fn name(&self) -> &str {
        "blocking_write"
    }
    fn description(&self) -> &str {
        "A write that finishes even when the run is cancelled."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}})
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }
    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Read
    }
    async fn execute(&self, arguments: Value, _context: &ToolContext) -> ToolOutput {
        let ms = arguments.get("ms").and_then(Value::as_u64).unwrap_or(200);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        ToolOutput::ok("write completed")
    }
}

/// Panics.
pub struct PanicTool;

#[async_trait]
impl AgentTool for PanicTool {
    fn name(&self) -> &str {
        "panic"
    }
    fn description(&self) -> &str {
        "Panics."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Read
    }
    #[allow(clippy::panic)]
    async fn execute(&self, _arguments: Value, _context: &ToolContext) -> ToolOutput {
        panic!("the panic tool panicked on purpose")
    }
}

/// Returns `chars` characters of output.
pub struct BigOutputTool;

#[async_trait]
impl AgentTool for BigOutputTool {
    fn name(&self) -> &str {
        "big_output"
    }
    fn description(&self) -> &str {
        "Returns a lot of text."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"chars": {"type": "integer"}}})
    }
    fn is_concurrency_safe(&self, _arguments: &Value) -> bool {
        true
    }
    async fn execute(&self, arguments: Value, _context: &ToolContext) -> ToolOutput {
        let chars = arguments
            .get("chars")
            .and_then(Value::as_u64)
            .unwrap_or(10_000);
        // Numbered lines, so a reader can tell which part of the output it got.
        let wanted = usize::try_from(chars).unwrap_or(usize::MAX);
        let mut content = String::with_capacity(wanted.min(1 << 26));
        let mut number = 1u64;
        while content.len() < wanted {
            content.push_str(&format!(
                "{number:07} the quick brown fox jumps over the lazy dog\n"
            ));
            number += 1;
        }
        content.truncate(wanted);
        ToolOutput::ok(content).with_metadata(json!({"chars": chars}))
    }
}

/// Writes a note (needs permission in the default mode).
pub struct WriteTool;

#[async_trait]
impl AgentTool for WriteTool {
    fn name(&self) -> &str {
        "write_note"
    }
    fn description(&self) -> &str {
        "Writes a note."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}}})
    }
    fn permission_subject(&self, arguments: &Value) -> Option<String> {
        arguments
            .get("path")
            .and_then(Value::as_str)
            .map(str::to_string)
    }
    async fn execute(&self, arguments: Value, _context: &ToolContext) -> ToolOutput {
        ToolOutput::ok(format!("wrote {}", text(&arguments, "path")))
    }
}

/// Pretends to run a command (needs permission unless bypassed).
pub struct CommandTool;

#[async_trait]
impl AgentTool for CommandTool {
    fn name(&self) -> &str {
        "command"
    }
    fn description(&self) -> &str {
        "Runs a command."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}})
    }
    fn shell_command(&self, arguments: &Value) -> Option<String> {
        arguments
            .get("command")
            .and_then(Value::as_str)
            .map(str::to_string)
    }
    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Command
    }
    async fn execute(&self, arguments: Value, _context: &ToolContext) -> ToolOutput {
        ToolOutput::ok(format!("ran {}", text(&arguments, "command")))
    }
}

/// Fails after `ms`, stopping its siblings.
pub struct CriticalFailTool;

#[async_trait]
impl AgentTool for CriticalFailTool {
    fn name(&self) -> &str {
        "critical_fail"
    }
    fn description(&self) -> &str {
        "Fails and aborts its siblings."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}})
    }
    fn causes_sibling_abort(&self) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _arguments: &Value) -> bool {
        true
    }
    async fn execute(&self, arguments: Value, _context: &ToolContext) -> ToolOutput {
        let ms = arguments.get("ms").and_then(Value::as_u64).unwrap_or(20);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        ToolOutput::error("the download failed")
    }
}

/// A registry with every fixture tool.
pub fn registry() -> crate::ToolRegistry {
    let mut registry = crate::ToolRegistry::empty();
    let tools: Vec<std::sync::Arc<dyn AgentTool>> = vec![
        std::sync::Arc::new(EchoTool),
        std::sync::Arc::new(DelayTool),
        std::sync::Arc::new(NeverTool),
        std::sync::Arc::new(BlockingWriteTool),
        std::sync::Arc::new(PanicTool),
        std::sync::Arc::new(BigOutputTool),
        std::sync::Arc::new(WriteTool),
        std::sync::Arc::new(CommandTool),
        std::sync::Arc::new(CriticalFailTool),
    ];
    for tool in tools {
        registry.add_tool(tool);
    }
    registry
}
