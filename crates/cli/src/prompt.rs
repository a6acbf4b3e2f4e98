//! Asking the user on the terminal: permission requests.

use std::io::{BufRead, Write};
use std::sync::Arc;

use asterism_agent::permissions::{PermissionAnswer, PermissionBroker};
use asterism_protocol::AgentEvent;
use tokio::sync::mpsc::UnboundedReceiver;

/// What the user typed, as an answer: y = once, s = this session, a = always, n = no
/// (anything after `n` is the reason the model sees).
pub fn parse_answer(line: &str) -> PermissionAnswer {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    match word.to_lowercase().as_str() {
        "y" | "yes" | "o" | "once" => PermissionAnswer::AllowOnce,
        "s" | "session" => PermissionAnswer::AllowSession,
        "a" | "always" => PermissionAnswer::AllowAlways,
        _ => PermissionAnswer::Deny {
            reason: Some(rest.trim().to_string()).filter(|reason| !reason.is_empty()),
        },
    }
}

/// Prompts for each permission request, one at a time, and delivers the answers.
pub async fn answer_permission_requests(
    mut requests: UnboundedReceiver<AgentEvent>,
    broker: Arc<PermissionBroker>,
) {
    while let Some(event) = requests.recv().await {
        let AgentEvent::PermissionRequest {
            request_id,
            tool,
            arguments,
            reason,
            ..
        } = event
        else {
            continue;
        };
        if !broker.waiting().contains(&request_id) {
            continue;
        }
        let question = format!(
            "\nAsterism wants to run {tool} {arguments}\n  because: {reason}\n  allow? [y] once  [s] this session  [a] always  [n] no (n REASON tells the model why): "
        );
        let line = tokio::task::spawn_blocking(move || {
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(question.as_bytes());
            let _ = stderr.flush();
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map(|_| line)
                .unwrap_or_default()
        })
        .await
        .unwrap_or_default();
        broker.answer(&request_id, parse_answer(&line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse() {
        assert_eq!(parse_answer("y\n"), PermissionAnswer::AllowOnce);
        assert_eq!(parse_answer("S"), PermissionAnswer::AllowSession);
        assert_eq!(parse_answer("always"), PermissionAnswer::AllowAlways);
        assert_eq!(
            parse_answer("n use the library first"),
            PermissionAnswer::Deny {
                reason: Some("use the library first".into())
            }
        );
        assert_eq!(parse_answer(""), PermissionAnswer::Deny { reason: None });
    }
}
