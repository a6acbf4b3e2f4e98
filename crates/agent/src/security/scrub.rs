//! Secrets replaced by value: every configured key and token (and every environment
//! variable whose name says it is one) becomes `***` wherever it appears, in tool
//! results, errors, events, audit rows and stored messages. Private-key blocks are cut
//! out whoever wrote them.

use std::sync::Arc;

use asterism_protocol::AgentEvent;

use crate::EventSink;

/// What a secret value is replaced by.
pub const MASK: &str = "***";

/// Values shorter than this are not scrubbed: they would mask ordinary words.
pub const MIN_SECRET_CHARS: usize = 8;

/// Replaces known secret values. Cheap to clone.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Scrubber {
    values: Arc<Vec<String>>,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scrubber({} secrets)", self.values.len())
    }
}

/// Whether an environment variable's name says its value is a credential.
pub fn secret_variable(name: &str) -> bool {
    let upper = name.to_uppercase();
    upper.ends_with("KEY")
        || [
            "API_KEY",
            "APIKEY",
            "ACCESS_KEY",
            "TOKEN",
            "SECRET",
            "PASSWORD",
            "PASSWD",
            "CREDENTIAL",
        ]
        .iter()
        .any(|word| upper.contains(word))
}

impl Scrubber {
    /// A scrubber of these values (short and empty ones are skipped; longest first, so
    /// a key that contains another is replaced whole).
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mut values: Vec<String> = values
            .into_iter()
            .map(|value| value.trim().to_string())
            .filter(|value| value.chars().count() >= MIN_SECRET_CHARS)
            .collect();
        values.sort_by_key(|value| std::cmp::Reverse(value.len()));
        values.dedup();
        Self {
            values: Arc::new(values),
        }
    }

    /// The configured secrets plus the values of secret-looking variables of `environment`.
    pub fn with_environment<'a>(
        configured: impl IntoIterator<Item = String>,
        environment: impl IntoIterator<Item = (&'a String, &'a String)>,
    ) -> Self {
        let from_environment = environment
            .into_iter()
            .filter(|(name, _)| secret_variable(name))
            .map(|(_, value)| value.clone());
        Self::new(configured.into_iter().chain(from_environment))
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every secret value and private-key block replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = cut_private_keys(text);
        for value in self.values.iter() {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), MASK);
            }
        }
        out
    }

    /// Scrubs in place; true when something was replaced.
    pub fn in_place(&self, text: &mut String) -> bool {
        let scrubbed = self.text(text);
        if scrubbed != *text {
            *text = scrubbed;
            true
        } else {
            false
        }
    }

    /// Every string of a JSON value (keys too) scrubbed.
    pub fn json(&self, value: &serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::String(text) => serde_json::Value::String(self.text(text)),
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(|item| self.json(item)).collect())
            }
            serde_json::Value::Object(object) => serde_json::Value::Object(
                object
                    .iter()
                    .map(|(key, value)| (self.text(key), self.json(value)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// An event with its text and JSON scrubbed (through its wire form, so every field of
    /// every variant is covered, now and when variants are added).
    pub fn event(&self, event: AgentEvent) -> AgentEvent {
        let Ok(wire) = serde_json::to_value(&event) else {
            return event;
        };
        let scrubbed = self.json(&wire);
        if scrubbed == wire {
            return event;
        }
        serde_json::from_value(scrubbed).unwrap_or(event)
    }
}

/// Replaces `-----BEGIN … PRIVATE KEY----- … -----END … PRIVATE KEY-----` blocks (and a
/// block whose end is missing, to the end of the text).
fn cut_private_keys(text: &str) -> String {
    if !text.contains("PRIVATE KEY-----") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_key_begin(rest) {
        out.push_str(&rest[..start]);
        out.push_str("[private key removed]");
        let after = &rest[start..];
        match after.find("-----END") {
            Some(end) => {
                let tail = &after[end + "-----END".len()..];
                let close = tail
                    .find("KEY-----")
                    .map_or(tail.len(), |index| index + "KEY-----".len());
                rest = &tail[close..];
            }
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

fn find_key_begin(text: &str) -> Option<usize> {
    let mut offset = 0;
    while let Some(found) = text[offset..].find("-----BEGIN") {
        let start = offset + found;
        let line_end = text[start..]
            .find('\n')
            .map_or(text.len(), |index| start + index);
        if text[start..line_end].contains("PRIVATE KEY-----") {
            return Some(start);
        }
        offset = start + "-----BEGIN".len();
    }
    None
}

/// A sink that scrubs every event before passing it on.
pub struct ScrubbingSink {
    inner: Arc<dyn EventSink>,
    scrubber: Scrubber,
}

impl ScrubbingSink {
    /// Wraps `inner`; with no secrets to scrub it is returned as it is.
    pub fn wrap(inner: Arc<dyn EventSink>, scrubber: &Scrubber) -> Arc<dyn EventSink> {
        if scrubber.is_empty() {
            return inner;
        }
        Arc::new(Self {
            inner,
            scrubber: scrubber.clone(),
        })
    }
}

impl EventSink for ScrubbingSink {
    fn emit(&self, event: AgentEvent) {
        self.inner.emit(self.scrubber.event(event));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_replaced_by_value_wherever_they_are() {
        let scrubber = Scrubber::new(["sk-live-0123456789abcdef".to_string(), "short".into()]);
        assert_eq!(
            scrubber.text("curl -H 'Authorization: Bearer sk-live-0123456789abcdef' x"),
            "curl -H 'Authorization: Bearer ***' x"
        );
        assert_eq!(scrubber.text("short stays"), "short stays");
        let json = serde_json::json!({"command": "echo sk-live-0123456789abcdef", "n": 1,
            "sk-live-0123456789abcdef": ["a sk-live-0123456789abcdef"]});
        assert_eq!(
            scrubber.json(&json),
            serde_json::json!({"command": "echo ***", "n": 1, "***": ["a ***"]})
        );
    }

    #[test]
    fn private_key_blocks_are_cut_out_of_any_text() {
        let scrubber = Scrubber::default();
        let text = "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter";
        assert_eq!(scrubber.text(text), "before\n[private key removed]\nafter");
        let open = "x -----BEGIN RSA PRIVATE KEY-----\nMIIE";
        assert_eq!(scrubber.text(open), "x [private key removed]");
        let cert = "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----";
        assert_eq!(scrubber.text(cert), cert);
    }

    #[test]
    fn events_are_scrubbed_in_every_field() {
        let scrubber = Scrubber::new(["ads-token-abcdef123".to_string()]);
        let event = AgentEvent::Error {
            kind: "network".into(),
            message: "401: invalid token ads-token-abcdef123".into(),
            step: 1,
        };
        let AgentEvent::Error { message, .. } = scrubber.event(event) else {
            panic!("kind changed");
        };
        assert_eq!(message, "401: invalid token ***");
    }

    #[test]
    fn secret_looking_variables_are_taken_from_the_environment() {
        let environment: Vec<(String, String)> = vec![
            ("GITHUB_TOKEN".into(), "ghp_abcdefghijklmnop".into()),
            ("PATH".into(), "/usr/local/bin:/usr/bin".into()),
        ];
        let scrubber = Scrubber::with_environment(
            Vec::new(),
            environment.iter().map(|(name, value)| (name, value)),
        );
        assert_eq!(
            scrubber.text("ghp_abcdefghijklmnop /usr/local/bin:/usr/bin"),
            "*** /usr/local/bin:/usr/bin"
        );
    }
}
