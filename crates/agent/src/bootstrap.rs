//! Wiring: settings → store, services and the runtime. Shared by the CLI and the app.

use std::sync::Arc;
use std::time::Duration;

use asterism_library::download::Downloader;
use asterism_library::papers::PaperSearch;
use asterism_library::parse::Parser;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_library::sources::crossref::CrossrefClient;
use asterism_library::{SesameClient, TargetService};
use asterism_llm::{ChatModel, OpenAiClient, OpenAiConfig, ResilientModel, RetryPolicy};
use asterism_store::Store;

use asterism_library::library::local::LocalModel;
use asterism_library::library::{Chunker, Embedder, Library, RemoteEmbedder};

use crate::background::BackgroundQueue;
use crate::settings::{EmbeddingMode, Settings};
use crate::team::TeamManager;
use crate::{AgentConfig, AgentRuntime, Services, ToolRegistry};

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum BootstrapError {
    #[error(transparent)]
    Store(#[from] asterism_store::StoreError),
    #[error("cannot set up Sesame: {0}")]
    Sesame(#[from] asterism_library::SesameError),
    #[error("cannot set up the model client: {0}")]
    Model(#[from] asterism_llm::LlmError),
    #[error(
        "no model is configured: set LLM_MODEL (and LLM_BASE_URL, LLM_API_KEY) in the environment, in ./.env or in {0}/.env"
    )]
    ModelNotConfigured(String),
    #[error("cannot set up a literature service: {0}")]
    Service(String),
}

/// How long ADS and arXiv get to answer.
pub const SERVICE_TIMEOUT: Duration = Duration::from_secs(30);

/// Opens the database and builds the services.
pub async fn open_services(settings: &Settings) -> Result<Arc<Services>, BootstrapError> {
    let store = Store::open_in_dir(&settings.data_dir).await?;
    let interrupted = BackgroundQueue::recover(&store).await?;
    if interrupted > 0 {
        tracing::info!(
            interrupted,
            "background tasks of a previous run marked interrupted"
        );
    }
    build_services(settings, store)
}

/// The services of the settings over an open database (the app rebuilds them this way
/// when its settings change, without touching the database or its background tasks).
pub fn build_services(settings: &Settings, store: Store) -> Result<Arc<Services>, BootstrapError> {
    let sesame = SesameClient::new(settings.sesame_url.clone(), settings.sesame_timeout)?;
    let targets = TargetService::new(sesame, store.clone(), settings.target_cache_max_age);
    let ads = AdsClient::new(
        settings.ads_api_url.clone(),
        settings.ads_api_token.clone(),
        SERVICE_TIMEOUT,
    )
    .map_err(|error| BootstrapError::Service(error.to_string()))?;
    let arxiv = ArxivClient::new(settings.arxiv_api_url.clone(), SERVICE_TIMEOUT)
        .map_err(|error| BootstrapError::Service(error.to_string()))?;
    let downloader = Downloader::new(
        &settings.arxiv_url,
        ads.clone(),
        store.clone(),
        &settings.data_dir,
    )
    .map_err(|error| BootstrapError::Service(error.to_string()))?;
    let papers = PaperSearch {
        ads,
        arxiv,
        store: store.clone(),
    };
    let (embedder, chunker) = embeddings(settings)?;
    let parser = Parser::new(&settings.arxiv_url, store.clone())
        .map_err(|error| BootstrapError::Service(error.to_string()))?
        .with_chunker(chunker.clone());
    let crossref = CrossrefClient::new(settings.crossref_url.clone(), SERVICE_TIMEOUT)
        .map_err(|error| BootstrapError::Service(error.to_string()))?;
    let library = Library::new(
        store.clone(),
        papers.clone(),
        chunker,
        &settings.data_dir,
        embedder,
    )
    .with_crossref(Some(crossref))
    .with_targets(Some(targets.clone()));
    Ok(Arc::new(Services {
        store,
        targets,
        papers,
        downloader,
        parser,
        library,
        data_dir: settings.data_dir.clone(),
        file_state: Default::default(),
        background: BackgroundQueue::new(),
        team: TeamManager::new(&settings.data_dir),
        workspace: settings.workspace.clone(),
        scrubber: settings.scrubber(),
        shell_network: settings.shell_network,
        vision: settings.vision,
        shell_read: settings.shell_read.clone(),
        mcp: crate::mcp::McpHub::load(&settings.data_dir),
        rerank: settings.rerank.clone(),
    }))
}

/// The embedder of the settings (`EMBEDDINGS`) and the chunker that fits it: the local
/// model's own tokenizer when it is installed, else characters.
pub fn embeddings(
    settings: &Settings,
) -> Result<(Option<Arc<dyn Embedder>>, Chunker), BootstrapError> {
    let local = LocalModel::find_preferring(&settings.local_embedding_model);
    let chunker = local
        .as_ref()
        .and_then(|model| model.chunker().ok())
        .unwrap_or_else(Chunker::characters);
    let remote = || -> Result<Arc<dyn Embedder>, BootstrapError> {
        Ok(Arc::new(
            RemoteEmbedder::new(
                &settings.embedding_base_url,
                settings.embedding_api_key.clone(),
                &settings.embedding_model,
            )
            .map_err(|error| BootstrapError::Service(error.to_string()))?,
        ))
    };
    let has_remote = !settings.embedding_base_url.trim().is_empty();
    let embedder: Option<Arc<dyn Embedder>> = match settings.embeddings {
        EmbeddingMode::None => None,
        EmbeddingMode::Remote if has_remote => Some(remote()?),
        EmbeddingMode::Remote => {
            return Err(BootstrapError::Service(
                "EMBEDDINGS=remote needs EMBEDDING_BASE_URL".into(),
            ));
        }
        EmbeddingMode::Local => {
            let model = local.ok_or_else(|| {
                BootstrapError::Service(
                    "EMBEDDINGS=local but no local embedding model is installed (scripts/install-deps.sh installs it)"
                        .into(),
                )
            })?;
            Some(Arc::new(model.load().map_err(|error| {
                BootstrapError::Service(error.to_string())
            })?))
        }
        EmbeddingMode::Auto => match local.map(|model| model.load()) {
            Some(Ok(model)) => Some(Arc::new(model)),
            Some(Err(error)) => {
                tracing::warn!(%error, "the local embedding model could not be loaded");
                if has_remote { Some(remote()?) } else { None }
            }
            None if has_remote => Some(remote()?),
            None => None,
        },
    };
    Ok((embedder, chunker))
}

/// Which embedding model search uses, in words, and whether that is a fallback the user
/// should hear about (a missing local model when one was expected).
pub fn embeddings_report(settings: &Settings) -> (String, bool) {
    let local = LocalModel::find_preferring(&settings.local_embedding_model);
    match (embeddings(settings), settings.embeddings) {
        (Err(error), _) => (format!("unusable: {error}"), true),
        (Ok((None, _)), EmbeddingMode::None) => (
            "none (EMBEDDINGS=none): search uses keywords only".into(),
            false,
        ),
        (Ok((None, _)), _) => (
            "none: no local model was found and no EMBEDDING_BASE_URL is set, so search \
             uses keywords only (scripts/install-deps.sh installs the local model)"
                .into(),
            true,
        ),
        (Ok((Some(embedder), _)), _) => match local {
            Some(model) if embedder.name().starts_with("local:") => {
                let dir = model.dir.canonicalize().unwrap_or(model.dir.clone());
                let chosen = &settings.local_embedding_model;
                if model.spec.name.to_lowercase().contains(chosen.as_str()) {
                    (format!("{} ({})", embedder.name(), dir.display()), false)
                } else {
                    let text = format!(
                        "{} ({}): LOCAL_EMBEDDING_MODEL={chosen} is not installed",
                        embedder.name(),
                        dir.display()
                    );
                    (text, true)
                }
            }
            _ => (embedder.name(), false),
        },
    }
}

/// The model client of the settings: retries with backoff, then `FALLBACK_MODEL`.
pub fn model_client(settings: &Settings) -> Result<Arc<dyn ChatModel>, BootstrapError> {
    if !settings.model_configured() {
        return Err(BootstrapError::ModelNotConfigured(
            settings.data_dir.display().to_string(),
        ));
    }
    let mut config = OpenAiConfig::new(
        settings.llm_base_url.clone(),
        settings.llm_api_key.clone(),
        settings.llm_model.clone(),
    );
    config.idle_timeout = settings.llm_idle_timeout;
    let client: Arc<dyn ChatModel> = Arc::new(OpenAiClient::new(config)?);
    Ok(Arc::new(ResilientModel::new(
        client,
        settings.fallback_model.clone(),
        RetryPolicy::default(),
    )))
}

/// The agent runtime of the settings, over already-open services.
pub fn runtime(
    settings: &Settings,
    services: Arc<Services>,
) -> Result<AgentRuntime, BootstrapError> {
    let model = model_client(settings)?;
    let config = AgentConfig {
        max_steps: settings.max_steps,
        max_argument_bytes: settings.max_argument_bytes,
        ..AgentConfig::default()
    };
    let registry = ToolRegistry::new_with_team(services.background.clone(), services.team.clone());
    Ok(AgentRuntime::new(services, model, registry, config))
}
