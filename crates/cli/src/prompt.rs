//! Asking the user on the terminal: permission requests and the agent's questions.

use std::io::{BufRead, Write};
use std::sync::Arc;

use asterism_agent::permissions::{PermissionAnswer, PermissionBroker};
use asterism_agent::questions::QuestionBroker;
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
                ..
            } => {
                if !broker.waiting().contains(&request_id) {
                    continue;
                }
                let line = read_answer(format!(
                    "\nAsterism wants to run {tool} {arguments}\n  because: {reason}\n  allow? [y] once  [s] this session  [a] always  [n] no (n REASON tells the model why): "
                ))
                .await;
                broker.answer(&request_id, parse_answer(&line));
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

    #[test]
    fn answers_parse() {
        assert_eq!(parse_answer("y\n"), PermissionAnswer::AllowOnce);
        let options = vec!["NGC 1068".to_string(), "M 77".to_string()];
        assert_eq!(parse_choice("2\n", &options), "M 77");
        assert_eq!(parse_choice("9", &options), "9");
        assert_eq!(
            parse_choice(" the Seyfert 2 one ", &options),
            "the Seyfert 2 one"
        );
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
