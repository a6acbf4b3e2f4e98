//! What is new and what is linked: today's arXiv submissions ranked for the library,
//! a paper's citations and references from ADS, and adding a paper from either.

use asterism_library::news::{NewsList, NewsRequest};
use asterism_library::papers::graph::{Link, Neighbours};
use serde::Serialize;
use specta::Type;
use tauri::State;

use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

/// Today's submissions of the configured categories, ranked for the library (the day's
/// list is fetched once; `refresh` asks arXiv again).
#[tauri::command]
#[specta::specta]
pub async fn news_today(state: State<'_, AppState>, refresh: bool) -> Result<NewsList, AppError> {
    let engine = state.engine();
    let settings = &engine.settings;
    let mut request = NewsRequest::today(
        settings.news_categories.clone(),
        settings.news_authors.clone(),
        settings.news_limit,
    );
    request.refresh = refresh;
    engine
        .services
        .library
        .news(&request)
        .await
        .map_err(|message| AppError::new(AppErrorKind::Service, message))
}

/// The papers citing (`citations`) or cited by (`references`) a paper, from ADS, each
/// with its library status.
#[tauri::command]
#[specta::specta]
pub async fn paper_links(
    state: State<'_, AppState>,
    id: String,
    link: Link,
    limit: u32,
) -> Result<Neighbours, AppError> {
    state
        .engine()
        .services
        .papers
        .neighbours(&id, link, limit.clamp(1, 200))
        .await
        .map_err(|message| AppError::new(AppErrorKind::Service, message))
}

/// A paper added to the library.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AddedPaper {
    pub paper_id: String,
    pub title: String,
    /// It was in the library already.
    pub already_present: bool,
}

/// Adds a paper (bibcode, arXiv id or DOI) to the library: metadata and PDF.
#[tauri::command]
#[specta::specta]
pub async fn paper_add(state: State<'_, AppState>, id: String) -> Result<AddedPaper, AppError> {
    let (paper, done) = state
        .engine()
        .services
        .add_paper(&id, &|_, _| {})
        .await
        .map_err(|message| AppError::new(AppErrorKind::Service, message))?;
    Ok(AddedPaper {
        paper_id: done.paper_id,
        title: paper.title,
        already_present: done.already_present,
    })
}
