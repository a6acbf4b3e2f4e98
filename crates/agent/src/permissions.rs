//! Who may run what: the tool's own rules, the user's rules (Deny beats Ask beats
//! Allow, `*` wildcards, argument patterns) and the permission mode; and the broker that
//! asks the user and waits for the answer.
//!
//! Rule syntax: `tool` or `tool(pattern)`, where `tool` is a glob over tool names and
//! `pattern` is a glob over the call's subject (`run_bash(git status*)`) or over one
//! argument (`file_write(path:notes/**)`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use asterism_protocol::AgentEvent;
use globset::{Glob, GlobMatcher};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::{AgentTool, EventSink, PermissionRule as ToolRule};

/// How much the agent may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PermissionMode {
    /// Reading is free; writes and commands ask.
    #[default]
    Default,
    /// Writes and commands are refused.
    ReadOnly,
    /// Writes are allowed; commands ask.
    AcceptEdits,
    /// Everything not explicitly denied runs.
    Bypass,
}

impl PermissionMode {
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text.trim() {
            "default" => PermissionMode::Default,
            "read-only" => PermissionMode::ReadOnly,
            "accept-edits" => PermissionMode::AcceptEdits,
            "bypass" => PermissionMode::Bypass,
            _ => return None,
        })
    }
}

/// What a call does to the world, for the permission mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolEffect {
    Read,
    Write,
    Command,
}

/// What a rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    Allow,
    Ask,
    Deny,
}

impl RuleDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDecision::Allow => "allow",
            RuleDecision::Ask => "ask",
            RuleDecision::Deny => "deny",
        }
    }
}

/// A user's rule, e.g. `Deny run_bash(rm *)`.
#[derive(Debug, Clone)]
pub struct Rule {
    pub decision: RuleDecision,
    /// The rule as written, e.g. `file_write(path:notes/**)`.
    pub text: String,
    tool: GlobMatcher,
    field: Option<String>,
    pattern: Option<GlobMatcher>,
}

/// A rule that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid permission rule {rule:?}: {reason}")]
pub struct RuleError {
    pub rule: String,
    pub reason: String,
}

impl Rule {
    pub fn parse(decision: RuleDecision, text: &str) -> Result<Self, RuleError> {
        let error = |reason: &str| RuleError {
            rule: text.to_string(),
            reason: reason.to_string(),
        };
        let text = text.trim();
        let (tool, inner) = match text.split_once('(') {
            Some((tool, rest)) => {
                let inner = rest
                    .strip_suffix(')')
                    .ok_or_else(|| error("missing closing parenthesis"))?;
                (tool.trim(), Some(inner))
            }
            None => (text, None),
        };
        if tool.is_empty() {
            return Err(error("no tool name"));
        }
        let glob = |pattern: &str| {
            Glob::new(pattern)
                .map(|glob| glob.compile_matcher())
                .map_err(|e| error(&e.to_string()))
        };
        let (field, pattern) = match inner {
            None => (None, None),
            Some(inner) => match inner.split_once(':') {
                Some((field, pattern))
                    if !field.is_empty()
                        && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    (Some(field.to_string()), Some(glob(pattern)?))
                }
                _ => (None, Some(glob(inner)?)),
            },
        };
        Ok(Self {
            decision,
            text: text.to_string(),
            tool: glob(tool)?,
            field,
            pattern,
        })
    }

    /// Whether the rule covers this call.
    pub fn matches(
        &self,
        tool: &str,
        arguments: &serde_json::Value,
        subject: Option<&str>,
    ) -> bool {
        if !self.tool.is_match(tool) {
            return false;
        }
        let Some(pattern) = &self.pattern else {
            return true;
        };
        let value = match &self.field {
            Some(field) => arguments.get(field).and_then(serde_json::Value::as_str),
            None => subject,
        };
        value.is_some_and(|value| pattern.is_match(value))
    }
}

/// The verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Ask { reason: String },
    Deny { reason: String },
}

/// The subject rules match when they name no argument: the tool's own choice, else the
/// only string argument.
pub fn call_subject(tool: &dyn AgentTool, arguments: &serde_json::Value) -> Option<String> {
    tool.permission_subject(arguments).or_else(|| {
        let strings: Vec<&str> = arguments
            .as_object()?
            .values()
            .filter_map(serde_json::Value::as_str)
            .collect();
        (strings.len() == 1).then(|| strings[0].to_string())
    })
}

/// The rule chain of a run: configured and persisted rules, rules granted for this
/// session, and the mode.
#[derive(Debug, Default)]
pub struct PermissionChecker {
    mode: PermissionMode,
    rules: Vec<Rule>,
    session_rules: Arc<Mutex<Vec<Rule>>>,
}

impl PermissionChecker {
    pub fn new(mode: PermissionMode, rules: Vec<Rule>) -> Self {
        Self {
            mode,
            rules,
            session_rules: Arc::default(),
        }
    }

    /// A checker whose "allow for this session" grants live in `session_rules`, shared
    /// by the runs of one session.
    pub fn with_session_rules(
        mode: PermissionMode,
        rules: Vec<Rule>,
        session_rules: Arc<Mutex<Vec<Rule>>>,
    ) -> Self {
        Self {
            mode,
            rules,
            session_rules,
        }
    }

    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// Adds a rule for the rest of the session (an "allow for this session" answer).
    pub fn add_session_rule(&self, rule: Rule) {
        if let Ok(mut rules) = self.session_rules.lock() {
            rules.push(rule);
        }
    }

    /// Decides a call: the tool's own rules and the user's rules, strongest first, then
    /// the mode for what no rule covers.
    pub fn check(&self, tool: &dyn AgentTool, arguments: &serde_json::Value) -> Decision {
        let name = tool.name();
        let subject = call_subject(tool, arguments);
        let session_rules = self
            .session_rules
            .lock()
            .map(|rules| rules.clone())
            .unwrap_or_default();
        let mut matched: Vec<(RuleDecision, String)> = tool
            .check_permissions(arguments)
            .into_iter()
            .map(|rule| match rule {
                ToolRule::Deny { reason } => (RuleDecision::Deny, reason),
                ToolRule::Ask { reason } => (RuleDecision::Ask, reason),
                ToolRule::Allow => (RuleDecision::Allow, String::new()),
            })
            .collect();
        for rule in &self.rules {
            if rule.matches(name, arguments, subject.as_deref()) {
                matched.push((
                    rule.decision,
                    format!("rule {} {}", rule.decision.as_str(), rule.text),
                ));
            }
        }
        if let Some((_, reason)) = matched
            .iter()
            .find(|(decision, _)| *decision == RuleDecision::Deny)
        {
            return Decision::Deny {
                reason: reason.clone(),
            };
        }
        if self.mode == PermissionMode::Bypass {
            return Decision::Allow;
        }
        // Grants (an "allow for this session" answer, the CLI's --allow) answer an Ask
        // in advance; they never override a Deny.
        let granted = || {
            session_rules.iter().any(|rule| {
                rule.decision == RuleDecision::Allow
                    && rule.matches(name, arguments, subject.as_deref())
            })
        };
        if let Some((_, reason)) = matched
            .iter()
            .find(|(decision, _)| *decision == RuleDecision::Ask)
        {
            if granted() {
                return Decision::Allow;
            }
            return Decision::Ask {
                reason: reason.clone(),
            };
        }
        if matched
            .iter()
            .any(|(decision, _)| *decision == RuleDecision::Allow)
        {
            return Decision::Allow;
        }
        let by_mode = match (self.mode, tool.effect(arguments)) {
            (_, ToolEffect::Read) => Decision::Allow,
            (PermissionMode::ReadOnly, effect) => Decision::Deny {
                reason: format!(
                    "{name} {} and the session is read-only",
                    if effect == ToolEffect::Write {
                        "writes"
                    } else {
                        "runs a command"
                    }
                ),
            },
            (PermissionMode::AcceptEdits, ToolEffect::Write) => Decision::Allow,
            (_, ToolEffect::Write) => Decision::Ask {
                reason: format!("{name} changes files or data"),
            },
            (_, ToolEffect::Command) => Decision::Ask {
                reason: format!("{name} runs a command"),
            },
        };
        match by_mode {
            Decision::Ask { .. } if granted() => Decision::Allow,
            other => other,
        }
    }
}

/// What a tool needs to ask the user for a permission and to record the grant: the
/// broker and the session's grants.
#[derive(Debug, Clone)]
pub struct PermissionGate {
    pub broker: Arc<PermissionBroker>,
    pub grants: Arc<Mutex<Vec<Rule>>>,
}

impl PermissionGate {
    /// Grants `rule` for the rest of the session.
    pub fn grant(&self, rule: Rule) {
        if let Ok(mut grants) = self.grants.lock() {
            grants.push(rule);
        }
    }
}

/// The user's answer to a permission request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "camelCase")]
pub enum PermissionAnswer {
    AllowOnce,
    AllowSession,
    /// Allow now and in every later session (stored as a rule).
    AllowAlways,
    Deny {
        reason: Option<String>,
    },
    /// Nobody answered (timeout, no terminal, the run ended): treated as a denial.
    #[serde(skip)]
    NoAnswer {
        reason: String,
    },
}

/// Asks the user through `PermissionRequest` events and waits for the answer that
/// comes back through [`PermissionBroker::answer`]. No answer in time means deny.
#[derive(Debug)]
pub struct PermissionBroker {
    pending: Mutex<HashMap<String, oneshot::Sender<PermissionAnswer>>>,
    timeout: Duration,
    /// False when nobody can answer (the CLI without a terminal): asking denies at once.
    interactive: bool,
}

impl PermissionBroker {
    pub fn new(timeout: Duration, interactive: bool) -> Arc<Self> {
        Arc::new(Self {
            pending: Mutex::default(),
            timeout,
            interactive,
        })
    }

    /// Delivers an answer; false when no such request is waiting.
    pub fn answer(&self, request_id: &str, answer: PermissionAnswer) -> bool {
        let sender = self
            .pending
            .lock()
            .ok()
            .and_then(|mut pending| pending.remove(request_id));
        sender.is_some_and(|sender| sender.send(answer).is_ok())
    }

    /// Ids of the requests waiting for an answer.
    pub fn waiting(&self) -> Vec<String> {
        self.pending
            .lock()
            .map(|pending| pending.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Emits a request and waits for its answer, the timeout, or cancellation.
    pub async fn ask(
        &self,
        sink: &dyn EventSink,
        tool_call_id: &str,
        tool: &str,
        arguments: &serde_json::Value,
        reason: &str,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> PermissionAnswer {
        if !self.interactive {
            return PermissionAnswer::NoAnswer {
                reason: format!(
                    "{tool} needs permission ({reason}) and nobody can be asked; allow it with --allow {tool}"
                ),
            };
        }
        let request_id = format!("perm_{}", uuid::Uuid::new_v4().simple());
        let (sender, receiver) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(request_id.clone(), sender);
        }
        sink.emit(AgentEvent::PermissionRequest {
            request_id: request_id.clone(),
            tool_call_id: tool_call_id.to_string(),
            tool: tool.to_string(),
            arguments: arguments.clone(),
            reason: reason.to_string(),
        });
        let answer = tokio::select! {
            answer = tokio::time::timeout(self.timeout, receiver) => match answer {
                Ok(Ok(answer)) => answer,
                Ok(Err(_)) => PermissionAnswer::NoAnswer { reason: "the permission request was dropped".into() },
                Err(_) => PermissionAnswer::NoAnswer { reason: format!("no answer within {} s", self.timeout.as_secs()) },
            },
            () = cancel.cancelled() => PermissionAnswer::NoAnswer { reason: "the run was cancelled".into() },
        };
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&request_id);
        }
        answer
    }
}

#[cfg(test)]
mod tests;
