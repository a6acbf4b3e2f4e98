//! What the webview may not decide alone: a lasting grant of the shell or an MCP tool
//! ("this session", "always"), and settings that loosen the agent's sandbox
//! (`SHELL_NETWORK` on, `SHELL_READ`, the sites links open). A script injected into the
//! page can call the commands, so each of these is put to the user in a native message
//! box first (the questions are built here; `commands.rs` and `settings.rs` ask them).

use std::path::Path;

use asterism_agent::permissions::PermissionBroker;
use asterism_agent::settings::Settings;

use crate::dialogs::{UiLanguage, shown};

/// Tools whose lasting grants are confirmed natively: they run programs.
fn runs_programs(tool: &str) -> bool {
    tool == "run_bash" || tool.starts_with("mcp__")
}

/// The question for a lasting grant of a waiting request (`None`: nothing to confirm, as
/// for a file tool, or a request no longer waiting).
pub fn lasting_grant_question(
    broker: &PermissionBroker,
    request_id: &str,
    rule: Option<&str>,
    always: bool,
    language: UiLanguage,
) -> Option<String> {
    let (tool, grants) = broker.asked(request_id)?;
    if !runs_programs(&tool) {
        return None;
    }
    // The grant the executor will take: the one named, else the narrowest.
    let grant = match rule {
        Some(rule) => grants.iter().find(|grant| grant.rule == rule),
        None => grants.first(),
    }?;
    let what = shown(Path::new(&grant.text));
    Some(match (language, always) {
        (UiLanguage::En, false) => format!(
            "For the rest of this session the agent may run, without asking:\n\n{what}\n\n({tool}). Instructions hidden in a paper or a web page can make it use this."
        ),
        (UiLanguage::En, true) => format!(
            "From now on, in every session, the agent may run, without asking:\n\n{what}\n\n({tool}). Instructions hidden in a paper or a web page can make it use this."
        ),
        (UiLanguage::Zh, false) => format!(
            "在本会话剩余时间内，助手无需询问即可运行：\n\n{what}\n\n（{tool}）。论文或网页中隐藏的指令可能会利用这一点。"
        ),
        (UiLanguage::Zh, true) => format!(
            "从现在起，在所有会话中，助手无需询问即可运行：\n\n{what}\n\n（{tool}）。论文或网页中隐藏的指令可能会利用这一点。"
        ),
    })
}

/// Settings that open the sandbox wider, or send the user's clicks elsewhere.
const LOOSENING: [&str; 6] = [
    "SHELL_NETWORK",
    "SHELL_READ",
    "ADS_UI_URL",
    "ARXIV_URL",
    "DOI_URL",
    "SIMBAD_URL",
];

/// The question for the values that would loosen the sandbox (`None`: none do).
pub fn loosening_question(
    settings: &Settings,
    values: &[(String, String)],
    language: UiLanguage,
) -> Option<String> {
    let current = settings.describe();
    let changes: Vec<String> = values
        .iter()
        .filter(|(name, _)| LOOSENING.contains(&name.as_str()))
        .filter(|(name, value)| {
            let before = current
                .iter()
                .find(|(variable, _, _)| *variable == name.as_str())
                .map(|(_, shown, _)| shown.as_str())
                .unwrap_or_default();
            let value = value.trim();
            match name.as_str() {
                // Turning the network off, or clearing the read list, needs no box.
                "SHELL_NETWORK" => value.eq_ignore_ascii_case("true") && before != "true",
                "SHELL_READ" => !value.is_empty() && value != before,
                _ => value != before,
            }
        })
        .map(|(name, value)| format!("{name} = {}", shown(Path::new(value.trim()))))
        .collect();
    if changes.is_empty() {
        return None;
    }
    let list = changes.join("\n");
    Some(match language {
        UiLanguage::En => format!(
            "These settings let the agent's shell reach the network or read more of your disk, or send links you click elsewhere:\n\n{list}\n\nSave them only if you typed them yourself."
        ),
        UiLanguage::Zh => format!(
            "这些设置会让助手的命令行访问网络或读取更多磁盘内容，或把您点击的链接发往别处：\n\n{list}\n\n仅当这些值是您亲自输入的时才保存。"
        ),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use asterism_agent::CollectingSink;
    use asterism_agent::permissions::PermissionQuestion;
    use asterism_protocol::{AgentEvent, GrantKind, PermissionGrant};

    use super::*;

    #[tokio::test]
    async fn lasting_grants_of_programs_are_put_to_the_user_and_file_tools_are_not() {
        let broker = PermissionBroker::new(Duration::from_secs(5), true);
        let sink = CollectingSink::new();
        let grants = vec![PermissionGrant {
            kind: GrantKind::Exact,
            rule: "run_bash(=rm -rf data)".into(),
            text: "rm -rf data".into(),
        }];
        let cancel = tokio_util::sync::CancellationToken::new();
        let asking = {
            let (broker, sink, grants, cancel) =
                (broker.clone(), sink.clone(), grants.clone(), cancel.clone());
            tokio::spawn(async move {
                broker
                    .ask(
                        &sink,
                        PermissionQuestion {
                            tool_call_id: "c1",
                            tool: "run_bash",
                            arguments: &serde_json::json!({"command": "rm -rf data"}),
                            reason: "runs a command",
                            grants: &grants,
                        },
                        &cancel,
                    )
                    .await
            })
        };
        let id = loop {
            if let Some(AgentEvent::PermissionRequest { request_id, .. }) = sink.events().pop() {
                break request_id;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        let question = lasting_grant_question(&broker, &id, None, true, UiLanguage::En).unwrap();
        assert!(question.contains("rm -rf data") && question.contains("every session"));
        assert!(
            lasting_grant_question(&broker, "perm_unknown", None, true, UiLanguage::En).is_none()
        );
        assert!(
            lasting_grant_question(&broker, &id, Some("run_bash(rm)"), false, UiLanguage::En)
                .is_none(),
            "a rule that was not offered grants nothing, so there is nothing to ask"
        );
        cancel.cancel();
        asking.await.unwrap();
        assert!(broker.asked(&id).is_none(), "forgotten once answered");
    }

    #[test]
    fn settings_that_loosen_the_sandbox_are_put_to_the_user() {
        let dir = std::env::temp_dir().join(format!("asterism-grants-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let settings = Settings::load_from(
            vec![("ASTERISM_DATA_DIR".to_string(), dir.display().to_string())]
                .into_iter()
                .collect(),
            None,
        )
        .unwrap();
        let ask = |values: &[(&str, &str)]| {
            let values: Vec<(String, String)> = values
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect();
            loosening_question(&settings, &values, UiLanguage::En)
        };
        assert!(
            ask(&[("SHELL_NETWORK", "true")])
                .unwrap()
                .contains("SHELL_NETWORK = true")
        );
        assert!(ask(&[("SHELL_READ", "/data/surveys")]).is_some());
        assert!(ask(&[("SIMBAD_URL", "https://evil.example")]).is_some());
        assert_eq!(ask(&[("SHELL_NETWORK", "false")]), None);
        assert_eq!(ask(&[("SHELL_READ", "")]), None);
        assert_eq!(ask(&[("LLM_MODEL", "qwen3-max")]), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
