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

/// A sink that scrubs every event before passing it on, the streamed text too: the end
/// of a `TextDelta` or `Thinking` fragment that could be the start of a secret (or of a
/// private-key block) is held back and joined to the next fragment, so a key split
/// across two chunks is still masked. What is held is sent, scrubbed, before any other
/// event (a tool call, the end of the run), so nothing is lost or reordered.
pub struct ScrubbingSink {
    inner: Arc<dyn EventSink>,
    scrubber: Scrubber,
    held: std::sync::Mutex<Option<Held>>,
}

/// Streamed text not yet sent.
struct Held {
    thinking: bool,
    step: i32,
    agent_name: String,
    text: String,
}

impl Held {
    fn event(&self, delta: String) -> AgentEvent {
        let (step, agent_name) = (self.step, self.agent_name.clone());
        if self.thinking {
            AgentEvent::Thinking {
                delta,
                step,
                agent_name,
            }
        } else {
            AgentEvent::TextDelta {
                delta,
                step,
                agent_name,
            }
        }
    }
}

impl ScrubbingSink {
    /// Wraps `inner`. Even with no secret configured, private-key blocks are cut.
    pub fn wrap(inner: Arc<dyn EventSink>, scrubber: &Scrubber) -> Arc<dyn EventSink> {
        Arc::new(Self {
            inner,
            scrubber: scrubber.clone(),
            held: std::sync::Mutex::new(None),
        })
    }

    fn flush(&self, held: &mut Option<Held>) {
        if let Some(held) = held.take()
            && !held.text.is_empty()
        {
            let text = self.scrubber.text(&held.text);
            self.inner.emit(held.event(text));
        }
    }
}

impl Scrubber {
    /// How many bytes at the end of `text` must wait for more: the longest end that
    /// begins a secret value, or everything from an unfinished private-key block (or
    /// from what may become its first line).
    fn unsafe_tail(&self, text: &str) -> usize {
        const BEGIN: &str = "-----BEGIN";
        let mut hold = 0;
        for value in self.values.iter().map(String::as_str).chain([BEGIN]) {
            for (index, _) in value.char_indices().skip(1) {
                if index > hold && text.ends_with(&value[..index]) {
                    hold = index;
                }
            }
        }
        if let Some(start) = text.rfind(BEGIN) {
            let block = &text[start..];
            let first_line_done = block.contains('\n');
            let is_key = block
                .lines()
                .next()
                .is_some_and(|line| line.contains("PRIVATE KEY-----"));
            let ended = block
                .find("-----END")
                .is_some_and(|end| block[end..].contains("KEY-----"));
            if !first_line_done || (is_key && !ended) {
                hold = hold.max(text.len() - start);
            }
        }
        hold
    }
}

impl EventSink for ScrubbingSink {
    fn emit(&self, event: AgentEvent) {
        let Ok(mut held) = self.held.lock() else {
            return self.inner.emit(self.scrubber.event(event));
        };
        let (thinking, delta, step, agent_name) = match event {
            AgentEvent::Thinking {
                delta,
                step,
                agent_name,
            } => (true, delta, step, agent_name),
            AgentEvent::TextDelta {
                delta,
                step,
                agent_name,
            } => (false, delta, step, agent_name),
            other => {
                self.flush(&mut held);
                return self.inner.emit(self.scrubber.event(other));
            }
        };
        if held
            .as_ref()
            .is_some_and(|h| h.thinking != thinking || h.step != step || h.agent_name != agent_name)
        {
            self.flush(&mut held);
        }
        let pending = held.get_or_insert_with(|| Held {
            thinking,
            step,
            agent_name,
            text: String::new(),
        });
        pending.text.push_str(&delta);
        let keep = self.scrubber.unsafe_tail(&pending.text);
        let ready = pending.text.len() - keep;
        if ready > 0 {
            let tail = pending.text.split_off(ready);
            let text = self
                .scrubber
                .text(&std::mem::replace(&mut pending.text, tail));
            let event = pending.event(text);
            self.inner.emit(event);
        }
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
    fn a_secret_split_across_streamed_fragments_is_still_masked() {
        let key = "sk-live-0123456789abcdef";
        let scrubber = Scrubber::new([key.to_string()]);
        let collected = crate::CollectingSink::new();
        let sink = ScrubbingSink::wrap(Arc::new(collected.clone()), &scrubber);
        let delta = |text: &str| AgentEvent::TextDelta {
            delta: text.into(),
            step: 1,
            agent_name: "main".into(),
        };
        // The key in 1- to 5-character pieces, then a private key in pieces, then the end.
        let mut text = format!("The key is {key}, and ");
        text.push_str("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNz\n-----END OPENSSH PRIVATE KEY-----\ndone.");
        let chars: Vec<char> = text.chars().collect();
        let mut index = 0;
        let mut size = 1;
        while index < chars.len() {
            let end = (index + size).min(chars.len());
            sink.emit(delta(&chars[index..end].iter().collect::<String>()));
            index = end;
            size = size % 5 + 1;
        }
        sink.emit(AgentEvent::Error {
            kind: "end".into(),
            message: "end".into(),
            step: 1,
        });
        let events = collected.events();
        let streamed: String = events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::TextDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(streamed, "The key is ***, and [private key removed]\ndone.");
        assert!(matches!(events.last(), Some(AgentEvent::Error { .. })));
        for event in &events {
            let wire = serde_json::to_string(event).unwrap();
            assert!(
                !wire.contains("sk-live") && !wire.contains("b3Bl"),
                "{wire}"
            );
        }
    }

    #[test]
    fn private_keys_are_cut_with_no_secret_configured() {
        let collected = crate::CollectingSink::new();
        let sink = ScrubbingSink::wrap(Arc::new(collected.clone()), &Scrubber::default());
        sink.emit(AgentEvent::Error {
            kind: "x".into(),
            message: "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----".into(),
            step: 1,
        });
        let wire = serde_json::to_string(&collected.events()).unwrap();
        assert!(!wire.contains("MIIE"), "{wire}");
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
