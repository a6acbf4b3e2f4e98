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
        match event {
            AgentEvent::RunStarted {
                question, model, ..
            } => {
                let _ = writeln!(out, "{} {question}", self.paint("1", "?"));
                let _ = writeln!(out, "{}", self.paint("2", &format!("  model {model}")));
            }
            AgentEvent::Thinking { delta, .. } => {
                if self.show_thinking {
                    if !streaming_continues {
                        let _ = write!(out, "{}", self.paint("2", "  thinking: "));
                    }
                    let _ = write!(out, "{}", self.paint("2", delta));
                } else if !streaming_continues {
                    let _ = write!(out, "{}", self.paint("2", "  (thinking…)"));
                }
            }
            AgentEvent::TextDelta { delta, .. } => {
                let _ = write!(out, "{delta}");
            }
            AgentEvent::ToolCall {
                name,
                arguments,
                agent_name,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "{}{} {name} {arguments}",
                    nest(agent_name),
                    self.paint("36", "→")
                );
            }
            AgentEvent::ToolProgress { message, .. } => {
                let _ = writeln!(out, "{}", self.paint("2", &format!("  … {message}")));
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
                let _ = writeln!(out, "{nest}{mark} {name} ({duration_ms:.0} ms)");
                for line in output.lines().take(20) {
                    let _ = writeln!(out, "{nest}    {line}");
                }
            }
            AgentEvent::Error { message, .. } => {
                let _ = writeln!(out, "{} {message}", self.paint("31", "error:"));
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
                    if *steps == 1 { "" } else { "s" },
                    usage.prompt_tokens,
                    usage.completion_tokens
                );
                let _ = writeln!(out, "{}", self.paint("2", &summary));
            }
            AgentEvent::PermissionRequest { tool, reason, .. } => {
                let _ = writeln!(out, "{} {tool}: {reason}", self.paint("33", "permission?"));
            }
            AgentEvent::AskUser { question, .. } => {
                let _ = writeln!(out, "{} {question}", self.paint("33", "question:"));
            }
            AgentEvent::SubagentStarted {
                agent_name, task, ..
            } => {
                let _ = writeln!(out, "{} {agent_name}: {task}", self.paint("35", "▸"));
            }
            AgentEvent::SubagentFinished {
                agent_name, steps, ..
            } => {
                let _ = writeln!(
                    out,
                    "{} {agent_name} finished after {steps} step{}",
                    self.paint("35", "◂"),
                    if *steps == 1 { "" } else { "s" }
                );
            }
            AgentEvent::Notice { message, .. } => {
                let _ = writeln!(out, "{}", self.paint("33", &format!("  note: {message}")));
            }
            AgentEvent::Compacted {
                kind,
                tokens_before,
                tokens_after,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "{}",
                    self.paint(
                        "2",
                        &format!(
                            "  context compacted ({kind}): {tokens_before} → {tokens_after} tokens"
                        )
                    )
                );
            }
            AgentEvent::Usage { .. } | AgentEvent::TodoUpdated { .. } => {}
        }
        let _ = out.flush();
        if !matches!(event, AgentEvent::Usage { .. }) {
            *last = kind;
        }
    }
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
