//! What the commands share: settings, services, the runtime and the runs in progress.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use asterism_agent::permissions::PermissionBroker;
use asterism_agent::questions::QuestionBroker;
use asterism_agent::{AgentRuntime, Services, Settings, bootstrap};
use tokio_util::sync::CancellationToken;

use crate::error::{AppError, AppErrorKind};

pub struct AppState {
    pub settings: Settings,
    pub services: Arc<Services>,
    /// Why there is no runtime, when the model is not configured.
    runtime: Result<AgentRuntime, String>,
    /// Cancellation of the run in progress, by session id.
    pub runs: Arc<Mutex<HashMap<String, CancellationToken>>>,
    /// Where permission requests wait for the user's answer.
    pub broker: Arc<PermissionBroker>,
    /// Where the agent's questions (ask_user) wait for the user's answer.
    pub questions: Arc<QuestionBroker>,
}

impl AppState {
    pub async fn open(settings: Settings) -> Result<Self, bootstrap::BootstrapError> {
        let services = bootstrap::open_services(&settings).await?;
        let broker = PermissionBroker::new(std::time::Duration::from_secs(300), true);
        let questions = QuestionBroker::new(asterism_agent::questions::DEFAULT_TIMEOUT, true);
        let runtime = bootstrap::runtime(&settings, services.clone())
            .map(|runtime| {
                runtime
                    .with_broker(broker.clone())
                    .with_questions(questions.clone())
            })
            .map_err(|error| error.to_string());
        Ok(Self {
            settings,
            services,
            runtime,
            runs: Arc::default(),
            broker,
            questions,
        })
    }

    pub fn runtime(&self) -> Result<AgentRuntime, AppError> {
        self.runtime
            .clone()
            .map_err(|message| AppError::new(AppErrorKind::Config, message))
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
}
