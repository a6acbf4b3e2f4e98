//! What the commands share: the engine (settings, services, runtime), the runs in
//! progress and the brokers where permission requests and questions wait.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use asterism_agent::permissions::PermissionBroker;
use asterism_agent::questions::QuestionBroker;
use asterism_agent::{AgentRuntime, Services, Settings, TimelineCache, bootstrap};
use tokio_util::sync::CancellationToken;

use crate::error::{AppError, AppErrorKind};

/// The configuration and what was built from it; replaced as a whole when the
/// settings change.
pub struct Engine {
    pub settings: Settings,
    pub services: Arc<Services>,
    /// Why there is no runtime, when the model is not configured.
    runtime: Result<AgentRuntime, String>,
}

impl Engine {
    fn build(
        settings: Settings,
        services: Arc<Services>,
        broker: &Arc<PermissionBroker>,
        questions: &Arc<QuestionBroker>,
    ) -> Self {
        let runtime = bootstrap::runtime(&settings, services.clone())
            .map(|runtime| {
                runtime
                    .with_broker(broker.clone())
                    .with_questions(questions.clone())
            })
            .map_err(|error| error.to_string());
        Self {
            settings,
            services,
            runtime,
        }
    }

    pub fn runtime(&self) -> Result<AgentRuntime, AppError> {
        self.runtime
            .clone()
            .map_err(|message| AppError::new(AppErrorKind::Config, message))
    }
}

pub struct AppState {
    /// Set once the database and services are open (in the background, so the window's
    /// web process starts meanwhile); [`AppState::engine`] waits for it.
    engine: OnceLock<RwLock<Arc<Engine>>>,
    /// Cancellation of the run in progress, by session id.
    pub runs: Arc<Mutex<HashMap<String, CancellationToken>>>,
    /// Where permission requests wait for the user's answer.
    pub broker: Arc<PermissionBroker>,
    /// Where the agent's questions (ask_user) wait for the user's answer.
    pub questions: Arc<QuestionBroker>,
    /// The last session opened, folded into its timeline.
    pub timelines: TimelineCache,
    /// The library import in progress (one at a time), for its Cancel.
    import: Mutex<Option<CancellationToken>>,
    /// Where the background embedding begun at start is (`None`: none runs).
    pub background_embedding: Arc<Mutex<Option<crate::library::EmbeddingProgress>>>,
}

/// The import in progress; the slot empties when it is dropped.
pub struct ImportRun<'a> {
    state: &'a AppState,
    pub token: CancellationToken,
}

impl Drop for ImportRun<'_> {
    fn drop(&mut self) {
        if let Ok(mut slot) = self.state.import.lock() {
            *slot = None;
        }
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self {
            engine: OnceLock::new(),
            runs: Arc::default(),
            broker: PermissionBroker::new(std::time::Duration::from_secs(300), true),
            questions: QuestionBroker::new(asterism_agent::questions::DEFAULT_TIMEOUT, true),
            timelines: TimelineCache::default(),
            import: Mutex::default(),
            background_embedding: Arc::default(),
        }
    }
}

impl AppState {
    /// Opens the database and builds the services and the runtime (once).
    pub async fn open(&self, settings: Settings) -> Result<(), bootstrap::BootstrapError> {
        let services = bootstrap::open_services(&settings).await?;
        let engine = Engine::build(settings, services, &self.broker, &self.questions);
        // Opened once: a second call (there is none) would keep the first engine.
        let _ = self.engine.set(RwLock::new(Arc::new(engine)));
        Ok(())
    }

    /// The slot of the engine, once open. A command that arrives before the database is
    /// open waits here (the page's first requests come hundreds of milliseconds after).
    fn slot(&self) -> &RwLock<Arc<Engine>> {
        self.engine.wait()
    }

    /// The current engine (a run keeps the one it started with).
    pub fn engine(&self) -> Arc<Engine> {
        match self.slot().read() {
            Ok(engine) => engine.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Reads the settings again and rebuilds the services and the runtime over the same
    /// database. Refused while a question is being answered.
    pub fn reload(&self) -> Result<Arc<Engine>, AppError> {
        self.ensure_idle()?;
        let settings = Settings::load()
            .map_err(|error| AppError::new(AppErrorKind::Config, error.to_string()))?;
        let store = self.engine().services.store.clone();
        let services = bootstrap::build_services(&settings, store)
            .map_err(|error| AppError::new(AppErrorKind::Config, error.to_string()))?;
        let engine = Arc::new(Engine::build(
            settings,
            services,
            &self.broker,
            &self.questions,
        ));
        match self.slot().write() {
            Ok(mut slot) => *slot = engine.clone(),
            Err(poisoned) => *poisoned.into_inner() = engine.clone(),
        }
        Ok(engine)
    }

    /// Registers an import; refused while another is running.
    pub fn start_import(&self) -> Result<ImportRun<'_>, AppError> {
        let mut slot = self
            .import
            .lock()
            .map_err(|_| AppError::new(AppErrorKind::Internal, "import lock poisoned"))?;
        if slot.is_some() {
            return Err(AppError::new(
                AppErrorKind::Busy,
                "An import is already running: wait for it or cancel it.",
            ));
        }
        let token = CancellationToken::new();
        *slot = Some(token.clone());
        Ok(ImportRun { state: self, token })
    }

    /// Cancels the import in progress; false when there is none.
    pub fn cancel_import(&self) -> bool {
        self.import
            .lock()
            .ok()
            .and_then(|slot| slot.as_ref().map(CancellationToken::cancel))
            .is_some()
    }

    /// Refuses while a question is being answered (settings cannot change under a run).
    pub fn ensure_idle(&self) -> Result<(), AppError> {
        if self
            .runs
            .lock()
            .map(|runs| !runs.is_empty())
            .unwrap_or(true)
        {
            return Err(AppError::new(
                AppErrorKind::Busy,
                "Finish or cancel the running question before changing settings.",
            ));
        }
        Ok(())
    }

    /// Registers a run; a session runs one question at a time.
    pub fn start_run(&self, session_id: &str, cancel: CancellationToken) -> Result<(), AppError> {
        let mut runs = self
            .runs
            .lock()
            .map_err(|_| AppError::new(AppErrorKind::Internal, "run registry poisoned"))?;
        if runs.contains_key(session_id) {
            return Err(AppError::new(
                AppErrorKind::Busy,
                "This session is already answering a question.",
            ));
        }
        runs.insert(session_id.to_string(), cancel);
        Ok(())
    }

    pub fn cancel_run(&self, session_id: &str) -> bool {
        self.runs
            .lock()
            .ok()
            .and_then(|runs| runs.get(session_id).cloned())
            .map(|cancel| cancel.cancel())
            .is_some()
    }

    pub fn is_running(&self, session_id: &str) -> bool {
        self.runs
            .lock()
            .map(|runs| runs.contains_key(session_id))
            .unwrap_or(false)
    }
}
