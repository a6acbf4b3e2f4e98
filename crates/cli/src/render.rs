//! The human-readable timeline and the JSON Lines form of events.

use std::io::Write;
use std::sync::Mutex;

use asterism_protocol::{AgentEvent, ResolvedTarget, RunFinishReason};

/// Prints events as they arrive: JSON Lines, or a readable timeline.
pub struct Printer {
    json: bool,
    show_thinking: bool,
    color: bool,
    /// What was printed last, to put line breaks between streamed blocks.
    last: Mutex<&'static str>,
}

impl Printer {
    pub fn new(json: bool, show_thinking: bool, color: bool) -> Self {
        Self {
            json,
            show_thinking,
            color,
            last: Mutex::new(""),
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn print(&self, event: &AgentEvent) {
        let mut out = std::io::stdout().lock();
        if self.json {
            if let Ok(line) = serde_json::to_string(event) {
                let _ = writeln!(out, "{line}");
            }
            let _ = out.flush();
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        let kind = event.kind();
        let streaming_continues = *last == kind
            && matches!(
                event,
                AgentEvent::Thinking { .. } | AgentEvent::TextDelta { .. }
            );
        if !streaming_continues && matches!(*last, "Thinking" | "TextDelta") {
            let _ = writeln!(out);
        }
        let _ = write!(out, "{}", self.text_of(event, streaming_continues));
        let _ = out.flush();
        if !matches!(event, AgentEvent::Usage { .. }) {
            *last = kind;
        }
    }

    /// What an event prints: whole lines, or a piece of a streamed answer or thought
    /// (`continues`: the stream's earlier pieces are already out).
    fn text_of(&self, event: &AgentEvent, continues: bool) -> String {
        match event {
            AgentEvent::RunStarted {
                question, model, ..
            } => format!(
                "{} {question}\n{}\n",
                self.paint("1", "?"),
                self.paint("2", &format!("  model {model}"))
            ),
            AgentEvent::Thinking { delta, .. } => match (self.show_thinking, continues) {
                (true, true) => self.paint("2", delta),
                (true, false) => format!(
                    "{}{}",
                    self.paint("2", "  thinking: "),
                    self.paint("2", delta)
                ),
                (false, false) => self.paint("2", "  (thinking…)"),
                (false, true) => String::new(),
            },
            AgentEvent::TextDelta { delta, .. } => delta.clone(),
            AgentEvent::ToolCall { .. }
            | AgentEvent::ToolProgress { .. }
            | AgentEvent::ToolResult { .. } => self.tool_text(event),
            AgentEvent::Error { message, .. } => {
                format!("{} {message}\n", self.paint("31", "error:"))
            }
            AgentEvent::RunFinished {
                reason,
                usage,
                steps,
                ..
            } => {
                let word = match reason {
                    RunFinishReason::Completed => "done",
                    RunFinishReason::MaxSteps => "stopped at the step limit",
                    RunFinishReason::Cancelled => "cancelled",
                    RunFinishReason::Failed => "failed",
                };
                let summary = format!(
                    "  {word} · {steps} step{} · {} tokens in, {} out",
                    plural(*steps),
                    usage.prompt_tokens,
                    usage.completion_tokens
                );
                format!("{}\n", self.paint("2", &summary))
            }
            _ => self.side_text(event),
        }
    }

    /// A tool's call, progress and result (nested under a subagent).
    fn tool_text(&self, event: &AgentEvent) -> String {
        match event {
            AgentEvent::ToolCall {
                name,
                arguments,
                agent_name,
                ..
            } => format!(
                "{}{} {name} {arguments}\n",
                nest(agent_name),
                self.paint("36", "→")
            ),
            AgentEvent::ToolProgress { message, .. } => {
                format!("{}\n", self.paint("2", &format!("  … {message}")))
            }
            AgentEvent::ToolResult {
                name,
                output,
                is_error,
                duration_ms,
                agent_name,
                ..
            } => {
                let mark = if *is_error {
                    self.paint("31", "✗")
                } else {
                    self.paint("32", "←")
                };
                let nest = nest(agent_name);
                let mut text = format!("{nest}{mark} {name} ({duration_ms:.0} ms)\n");
                for line in output.lines().take(20) {
                    text.push_str(&format!("{nest}    {line}\n"));
                }
                text
            }
            _ => String::new(),
        }
    }

    /// Questions, permissions, subagents, notices and compaction.
    fn side_text(&self, event: &AgentEvent) -> String {
        match event {
            AgentEvent::PermissionRequest { tool, reason, .. } => {
                format!("{} {tool}: {reason}\n", self.paint("33", "permission?"))
            }
            AgentEvent::AskUser { question, .. } => {
                format!("{} {question}\n", self.paint("33", "question:"))
            }
            AgentEvent::SubagentStarted {
                agent_name, task, ..
            } => format!("{} {agent_name}: {task}\n", self.paint("35", "▸")),
            AgentEvent::SubagentFinished {
                agent_name, steps, ..
            } => format!(
                "{} {agent_name} finished after {steps} step{}\n",
                self.paint("35", "◂"),
                plural(*steps)
            ),
            AgentEvent::Notice { message, .. } => {
                format!("{}\n", self.paint("33", &format!("  note: {message}")))
            }
            AgentEvent::Compacted {
                kind,
                tokens_before,
                tokens_after,
                ..
            } => format!(
                "{}\n",
                self.paint(
                    "2",
                    &format!(
                        "  context compacted ({kind}): {tokens_before} → {tokens_after} tokens"
                    )
                )
            ),
            _ => String::new(),
        }
    }
}

/// "s" unless one.
fn plural(count: i32) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// The indent of a subagent's lines under its start marker.
fn nest(agent_name: &str) -> &'static str {
    if agent_name == asterism_protocol::MAIN_AGENT {
        ""
    } else {
        "  │ "
    }
}

/// A resolved target for people.
pub fn target(target: &ResolvedTarget, from_cache: bool) -> String {
    let mut text = format!("{}  (asked: {})\n", target.name, target.query);
    text.push_str(&format!(
        "  RA  {}   {:>12.6}°\n",
        target.ra_sexagesimal, target.ra_deg
    ));
    text.push_str(&format!(
        "  Dec {}   {:>+12.6}°\n",
        target.dec_sexagesimal, target.dec_deg
    ));
    if let Some(code) = &target.object_type {
        let label = target.object_type_label.as_deref().unwrap_or("");
        text.push_str(&format!("  type {label} ({code})\n"));
    }
    if let Some(morphology) = &target.morphology {
        text.push_str(&format!("  morphology {morphology}\n"));
    }
    if let Some(redshift) = target.redshift {
        text.push_str(&format!("  z {redshift}\n"));
    }
    if !target.aliases.is_empty() {
        let shown: Vec<&str> = target.aliases.iter().take(10).map(String::as_str).collect();
        text.push_str(&format!(
            "  aliases {}{}\n",
            shown.join(", "),
            if target.aliases.len() > 10 {
                format!(" (+{} more)", target.aliases.len() - 10)
            } else {
                String::new()
            }
        ));
    }
    text.push_str(&format!(
        "  resolved by {}{}\n",
        target.resolver,
        if from_cache { " (cached)" } else { "" }
    ));
    text
}
