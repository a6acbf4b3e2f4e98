//! Whether an OpenAI-compatible endpoint answers, takes the key and offers a model:
//! `GET {base}/models`, read leniently. `asterism doctor` and the app's first-run setup
//! (key test, model list, a local Ollama found) share it.

use std::time::Instant;

/// Model names listed in "it offers: …" before the list is cut.
const LISTED_MODELS: usize = 8;

/// What a service said to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    Answers {
        status: u16,
        millis: u128,
    },
    /// 401: the key (or token) is wrong, expired or missing.
    KeyRejected,
    /// 403: the key is valid but may not do this.
    Forbidden,
    /// 5xx.
    Failing(u16),
    /// Another error status: most likely a wrong address.
    Refuses(u16),
    NoAnswer,
    Unreachable(String),
}

impl Health {
    pub fn of_status(status: u16, millis: u128) -> Self {
        match status {
            401 => Self::KeyRejected,
            403 => Self::Forbidden,
            500..=599 => Self::Failing(status),
            400..=499 if status != 429 => Self::Refuses(status),
            _ => Self::Answers { status, millis },
        }
    }

    /// Whether this makes doctor exit 1. A service that cannot be reached is not: being
    /// offline is normal for a laptop, and the library works without the network.
    pub fn is_problem(&self) -> bool {
        matches!(
            self,
            Self::KeyRejected | Self::Forbidden | Self::Failing(_) | Self::Refuses(_)
        )
    }

    pub fn describe(&self) -> String {
        match self {
            Self::Answers { status, millis } => format!("answers (HTTP {status}, {millis} ms)"),
            Self::KeyRejected => "key rejected (401)".into(),
            Self::Forbidden => "forbidden (403)".into(),
            Self::Failing(status) => format!("failing (HTTP {status})"),
            Self::Refuses(status) => format!("refuses (HTTP {status}): is the address right?"),
            Self::NoAnswer => "no answer within 5 s".into(),
            Self::Unreachable(why) => format!("unreachable: {why}"),
        }
    }
}

/// Sends a GET; the health and, when it answered, the body.
pub async fn get(
    http: &reqwest::Client,
    url: &str,
    bearer: Option<&str>,
) -> (Health, Vec<u8>, reqwest::header::HeaderMap) {
    let started = Instant::now();
    let mut request = http.get(url);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    match request.send().await {
        Ok(response) => {
            let health =
                Health::of_status(response.status().as_u16(), started.elapsed().as_millis());
            let headers = response.headers().clone();
            let body = response
                .bytes()
                .await
                .map(|b| b.to_vec())
                .unwrap_or_default();
            (health, body, headers)
        }
        Err(error) if error.is_timeout() => (Health::NoAnswer, Vec::new(), Default::default()),
        Err(error) => (
            Health::Unreachable(crate::client::describe(&error)),
            Vec::new(),
            Default::default(),
        ),
    }
}

/// The ids of an OpenAI-style model list (`{"data": [{"id": …}]}`), sorted; `None` when
/// the body is not one.
pub fn model_ids(body: &[u8]) -> Option<Vec<String>> {
    let list: serde_json::Value = serde_json::from_slice(body).ok()?;
    let mut ids: Vec<String> = list
        .get("data")?
        .as_array()?
        .iter()
        .filter_map(|model| model.get("id")?.as_str().map(str::to_string))
        .collect();
    ids.sort();
    Some(ids)
}

/// Whether `model` is in the list, leniently: Ollama lists `qwen3:latest` for `qwen3`,
/// Google lists `models/gemini-…` for `gemini-…`. A wrong "not offered" would be worse
/// than a missed one.
pub fn offers(ids: &[String], model: &str) -> bool {
    let model = model.trim().to_lowercase();
    ids.iter().any(|id| {
        let id = id.to_lowercase();
        id == model
            || id.strip_suffix(":latest") == Some(model.as_str())
            || id.rsplit('/').next() == Some(model.as_str())
    })
}

/// `a, b, c… (42 in all)`.
pub fn offered_list(ids: &[String]) -> String {
    if ids.is_empty() {
        return "none".into();
    }
    let shown = ids[..ids.len().min(LISTED_MODELS)].join(", ");
    if ids.len() > LISTED_MODELS {
        format!("{shown}… ({} in all)", ids.len())
    } else {
        shown
    }
}

/// What `GET {base}/models` said of the models wanted.
#[derive(Debug, Clone)]
pub struct ModelCheck {
    /// The URL asked.
    pub url: String,
    pub health: Health,
    /// The models the endpoint lists, sorted; `None` when it gave no list.
    pub models: Option<Vec<String>>,
    /// In words: "answers (HTTP 200, 12 ms); offers qwen3-max", "model x not offered…".
    pub verdict: String,
    /// The key is rejected, the endpoint fails or refuses, or a wanted model is missing.
    pub problem: bool,
}

/// Asks `{base_url}/models` (with `key` as a bearer token, if any) and checks that each
/// of `wanted` is offered.
pub async fn check_models(
    http: &reqwest::Client,
    base_url: &str,
    key: Option<&str>,
    wanted: &[&str],
) -> ModelCheck {
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let (health, body, _) = get(http, &url, key).await;
    let models = matches!(health, Health::Answers { .. })
        .then(|| model_ids(&body))
        .flatten();
    let (verdict, problem) = verdict(&health, models.as_deref(), key.is_some(), wanted);
    ModelCheck {
        url,
        health,
        models,
        verdict,
        problem,
    }
}

/// A model server on this computer that answered with its models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalServer {
    pub name: String,
    pub base_url: String,
    pub models: Vec<String>,
}

/// Asks each of `servers` (name, base URL) for its models; those that answer with a
/// list. A server that is not running costs one refused connection.
pub async fn local_servers(http: &reqwest::Client, servers: &[(&str, &str)]) -> Vec<LocalServer> {
    let mut found = Vec::new();
    for (name, base_url) in servers {
        let check = check_models(http, base_url, None, &[]).await;
        if let (Health::Answers { .. }, Some(models)) = (check.health, check.models) {
            found.push(LocalServer {
                name: name.to_string(),
                base_url: base_url.trim_end_matches('/').to_string(),
                models,
            });
        }
    }
    found
}

fn verdict(
    health: &Health,
    models: Option<&[String]>,
    has_key: bool,
    wanted: &[&str],
) -> (String, bool) {
    let wanted: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|m| !m.trim().is_empty())
        .collect();
    match (health, models) {
        (Health::Answers { .. }, Some(ids)) => {
            let missing: Vec<&str> = wanted.iter().copied().filter(|m| !offers(ids, m)).collect();
            if !missing.is_empty() {
                let text = format!(
                    "model {} not offered by this endpoint (it offers: {})",
                    missing.join(" and "),
                    offered_list(ids)
                );
                (text, true)
            } else if wanted.is_empty() {
                (
                    format!("{}; {} models", health.describe(), ids.len()),
                    false,
                )
            } else {
                (
                    format!("{}; offers {}", health.describe(), wanted.join(" and ")),
                    false,
                )
            }
        }
        (Health::Answers { .. }, None) => (
            format!(
                "{}, but gives no model list: cannot check that {} is offered",
                health.describe(),
                wanted.join(" and ")
            ),
            false,
        ),
        // No `/models` here (some OpenAI-compatible servers have none): nothing wrong.
        (Health::Refuses(status @ (404 | 405)), _) => (
            format!(
                "answers, but this endpoint has no model list (HTTP {status}): cannot check that {} is offered",
                wanted.join(" and ")
            ),
            false,
        ),
        (Health::KeyRejected, _) if !has_key => {
            ("key rejected (401): no LLM_API_KEY is set".into(), true)
        }
        (other, _) => (other.describe(), other.is_problem()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn statuses_become_verdicts() {
        assert_eq!(Health::of_status(401, 3).describe(), "key rejected (401)");
        assert_eq!(Health::of_status(403, 3).describe(), "forbidden (403)");
        assert_eq!(Health::of_status(500, 3).describe(), "failing (HTTP 500)");
        assert_eq!(Health::of_status(503, 3).describe(), "failing (HTTP 503)");
        assert_eq!(
            Health::of_status(200, 3).describe(),
            "answers (HTTP 200, 3 ms)"
        );
        assert!(!Health::of_status(429, 3).is_problem(), "busy, not broken");
        assert!(Health::of_status(404, 3).is_problem());
        assert!(!Health::NoAnswer.is_problem() && !Health::Unreachable("x".into()).is_problem());
    }

    #[test]
    fn model_lists_are_read_and_matched_leniently() {
        let body = br#"{"object":"list","data":[{"id":"qwen3-max"},{"id":"models/gemini-2.5-flash"},{"id":"llama3:latest"},{"object":"model"}]}"#;
        let list = model_ids(body).unwrap();
        assert_eq!(
            list,
            ["llama3:latest", "models/gemini-2.5-flash", "qwen3-max"]
        );
        for model in [
            "qwen3-max",
            "Qwen3-Max",
            "gemini-2.5-flash",
            "llama3",
            "llama3:latest",
        ] {
            assert!(offers(&list, model), "{model}");
        }
        assert!(!offers(&list, "qwen3"));
        assert_eq!(model_ids(b"<html>502</html>"), None);
        assert_eq!(model_ids(br#"{"models":[]}"#), None);
        assert_eq!(offered_list(&[]), "none");
        assert_eq!(offered_list(&ids(&["a", "b"])), "a, b");
        let many: Vec<String> = (0..10).map(|n| format!("m{n}")).collect();
        assert_eq!(
            offered_list(&many),
            "m0, m1, m2, m3, m4, m5, m6, m7… (10 in all)"
        );
    }
}
