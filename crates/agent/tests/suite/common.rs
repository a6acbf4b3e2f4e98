use std::sync::Arc;
use std::time::Duration;

use asterism_agent::{
    AgentConfig, AgentRuntime, CollectingSink, RunOutcome, RunRequest, Services, ToolRegistry,
};
use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_library::{SesameClient, TargetService};
use asterism_llm::{ChatModel, OpenAiClient, OpenAiConfig, ResilientModel, RetryPolicy};
use asterism_protocol::AgentEvent;
use asterism_store::Store;
use asterism_testkit::{FixtureServer, MockLlm, Script, ScriptedToolCall, Turn, all_routes};
use tokio_util::sync::CancellationToken;

/// What a harness is set up with beyond the script.
#[derive(Default)]
pub struct Setup {
    /// The workspace of the file tools (`None`: no workspace).
    pub workspace: Option<std::path::PathBuf>,
    /// Configured secret values (scrubbed from everything).
    pub secrets: Vec<String>,
    /// The API key sent to the scripted model (default `test-key`).
    pub model_key: Option<String>,
    /// Whether rag_search has the model score passages (default off).
    pub rerank: Option<asterism_agent::rag::RerankSettings>,
    /// Whether the model takes images (`view_figure` is offered).
    pub vision: bool,
}

/// A runtime wired to a scripted model and the Sesame fixture server, on a temp dir.
pub struct Harness {
    pub _dir: tempfile::TempDir,
    pub mock: MockLlm,
    pub sesame: FixtureServer,
    pub runtime: AgentRuntime,
    pub store: Store,
}

pub fn ask_target_script(name: &str, answer: &str) -> Vec<Turn> {
    vec![
        Turn {
            thinking: Some(format!(
                "The user asks where {name} is. I should resolve the name with Sesame."
            )),
            tool_calls: vec![ScriptedToolCall {
                id: Some("call_target_1".into()),
                name: "query_target".into(),
                arguments: serde_json::json!({"name": name}),
            }],
            ..Turn::default()
        },
        Turn {
            thinking: Some("Sesame answered; summarise.".into()),
            text: Some(answer.into()),
            ..Turn::default()
        },
    ]
}

impl Harness {
    pub async fn start(turns: Vec<Turn>) -> Self {
        Self::start_with(
            turns,
            AgentConfig::default(),
            Duration::from_secs(5),
            ToolRegistry::new(),
        )
        .await
    }

    pub async fn start_with(
        turns: Vec<Turn>,
        config: AgentConfig,
        sesame_timeout: Duration,
        registry: ToolRegistry,
    ) -> Self {
        Self::start_with_registry(turns, config, sesame_timeout, |_| registry).await
    }

    /// Like [`Self::start_with`], with a registry made from the services (background
    /// queue, team).
    pub async fn start_with_registry(
        turns: Vec<Turn>,
        config: AgentConfig,
        sesame_timeout: Duration,
        make_registry: impl FnOnce(&Services) -> ToolRegistry,
    ) -> Self {
        let setup = Setup {
            workspace: Some(env!("CARGO_MANIFEST_DIR").into()),
            ..Setup::default()
        };
        Self::start_full(turns, config, sesame_timeout, make_registry, setup).await
    }

    /// A harness with its own workspace, configured secrets and model key.
    pub async fn start_full(
        turns: Vec<Turn>,
        config: AgentConfig,
        sesame_timeout: Duration,
        make_registry: impl FnOnce(&Services) -> ToolRegistry,
        setup: Setup,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mock = MockLlm::start(Script {
            turns,
            chunk_chars: 7,
            ..Script::default()
        })
        .await
        .unwrap();
        let sesame = FixtureServer::start(all_routes()).await.unwrap();
        let store = Store::open_in_dir(dir.path()).await.unwrap();
        let targets = TargetService::new(
            SesameClient::new(sesame.url(), sesame_timeout).unwrap(),
            store.clone(),
            Duration::from_secs(3600),
        );
        let papers = PaperSearch {
            ads: AdsClient::new(
                format!("{}/ads", sesame.url()),
                Some("test-token".into()),
                Duration::from_secs(5),
            )
            .unwrap(),
            arxiv: ArxivClient::new(
                format!("{}/arxiv-api", sesame.url()),
                Duration::from_secs(5),
            )
            .unwrap()
            .with_interval(Duration::ZERO),
            store: store.clone(),
        };
        let downloader = asterism_library::download::Downloader::new(
            &format!("{}/arxiv", sesame.url()),
            papers.ads.clone(),
            store.clone(),
            dir.path(),
        )
        .unwrap();
        let embedder: Arc<dyn asterism_library::library::Embedder> = Arc::new(
            asterism_library::library::RemoteEmbedder::new(
                &mock.base_url(),
                None,
                "mock-embedding",
            )
            .unwrap(),
        );
        let library = asterism_library::library::Library::new(
            store.clone(),
            papers.clone(),
            asterism_library::library::Chunker::characters(),
            dir.path(),
            Some(embedder),
        );
        let services = Arc::new(Services {
            store: store.clone(),
            targets,
            papers,
            library,
            downloader,
            parser: asterism_library::parse::Parser::new(
                &format!("{}/arxiv", sesame.url()),
                store.clone(),
            )
            .unwrap(),
            data_dir: dir.path().to_path_buf(),
            file_state: Default::default(),
            background: Default::default(),
            team: asterism_agent::team::TeamManager::new(dir.path()),
            workspace: setup.workspace,
            scrubber: asterism_agent::security::Scrubber::new(setup.secrets.clone()),
            shell_network: false,
            vision: setup.vision,
            shell_read: Vec::new(),
            mcp: Default::default(),
            rerank: setup
                .rerank
                .unwrap_or_else(asterism_agent::rag::RerankSettings::off),
        });
        let key = setup.model_key.unwrap_or_else(|| "test-key".into());
        let mut model_config = OpenAiConfig::new(mock.base_url(), Some(key), "scripted-model");
        model_config.idle_timeout = Duration::from_secs(2);
        let client: Arc<dyn ChatModel> = Arc::new(OpenAiClient::new(model_config).unwrap());
        let fast = RetryPolicy {
            max_retries: 2,
            min_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(50),
            max_retry_after: Duration::from_secs(5),
        };
        let model = Arc::new(ResilientModel::new(
            client,
            Some("fallback-model".into()),
            fast,
        ));
        let registry = make_registry(&services);
        let runtime = AgentRuntime::new(services, model, registry, config);
        Self {
            _dir: dir,
            mock,
            sesame,
            runtime,
            store,
        }
    }

    pub async fn ask(
        &self,
        session_id: Option<&str>,
        question: &str,
    ) -> (RunOutcome, Vec<AgentEvent>) {
        self.ask_with_cancel(session_id, question, CancellationToken::new())
            .await
    }

    pub async fn ask_with_cancel(
        &self,
        session_id: Option<&str>,
        question: &str,
        cancel: CancellationToken,
    ) -> (RunOutcome, Vec<AgentEvent>) {
        let sink = CollectingSink::new();
        let request = RunRequest {
            session_id: session_id.map(str::to_string),
            question: question.into(),
            enable_thinking: true,
            first_tool: None,
        };
        let outcome = self
            .runtime
            .run(request, Arc::new(sink.clone()), cancel)
            .await;
        (outcome, sink.events())
    }
}

/// The data directory of the harness (for hooks.json and tool-results).
impl Harness {
    pub fn data_dir(&self) -> &std::path::Path {
        self._dir.path()
    }
}

pub fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = events.iter().map(AgentEvent::kind).collect();
    kinds.dedup();
    kinds
}

pub fn tool_results(events: &[AgentEvent]) -> Vec<(String, bool, serde_json::Value)> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolResult {
                output,
                is_error,
                metadata,
                ..
            } => Some((output.clone(), *is_error, metadata.clone())),
            _ => None,
        })
        .collect()
}

/// The (kind, message) of every Notice event.
pub fn notices(events: &[AgentEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Notice { kind, message, .. } => Some((kind.clone(), message.clone())),
            _ => None,
        })
        .collect()
}
