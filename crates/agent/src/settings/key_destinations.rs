//! Which saves would send a stored key to a new host. `settings_save` takes endpoint
//! addresses from the webview; a script injected into the page (say through a model's
//! answer) could point `LLM_BASE_URL` at its own server and receive the key in the
//! `Authorization` header of the next request. So a save that moves an endpoint which
//! gets a key to another origin (scheme, host and port), or types a new key for an
//! endpoint, is confirmed in a native message box first, unless the endpoint is on this
//! machine (loopback) or at a provider preset of the Settings page.

use crate::Settings;
use crate::settings::VARIABLES;
use url::Url;

/// The origins of the Settings page's provider presets (ui/src/panels/SettingsPanel.tsx
/// `PRESETS`) and of the defaults: moving back to one of them needs no question. (Ollama's
/// preset is on localhost, which never needs one.)
const MODEL_PRESETS: &[&str] = &[
    "https://api.openai.com",
    "https://dashscope.aliyuncs.com",
    "https://api.deepseek.com",
];
const ADS_PRESETS: &[&str] = &["https://api.adsabs.harvard.edu"];

/// An endpoint setting and the key every request to it carries.
struct KeyedEndpoint {
    endpoint: &'static str,
    key: &'static str,
    presets: &'static [&'static str],
}

const KEYED_ENDPOINTS: &[KeyedEndpoint] = &[
    KeyedEndpoint {
        endpoint: "LLM_BASE_URL",
        key: "LLM_API_KEY",
        presets: MODEL_PRESETS,
    },
    KeyedEndpoint {
        endpoint: "EMBEDDING_BASE_URL",
        key: "EMBEDDING_API_KEY",
        presets: MODEL_PRESETS,
    },
    KeyedEndpoint {
        endpoint: "ADS_API_URL",
        key: "ADS_API_TOKEN",
        presets: ADS_PRESETS,
    },
];

/// A key that a save would send to an address it did not go to before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDestination {
    /// The key's setting, e.g. `LLM_API_KEY`.
    pub key: &'static str,
    /// The endpoint's setting, e.g. `LLM_BASE_URL`.
    pub endpoint: &'static str,
    /// The new address, as saved.
    pub url: String,
}

fn current_value(settings: &Settings, name: &str) -> String {
    match name {
        "LLM_BASE_URL" => settings.llm_base_url.clone(),
        "EMBEDDING_BASE_URL" => settings.embedding_base_url.clone(),
        "ADS_API_URL" => settings.ads_api_url.clone(),
        _ => String::new(),
    }
}

fn current_key(settings: &Settings, name: &str) -> bool {
    match name {
        "LLM_API_KEY" => settings.llm_api_key.is_some(),
        "EMBEDDING_API_KEY" => settings.embedding_api_key.is_some(),
        "ADS_API_TOKEN" => settings.ads_api_token.is_some(),
        _ => false,
    }
}

/// Whether a value comes from outside the app (the environment or a `.env` file), so a
/// save here does not change it.
fn set_outside_the_app(settings: &Settings, name: &str) -> bool {
    settings
        .sources
        .get(name)
        .is_some_and(|source| source == "environment" || source.ends_with(".env"))
}

/// Where a key would go: scheme, host (as the URL parser normalises it: lower case,
/// IPv4 in dotted form, IPv6 in brackets) and port.
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

fn origin(url: &str) -> Option<Origin> {
    let url = Url::parse(url.trim()).ok()?;
    Some(Origin {
        scheme: url.scheme().to_string(),
        host: url.host_str()?.to_string(),
        port: url.port_or_known_default(),
    })
}

/// Whether a key may go to `url` without asking: this machine, or a preset. An address
/// that does not parse is asked about.
fn trusted(url: &str, presets: &[&str]) -> bool {
    let Some(origin) = origin(url) else {
        return false;
    };
    asterism_llm::is_loopback_host(&origin.host)
        || presets
            .iter()
            .any(|preset| self::origin(preset).as_ref() == Some(&origin))
}

/// The keys this save would send somewhere new, for each endpoint that gets a key and
/// whose address after the save is neither this machine nor a preset:
///
/// - the save moves the endpoint to another origin, and a key will be set after it
///   (kept, or typed in the same save);
/// - or the save types a new key for it: else a page could first point a key-less
///   endpoint at its server, silently, and wait for the key to be typed.
///
/// `values` and `secrets` are `(name, value)` as `settings_save` receives them; an
/// empty value means the default (an empty secret, no key).
pub fn needing_confirmation(
    settings: &Settings,
    values: &[(String, String)],
    secrets: &[(String, String)],
) -> Vec<KeyDestination> {
    let mut destinations = Vec::new();
    for keyed in KEYED_ENDPOINTS {
        let current = current_value(settings, keyed.endpoint);
        let saved = values
            .iter()
            .rev()
            .find(|(name, _)| name == keyed.endpoint)
            .map(|(_, saved)| saved.trim());
        let url = match saved {
            Some("") => VARIABLES
                .iter()
                .find(|(name, _, _)| *name == keyed.endpoint)
                .map(|(_, default, _)| default.to_string())
                .unwrap_or_default(),
            Some(saved) => saved.to_string(),
            None => current.clone(),
        };
        if url.trim().is_empty() {
            // No endpoint at all: nothing is sent.
            continue;
        }
        let typed = secrets.iter().rev().find(|(name, _)| name == keyed.key);
        let key_typed = typed.is_some_and(|(_, key)| !key.trim().is_empty());
        let keyed_after = match typed {
            Some(_) if key_typed => true,
            // Removed from the app's store; one set outside the app stays in effect.
            Some(_) => current_key(settings, keyed.key) && set_outside_the_app(settings, keyed.key),
            None => current_key(settings, keyed.key),
        };
        let moved = saved.is_some() && (origin(&url).is_none() || origin(&url) != origin(&current));
        if keyed_after && (moved || key_typed) && !trusted(&url, keyed.presets) {
            destinations.push(KeyDestination {
                key: keyed.key,
                endpoint: keyed.endpoint,
                url,
            });
        }
    }
    destinations
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        let dir = std::env::temp_dir().join(format!(
            "asterism-key-destinations-{}-none",
            std::process::id()
        ));
        let mut environment: HashMap<String, String> = pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        environment.insert("ASTERISM_DATA_DIR".into(), dir.display().to_string());
        environment.insert("ASTERISM_KEYRING".into(), "off".into());
        Settings::load_from(environment, None).unwrap()
    }

    fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    fn asked(
        settings: &Settings,
        values: &[(&str, &str)],
        secrets: &[(&str, &str)],
    ) -> Vec<String> {
        needing_confirmation(settings, &pairs(values), &pairs(secrets))
            .into_iter()
            .map(|destination| format!("{} -> {}", destination.key, destination.url))
            .collect::<Vec<_>>()
    }

    const KEYED: &[(&str, &str)] = &[
        ("LLM_BASE_URL", "https://api.deepseek.com/v1"),
        ("LLM_API_KEY", "sk-live-0123456789abcdef"),
        ("EMBEDDING_BASE_URL", "https://api.openai.com/v1"),
        ("EMBEDDING_API_KEY", "sk-embed-0123456789abcdef"),
        ("ADS_API_TOKEN", "ads-token-0123456789"),
    ];

    #[test]
    fn a_key_moving_to_another_host_is_asked_about() {
        let settings = settings(KEYED);
        assert_eq!(
            asked(
                &settings,
                &[("LLM_BASE_URL", "https://evil.example/v1")],
                &[]
            ),
            ["LLM_API_KEY -> https://evil.example/v1"]
        );
        assert_eq!(
            asked(
                &settings,
                &[
                    ("EMBEDDING_BASE_URL", "https://embed.evil.example/v1"),
                    ("ADS_API_URL", "https://ads.evil.example/v1"),
                ],
                &[]
            ),
            [
                "EMBEDDING_API_KEY -> https://embed.evil.example/v1",
                "ADS_API_TOKEN -> https://ads.evil.example/v1"
            ]
        );
        // Another scheme or port of the same host is another origin; so are look-alikes.
        for url in [
            "http://api.deepseek.com/v1",
            "https://api.deepseek.com:8443/v1",
            "https://api.deepseek.com.evil.example/v1",
            "https://api.deepseek.com@evil.example/v1",
            "not a url",
        ] {
            assert_eq!(
                asked(&settings, &[("LLM_BASE_URL", url)], &[]).len(),
                1,
                "{url}"
            );
        }
        // A new key for an endpoint elsewhere is asked about, even when the address
        // stays: it may have been planted while no key was set.
        let custom = self::settings(&[("LLM_BASE_URL", "https://proxy.example/v1")]);
        assert_eq!(
            asked(&custom, &[], &[("LLM_API_KEY", "sk-new-0123456789abcdef")]),
            ["LLM_API_KEY -> https://proxy.example/v1"]
        );
        assert_eq!(
            asked(&custom, &[], &[("ADS_API_TOKEN", "ads-new-0123456789")]),
            Vec::<String>::new(),
            "ADS at its default"
        );
        // A key typed in the same save goes there as well.
        let keyless = self::settings(&[]);
        assert_eq!(
            asked(
                &keyless,
                &[("LLM_BASE_URL", "https://evil.example/v1")],
                &[("LLM_API_KEY", "sk-new-0123456789abcdef")]
            ),
            ["LLM_API_KEY -> https://evil.example/v1"]
        );
    }

    #[test]
    fn the_same_host_loopback_presets_and_no_key_need_no_question() {
        let settings = settings(KEYED);
        for url in [
            "https://api.deepseek.com/beta",
            "https://API.DeepSeek.com/v1/",
            "http://127.0.0.1:8080/v1",
            "http://127.9.9.9/v1",
            "http://localhost:11434/v1",
            "http://[::1]:9000/v1",
            "https://api.openai.com/v1",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            // Empty: back to the default (OpenAI).
            "",
        ] {
            assert_eq!(
                asked(&settings, &[("LLM_BASE_URL", url)], &[]),
                Vec::<String>::new(),
                "{url}"
            );
        }
        assert!(
            asked(
                &settings,
                &[("ADS_API_URL", "https://api.adsabs.harvard.edu/v1")],
                &[]
            )
            .is_empty()
        );
        // Addresses without a key, and settings that carry none.
        let keyless = self::settings(&[]);
        assert!(
            asked(
                &keyless,
                &[("LLM_BASE_URL", "https://evil.example/v1")],
                &[]
            )
            .is_empty()
        );
        for name in ["ARXIV_API_URL", "ARXIV_URL", "SESAME_URL", "LLM_MODEL"] {
            assert!(
                asked(&settings, &[(name, "https://evil.example/")], &[]).is_empty(),
                "{name}"
            );
        }
        // A key removed in the same save goes nowhere, unless it is also set outside
        // the app (that one stays in effect).
        let mut saved_in_app = self::settings(&[("LLM_API_KEY", "sk-live-0123456789abcdef")]);
        let move_and_remove = |settings: &Settings| {
            asked(
                settings,
                &[("LLM_BASE_URL", "https://evil.example/v1")],
                &[("LLM_API_KEY", "")],
            )
        };
        assert_eq!(move_and_remove(&saved_in_app).len(), 1);
        saved_in_app
            .sources
            .insert("LLM_API_KEY", "the system keyring".into());
        assert!(move_and_remove(&saved_in_app).is_empty());
    }
}
