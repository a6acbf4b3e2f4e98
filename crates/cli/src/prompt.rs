//! Asking the user on the terminal: permission requests and the agent's questions.

use std::io::{BufRead, Write};
use std::sync::Arc;

use asterism_agent::permissions::{PermissionAnswer, PermissionBroker};
use asterism_agent::questions::QuestionBroker;
use asterism_protocol::{AgentEvent, GrantKind, PermissionGrant};
use tokio::sync::mpsc::UnboundedReceiver;

/// What the user typed, as an answer: y = once, s = this session, a = always, n = no
/// (anything after `n` is the reason the model sees). `s2`/`a2` pick the second of the
/// offered grants (e.g. commands starting with a prefix instead of the exact command);
/// `s`/`a` where nothing may be granted beyond once is a no.
pub fn parse_answer(line: &str, grants: &[PermissionGrant]) -> PermissionAnswer {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let word = word.to_lowercase();
    let (letters, number) = word.split_at(
        word.find(|c: char| c.is_ascii_digit())
            .unwrap_or(word.len()),
    );
    let picked = match number.parse::<usize>() {
        Ok(n) => n.checked_sub(1).and_then(|index| grants.get(index)),
        Err(_) => grants.first(),
    };
    let rule = picked.map(|grant| grant.rule.clone());
    match (letters, &rule) {
        ("y" | "yes" | "o" | "once", _) => PermissionAnswer::AllowOnce,
        ("s" | "session", Some(_)) => PermissionAnswer::AllowSession { rule },
        ("a" | "always", Some(_)) => PermissionAnswer::AllowAlways { rule },
        _ => PermissionAnswer::Deny {
            reason: Some(rest.trim().to_string()).filter(|reason| !reason.is_empty()),
        },
    }
}

/// The question shown for a permission request.
fn permission_prompt(
    tool: &str,
    arguments: &serde_json::Value,
    reason: &str,
    grants: &[PermissionGrant],
) -> String {
    let mut prompt = format!("\nAsterism wants to run {tool} {arguments}\n  because: {reason}\n");
    if grants.is_empty() {
        prompt.push_str("  allow? [y] once  [n] no (n REASON tells the model why): ");
        return prompt;
    }
    if grants.len() > 1 {
        prompt.push_str("  [s]/[a] grant, for this session or always:\n");
        for (index, grant) in grants.iter().enumerate() {
            let what = match grant.kind {
                GrantKind::Exact => format!("exactly `{}`", grant.text),
                GrantKind::Prefix => format!("commands starting with `{}`", grant.text),
                GrantKind::Tool => format!("every {} call", grant.text),
            };
            prompt.push_str(&format!(
                "    {}{what}\n",
                if index == 0 { "s/a:  " } else { "s2/a2: " }
            ));
        }
    }
    prompt.push_str(
        "  allow? [y] once  [s] this session  [a] always  [n] no (n REASON tells the model why): ",
    );
    prompt
}

/// What the user typed for a question with options: a number picks that option,
/// anything else is the answer in their own words.
pub fn parse_choice(line: &str, options: &[String]) -> String {
    let line = line.trim();
    line.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|index| options.get(index))
        .cloned()
        .unwrap_or_else(|| line.to_string())
}

/// Shows `prompt` on stderr and reads one line from the terminal.
async fn read_answer(prompt: String) -> String {
    tokio::task::spawn_blocking(move || {
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(prompt.as_bytes());
        let _ = stderr.flush();
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map(|_| line)
            .unwrap_or_default()
    })
    .await
    .unwrap_or_default()
}

/// Prompts for each permission request and each question of the agent, one at a time,
/// and delivers the answers.
pub async fn answer_requests(
    mut requests: UnboundedReceiver<AgentEvent>,
    broker: Arc<PermissionBroker>,
    questions: Arc<QuestionBroker>,
) {
    while let Some(event) = requests.recv().await {
        match event {
            AgentEvent::PermissionRequest {
                request_id,
                tool,
                arguments,
                reason,
                grants,
                ..
            } => {
                if !broker.waiting().contains(&request_id) {
                    continue;
                }
                let line =
                    read_answer(permission_prompt(&tool, &arguments, &reason, &grants)).await;
                broker.answer(&request_id, parse_answer(&line, &grants));
            }
            AgentEvent::AskUser {
                request_id,
                question,
                options,
            } => {
                if !questions.waiting().contains(&request_id) {
                    continue;
                }
                let mut prompt = format!("\nAsterism asks: {question}\n");
                for (index, option) in options.iter().enumerate() {
                    prompt.push_str(&format!("  [{}] {option}\n", index + 1));
                }
                prompt.push_str(if options.is_empty() {
                    "  your answer: "
                } else {
                    "  a number, or your own answer: "
                });
                let line = read_answer(prompt).await;
                questions.answer(&request_id, &parse_choice(&line, &options));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(kind: GrantKind, rule: &str) -> PermissionGrant {
        PermissionGrant {
            kind,
            rule: rule.into(),
            text: rule.into(),
        }
    }

    #[test]
    fn answers_parse() {
        let tool = [grant(GrantKind::Tool, "file_write")];
        let parse_answer = |line: &str| super::parse_answer(line, &tool);
        assert_eq!(parse_answer("y\n"), PermissionAnswer::AllowOnce);
        let options = vec!["NGC 1068".to_string(), "M 77".to_string()];
        assert_eq!(parse_choice("2\n", &options), "M 77");
        assert_eq!(parse_choice("9", &options), "9");
        assert_eq!(
            parse_choice(" the Seyfert 2 one ", &options),
            "the Seyfert 2 one"
        );
        assert_eq!(
            parse_answer("S"),
            PermissionAnswer::AllowSession {
                rule: Some("file_write".into())
            }
        );
        assert_eq!(
            parse_answer("always"),
            PermissionAnswer::AllowAlways {
                rule: Some("file_write".into())
            }
        );
        assert_eq!(
            parse_answer("n use the library first"),
            PermissionAnswer::Deny {
                reason: Some("use the library first".into())
            }
        );
        assert_eq!(parse_answer(""), PermissionAnswer::Deny { reason: None });
    }

    #[test]
    fn a_shell_command_grant_is_picked_by_number_and_once_only_requests_grant_nothing_more() {
        let shell = [
            grant(GrantKind::Exact, "run_bash(=git status --short)"),
            grant(GrantKind::Prefix, "run_bash(git status)"),
        ];
        assert_eq!(
            super::parse_answer("s", &shell),
            PermissionAnswer::AllowSession {
                rule: Some("run_bash(=git status --short)".into())
            }
        );
        assert_eq!(
            super::parse_answer("a2", &shell),
            PermissionAnswer::AllowAlways {
                rule: Some("run_bash(git status)".into())
            }
        );
        assert_eq!(
            super::parse_answer("s9", &shell),
            PermissionAnswer::Deny { reason: None }
        );
        assert_eq!(
            super::parse_answer("a", &[]),
            PermissionAnswer::Deny { reason: None }
        );
        assert_eq!(super::parse_answer("y", &[]), PermissionAnswer::AllowOnce);
    }
}
