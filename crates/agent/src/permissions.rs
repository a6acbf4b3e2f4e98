//! Who may run what: the tool's own rules, the user's rules (Deny beats Ask beats
//! Allow, `*` wildcards, argument patterns) and the permission mode; and the broker that
//! asks the user and waits for the answer.
//!
//! Rule syntax: `tool` or `tool(pattern)`, where `tool` is a glob over tool names and
//! `pattern` is a glob over the call's subject or over one argument
//! (`file_write(path:notes/**)`). For tools that run a shell command (`run_bash`) the
//! pattern is a command: `run_bash(git status)` covers commands whose first words are
//! `git status`, `run_bash(=git status --short)` exactly that command, `run_bash(*)` any.
//! A command joining several (`;`, `&&`, `||`, `|`) is allowed only when each part is;
//! a part with substitutions, variables or redirections to files only by the exact
//! command or a grant of the whole tool. Deny and Ask rules match when any part does.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use asterism_protocol::{AgentEvent, GrantKind, PermissionGrant};
use globset::{Glob, GlobMatcher};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::security::shell::{self, CommandLine, Part};
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
    /// Adds to Asterism's own records (library, notes, memories, teammates): runs
    /// without asking, but not in read-only mode.
    Record,
    Write,
    Command,
    /// Sends part of the user's library to the model beyond text the agent already has
    /// (a figure's image, `view_figure`): changes nothing, so a read-only session may
    /// do it too, but the user is asked unless a rule or grant allows it.
    Share,
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
    /// The pattern read as a shell command (for tools that run one).
    command: Option<CommandPattern>,
}

/// A rule's pattern as a shell command.
#[derive(Debug, Clone)]
enum CommandPattern {
    Any,
    /// The whole command line, exactly.
    Exact(String),
    /// The first words of a part.
    Prefix(Vec<String>),
    /// A glob over a part's words joined by single spaces.
    Glob(GlobMatcher),
}

impl CommandPattern {
    fn parse(pattern: &str) -> Result<Self, String> {
        let pattern = pattern.trim();
        if pattern.is_empty() || pattern == "*" {
            return Ok(Self::Any);
        }
        if let Some(exact) = pattern.strip_prefix('=') {
            return Ok(Self::Exact(exact.trim().to_string()));
        }
        let stem = pattern
            .trim_end_matches('*')
            .trim_end_matches(':')
            .trim_end();
        if stem.contains(['*', '?', '[']) {
            return Glob::new(pattern)
                .map(|glob| Self::Glob(glob.compile_matcher()))
                .map_err(|error| error.to_string());
        }
        let words = shell_words::split(stem).map_err(|error| error.to_string())?;
        if words.is_empty() {
            return Ok(Self::Any);
        }
        Ok(Self::Prefix(words))
    }

    /// Whether it reaches this part (for Deny and Ask rules), judged by what the part
    /// runs: the program by name whatever its path, and what its wrappers run.
    fn touches(&self, line: &CommandLine, part: &Part) -> bool {
        match self {
            Self::Any => true,
            Self::Exact(exact) => *exact == line.raw,
            Self::Prefix(prefix) => {
                let mut named = prefix.clone();
                named[0] = crate::security::commands::program_name(&prefix[0]);
                part.words.starts_with(prefix)
                    || part.runs.iter().any(|run| run.starts_with(&named))
            }
            Self::Glob(glob) => {
                glob.is_match(part.words.join(" "))
                    || glob.is_match(&part.text)
                    || part.runs.iter().any(|run| glob.is_match(run.join(" ")))
            }
        }
    }

    /// Whether it allows this part: only plain parts a prefix can stand for, by their
    /// words as written.
    fn allows(&self, line: &CommandLine, part: &Part) -> bool {
        match self {
            Self::Any => true,
            Self::Exact(exact) => *exact == line.raw,
            Self::Prefix(prefix) => {
                part.complex.is_none()
                    && part.prefix_problem.is_none()
                    && part.words.starts_with(prefix)
            }
            Self::Glob(glob) => {
                part.complex.is_none()
                    && part.prefix_problem.is_none()
                    && (glob.is_match(part.words.join(" ")) || glob.is_match(&part.text))
            }
        }
    }
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
                // An exact command is matched literally, whatever characters it has.
                _ if inner.trim_start().starts_with('=') => {
                    (None, Some(glob(&globset::escape(inner))?))
                }
                _ => (None, Some(glob(inner)?)),
            },
        };
        let command = match (&field, inner) {
            // Read as a command only matters for shell tools; a pattern that is no
            // command (unbalanced quotes) then allows nothing.
            (None, Some(inner)) => CommandPattern::parse(inner).ok(),
            _ => None,
        };
        Ok(Self {
            decision,
            text: text.to_string(),
            tool: glob(tool)?,
            field,
            pattern,
            command,
        })
    }

    /// Whether a Deny or Ask rule reaches this call: for a shell command, when it
    /// matches the whole line or any part of it.
    fn touches(
        &self,
        tool: &str,
        arguments: &serde_json::Value,
        subject: Option<&str>,
        line: Option<&CommandLine>,
    ) -> bool {
        if self.matches(tool, arguments, subject) {
            return true;
        }
        match (line, &self.command) {
            (Some(line), Some(command)) if self.tool.is_match(tool) => {
                line.parts.iter().any(|part| command.touches(line, part))
            }
            _ => false,
        }
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
    /// Ask the user; `grants` are what "this session"/"always" may grant (empty: only
    /// "once").
    Ask {
        reason: String,
        grants: Vec<PermissionGrant>,
    },
    Deny {
        reason: String,
    },
}

/// Whether `rules` (their Allow rules) allow this call. A shell command is allowed by a
/// grant of the whole tool, by its exact text, or when every part is plain and allowed
/// by some rule.
fn allowed_by<'a>(
    rules: impl IntoIterator<Item = &'a Rule>,
    tool: &str,
    arguments: &serde_json::Value,
    subject: Option<&str>,
    line: Option<&CommandLine>,
) -> bool {
    let allow = rules
        .into_iter()
        .filter(|rule| rule.decision == RuleDecision::Allow && rule.tool.is_match(tool));
    let Some(line) = line else {
        return allow
            .into_iter()
            .any(|rule| rule.matches(tool, arguments, subject));
    };
    let allow: Vec<&Rule> = allow.collect();
    let whole = |rule: &&Rule| {
        rule.pattern.is_none()
            || matches!(&rule.command, Some(CommandPattern::Any))
            || matches!(&rule.command, Some(CommandPattern::Exact(exact)) if *exact == line.raw)
    };
    if allow.iter().any(whole) {
        return true;
    }
    !line.parts.is_empty()
        && line.parts.iter().all(|part| {
            allow.iter().any(|rule| {
                rule.command
                    .as_ref()
                    .is_some_and(|command| command.allows(line, part))
            })
        })
}

/// What "allow for this session" and "always" may grant for a call, narrowest first.
pub fn offered_grants(tool: &str, line: Option<&CommandLine>) -> Vec<PermissionGrant> {
    let Some(line) = line else {
        return vec![PermissionGrant {
            kind: GrantKind::Tool,
            rule: tool.to_string(),
            text: tool.to_string(),
        }];
    };
    let mut grants = vec![PermissionGrant {
        kind: GrantKind::Exact,
        rule: format!("{tool}(={})", line.raw),
        text: line.raw.clone(),
    }];
    if let Some(prefix) = shell::suggested_prefix(line) {
        let text = shell_words::join(&prefix);
        grants.push(PermissionGrant {
            kind: GrantKind::Prefix,
            rule: format!("{tool}({text})"),
            text,
        });
    }
    grants
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

    /// What the tool's own checks say of the call, then every Deny and Ask rule of the
    /// configuration that touches it, each with its reason (Allow rules are read later,
    /// after every Deny and Ask).
    fn matched_rules(
        &self,
        tool: &dyn AgentTool,
        arguments: &serde_json::Value,
        subject: Option<&str>,
        line: Option<&CommandLine>,
    ) -> Vec<(RuleDecision, String)> {
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
            if rule.decision != RuleDecision::Allow
                && rule.touches(tool.name(), arguments, subject, line)
            {
                matched.push((
                    rule.decision,
                    format!("rule {} {}", rule.decision.as_str(), rule.text),
                ));
            }
        }
        matched
    }

    /// Decides a call: the tool's own rules and the user's rules, strongest first, then
    /// the mode for what no rule covers. `always_ask` (a write that can run code later)
    /// is asked whatever the mode and the grants; only a Deny or read-only mode beat it.
    pub fn check(
        &self,
        tool: &dyn AgentTool,
        arguments: &serde_json::Value,
        always_ask: Option<String>,
    ) -> Decision {
        let name = tool.name();
        let subject = call_subject(tool, arguments);
        let line = tool
            .shell_command(arguments)
            .map(|command| shell::analyse(&command));
        let line = line.as_ref();
        let session_rules = self
            .session_rules
            .lock()
            .map(|rules| rules.clone())
            .unwrap_or_default();
        let matched = self.matched_rules(tool, arguments, subject.as_deref(), line);
        if let Some((_, reason)) = matched
            .iter()
            .find(|(decision, _)| *decision == RuleDecision::Deny)
        {
            return Decision::Deny {
                reason: reason.clone(),
            };
        }
        let effect = tool.effect(arguments);
        let changes = !matches!(effect, ToolEffect::Read | ToolEffect::Share);
        if self.mode == PermissionMode::ReadOnly && changes {
            return Decision::Deny {
                reason: format!(
                    "{name} {} and the session is read-only",
                    match effect {
                        ToolEffect::Command => "runs a command",
                        ToolEffect::Record => "adds to the library, notes or memories",
                        _ => "writes",
                    }
                ),
            };
        }
        if let Some(reason) = always_ask {
            return Decision::Ask {
                reason,
                grants: Vec::new(),
            };
        }
        if self.mode == PermissionMode::Bypass {
            return Decision::Allow;
        }
        let ask = |reason: String| Decision::Ask {
            reason,
            grants: offered_grants(name, line),
        };
        // Grants (an "allow for this session" answer, the CLI's --allow) answer an Ask
        // in advance; they never override a Deny.
        let granted = || allowed_by(&session_rules, name, arguments, subject.as_deref(), line);
        if let Some((_, reason)) = matched
            .iter()
            .find(|(decision, _)| *decision == RuleDecision::Ask)
        {
            return if granted() {
                Decision::Allow
            } else {
                ask(reason.clone())
            };
        }
        let tool_allows = matched
            .iter()
            .any(|(decision, _)| *decision == RuleDecision::Allow);
        if tool_allows || allowed_by(&self.rules, name, arguments, subject.as_deref(), line) {
            return Decision::Allow;
        }
        let reason = match (self.mode, effect) {
            (_, ToolEffect::Read | ToolEffect::Record) => return Decision::Allow,
            (PermissionMode::AcceptEdits, ToolEffect::Write) => return Decision::Allow,
            (_, ToolEffect::Write) => format!("{name} changes files or data"),
            (_, ToolEffect::Share) => {
                format!("{name} sends a figure from your library to the model")
            }
            (_, ToolEffect::Command) => match line.and_then(CommandLine::complexity) {
                Some(why) => format!("{name} runs a command that {why}"),
                None => format!("{name} runs a command"),
            },
        };
        if granted() {
            Decision::Allow
        } else {
            ask(reason)
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
    /// Allow for the rest of the session what `rule` covers: one of the request's
    /// grants (`None`: the first, the narrowest).
    AllowSession {
        #[serde(default)]
        rule: Option<String>,
    },
    /// Allow now and in every later session (stored as a rule).
    AllowAlways {
        #[serde(default)]
        rule: Option<String>,
    },
    Deny {
        reason: Option<String>,
    },
    /// Nobody answered (timeout, no terminal, the run ended): treated as a denial.
    #[serde(skip)]
    NoAnswer {
        reason: String,
    },
}

/// What a permission request asks about.
#[derive(Debug, Clone, Copy)]
pub struct PermissionQuestion<'a> {
    pub tool_call_id: &'a str,
    pub tool: &'a str,
    pub arguments: &'a serde_json::Value,
    pub reason: &'a str,
    /// What "this session"/"always" may grant (empty: only "once").
    pub grants: &'a [PermissionGrant],
}

/// Asks the user through `PermissionRequest` events and waits for the answer that
/// comes back through [`PermissionBroker::answer`]. No answer in time means deny.
#[derive(Debug)]
pub struct PermissionBroker {
    pending: Mutex<HashMap<String, oneshot::Sender<PermissionAnswer>>>,
    /// What each waiting request asks: the tool and the grants it offers.
    asked: Mutex<HashMap<String, (String, Vec<PermissionGrant>)>>,
    timeout: Duration,
    /// False when nobody can answer (the CLI without a terminal): asking denies at once.
    interactive: bool,
}

impl PermissionBroker {
    pub fn new(timeout: Duration, interactive: bool) -> Arc<Self> {
        Arc::new(Self {
            pending: Mutex::default(),
            asked: Mutex::default(),
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

    /// The tool and the offered grants of a request still waiting (for a front end that
    /// confirms a grant itself before answering).
    pub fn asked(&self, request_id: &str) -> Option<(String, Vec<PermissionGrant>)> {
        self.asked
            .lock()
            .ok()
            .and_then(|asked| asked.get(request_id).cloned())
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
        question: PermissionQuestion<'_>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> PermissionAnswer {
        let PermissionQuestion {
            tool_call_id,
            tool,
            arguments,
            reason,
            grants,
        } = question;
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
        if let Ok(mut asked) = self.asked.lock() {
            asked.insert(request_id.clone(), (tool.to_string(), grants.to_vec()));
        }
        sink.emit(AgentEvent::PermissionRequest {
            request_id: request_id.clone(),
            tool_call_id: tool_call_id.to_string(),
            tool: tool.to_string(),
            arguments: arguments.clone(),
            reason: reason.to_string(),
            grants: grants.to_vec(),
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
        if let Ok(mut asked) = self.asked.lock() {
            asked.remove(&request_id);
        }
        answer
    }
}

#[cfg(test)]
mod tests;
