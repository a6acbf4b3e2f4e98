//! The commands the UI calls. Each is a few lines over the engine.

use std::sync::Arc;

use asterism_agent::{EventSink, RunRequest};
use asterism_protocol::AgentEvent;
use serde::Serialize;
use specta::Type;
use tauri::State;
use tauri::ipc::Channel;
use tokio_util::sync::CancellationToken;

use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

/// What the UI needs to know about the configuration (never secrets).
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub model: String,
    pub model_configured: bool,
    /// Whether the thinking switch means anything for this provider (Qwen/DashScope).
    pub thinking_supported: bool,
    pub data_dir: String,
    /// The sites the UI links papers and targets to.
    pub links: crate::links::LinkBases,
    /// What reads PDFs and embeds passages in this installation.
    pub parts: LocalParts,
    /// ADS's quota as its last answer in this run of the app stated it ("4987 of 5000
    /// requests left, resets …"); `None` before any ADS call.
    pub ads_quota: Option<String>,
    /// Fewer than 10% of the day's ADS requests are left.
    pub ads_quota_low: bool,
}

/// The PDF engine and the embedding model in use, in words, and whether each is the
/// fallback (slow parsing, keyword-only search) the user should be warned about.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalParts {
    pub pdf_engine: String,
    pub pdf_fallback: bool,
    pub embeddings: String,
    pub embeddings_fallback: bool,
}

impl LocalParts {
    pub fn of(settings: &asterism_agent::Settings) -> Self {
        let (engine, pdf_engine) = asterism_library::parse::pdf_engine_report();
        let (embeddings, embeddings_fallback) =
            asterism_agent::bootstrap::embeddings_report(settings);
        Self {
            pdf_fallback: engine != asterism_library::parse::PdfEngine::Pdfium,
            pdf_engine,
            embeddings,
            embeddings_fallback,
        }
    }
}

/// Delivers a run's events to the webview through its channel.
struct ChannelSink(Channel<AgentEvent>);

impl EventSink for ChannelSink {
    fn emit(&self, event: AgentEvent) {
        if let Err(error) = self.0.send(event) {
            tracing::debug!(%error, "the webview stopped listening to a run");
        }
    }
}

/// Starts a run on `question` and returns its session id at once; the run's events
/// stream through `on_event` until `RunFinished`.
#[tauri::command]
#[specta::specta]
pub async fn agent_run(
    state: State<'_, AppState>,
    question: String,
    session_id: Option<String>,
    enable_thinking: bool,
    on_event: Channel<AgentEvent>,
) -> Result<String, AppError> {
    if question.trim().is_empty() {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "The question is empty.",
        ));
    }
    let engine = state.engine();
    let runtime = engine.runtime()?;
    let session_id = match session_id {
        Some(id) => {
            engine.services.store.session(&id).await?;
            id
        }
        None => asterism_agent::new_session_id(),
    };
    let cancel = CancellationToken::new();
    state.start_run(&session_id, cancel.clone())?;
    let enable_thinking = enable_thinking && runtime.model().supports_thinking_toggle();
    let request = RunRequest {
        session_id: Some(session_id.clone()),
        question,
        enable_thinking,
        first_tool: None,
    };
    let runs = state.runs.clone();
    let run_session = session_id.clone();
    tauri::async_runtime::spawn(async move {
        runtime
            .run(request, Arc::new(ChannelSink(on_event)), cancel)
            .await;
        if let Ok(mut runs) = runs.lock() {
            runs.remove(&run_session);
        }
        asterism_agent::heap::release_free_memory();
    });
    Ok(session_id)
}

/// Cancels the session's run, if one is in progress. Returns whether one was.
#[tauri::command]
#[specta::specta]
pub async fn agent_cancel(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<bool, AppError> {
    Ok(state.cancel_run(&session_id))
}

/// The user's answer to a permission request.
#[derive(Debug, Clone, Copy, serde::Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum PermissionDecision {
    AllowOnce,
    AllowSession,
    AllowAlways,
    Deny,
}

/// Answers a `PermissionRequest`. `rule` is the `rule` of one of the request's `grants`,
/// the one "this session" or "always" grants (`None`: the first, the narrowest); it is
/// ignored with the other decisions. Returns false when the request is no longer waiting
/// (answered, timed out, or its run ended).
#[tauri::command]
#[specta::specta]
pub async fn permission_answer(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, crate::dialogs::Dialogs>,
    request_id: String,
    decision: PermissionDecision,
    reason: Option<String>,
    rule: Option<String>,
) -> Result<bool, AppError> {
    use asterism_agent::permissions::PermissionAnswer;
    let lasting = matches!(
        decision,
        PermissionDecision::AllowSession | PermissionDecision::AllowAlways
    );
    if lasting
        && let Some(question) = crate::grants::lasting_grant_question(
            &state.broker,
            &request_id,
            rule.as_deref(),
            matches!(decision, PermissionDecision::AllowAlways),
            dialogs.language(),
        )
        && !dialogs
            .confirm(
                &window,
                crate::dialogs::Phrase::ConfirmGrantTitle,
                question,
                crate::dialogs::Phrase::Allow,
            )
            .await?
    {
        // Not confirmed in the native box: the call is refused, nothing is granted.
        let reason = Some("the user did not confirm the lasting grant".to_string());
        return Ok(state
            .broker
            .answer(&request_id, PermissionAnswer::Deny { reason }));
    }
    let answer = match decision {
        PermissionDecision::AllowOnce => PermissionAnswer::AllowOnce,
        PermissionDecision::AllowSession => PermissionAnswer::AllowSession { rule },
        PermissionDecision::AllowAlways => PermissionAnswer::AllowAlways { rule },
        PermissionDecision::Deny => PermissionAnswer::Deny { reason },
    };
    Ok(state.broker.answer(&request_id, answer))
}

/// Answers an `AskUser` question (an option's text or the user's own words). Returns
/// false when the question is no longer waiting (answered, timed out, run ended).
#[tauri::command]
#[specta::specta]
pub async fn question_answer(
    state: State<'_, AppState>,
    request_id: String,
    answer: String,
) -> Result<bool, AppError> {
    Ok(state.questions.answer(&request_id, &answer))
}

/// The configuration as the UI may see it.
#[tauri::command]
#[specta::specta]
pub async fn app_status(state: State<'_, AppState>) -> Result<AppStatus, AppError> {
    let engine = state.engine();
    let settings = &engine.settings;
    let quota = engine.services.papers.ads.rate_limit();
    Ok(AppStatus {
        model: settings.llm_model.clone(),
        model_configured: settings.model_configured(),
        thinking_supported: asterism_llm::supports_enable_thinking(
            &settings.llm_base_url,
            &settings.llm_model,
        ),
        data_dir: settings.data_dir.display().to_string(),
        links: crate::links::LinkBases::from_settings(settings),
        parts: LocalParts::of(settings),
        ads_quota: quota.as_ref().map(|quota| quota.describe()),
        ads_quota_low: quota.is_some_and(|quota| quota.is_low()),
    })
}
