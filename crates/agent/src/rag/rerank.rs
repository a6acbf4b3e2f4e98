//! Relevance scored by the model (PaperQA2's "RCS"): the configured model (or
//! `SUMMARY_MODEL`) reads the best passages of the hybrid search in batches and gives each
//! a score from 0 to 10 for the question with a one- or two-sentence summary of what it
//! says about it. Passages below [`CUTOFF`] are dropped, the rest ordered by score; the
//! answer is then written from the summaries. Verdicts are kept per (question, passage,
//! model), so asking again costs nothing. A model that answers garbage, nothing or too
//! slowly leaves the hybrid order in place, with a notice.

use std::collections::HashMap;
use std::time::Duration;

use asterism_library::library::SearchHit;
use asterism_llm::{
    ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, ModelEvent, ResponseSchema,
};
use asterism_store::Store;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::RagError;
use crate::ModelCall;

/// Scores below this are not evidence.
pub const CUTOFF: u8 = 3;
/// Passages per scoring request.
const BATCH: usize = 8;
/// Scoring requests at once.
const PARALLEL: usize = 2;
/// How long one scoring request may take.
const TIMEOUT: Duration = Duration::from_secs(90);

/// Whether and how passages are scored (`RAG_RERANK`, `RAG_CANDIDATES`, `SUMMARY_MODEL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RerankSettings {
    pub enabled: bool,
    /// Passages of the hybrid search the model reads.
    pub candidates: usize,
    /// A cheaper model for the scoring; `None`: the configured one.
    pub model: Option<String>,
}

impl RerankSettings {
    /// The hybrid order as it is.
    pub fn off() -> Self {
        Self {
            enabled: false,
            candidates: 20,
            model: None,
        }
    }
}

/// What the model said of one passage.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// 0 (nothing to do with the question) to 10 (answers it).
    pub score: u8,
    pub summary: String,
    /// From the cache: it cost nothing this time.
    pub cached: bool,
}

/// What the scoring cost and did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RerankReport {
    pub model: String,
    /// Passages the model was asked about this time.
    pub asked: usize,
    /// Passages whose verdict came from the cache.
    pub cached: usize,
    /// Passages with a verdict.
    pub scored: usize,
    /// Passages dropped for a score below the cutoff.
    pub dropped: usize,
    /// Scoring requests made.
    pub calls: usize,
    pub prompt_tokens: i32,
    pub completion_tokens: i32,
    /// Time the scoring added, in milliseconds.
    pub latency_ms: f64,
    /// Why the hybrid order was kept, or what went wrong with some passages.
    pub notice: Option<String>,
}

/// The question as the cache keys it: lower case, single spaces.
fn question_key(question: &str) -> String {
    question
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A verdict for each hit (in their order), what it cost, and the model calls made.
pub async fn score(
    model: &dyn ChatModel,
    store: &Store,
    settings: &RerankSettings,
    question: &str,
    hits: &[&SearchHit],
    cancel: &CancellationToken,
) -> (Vec<Option<Verdict>>, RerankReport, Vec<ModelCall>) {
    let started = std::time::Instant::now();
    let model_name = settings
        .model
        .clone()
        .unwrap_or_else(|| model.model_name().to_string());
    let key = question_key(question);
    let ids: Vec<i64> = hits.iter().map(|hit| hit.chunk.chunk_id).collect();
    let kept = store
        .rerank_verdicts(&key, &model_name, &ids)
        .await
        .unwrap_or_default();
    let mut verdicts: Vec<Option<Verdict>> = ids
        .iter()
        .map(|id| {
            kept.get(id).map(|(score, summary)| Verdict {
                score: (*score).clamp(0, 10) as u8,
                summary: summary.clone(),
                cached: true,
            })
        })
        .collect();
    let missing: Vec<usize> = (0..hits.len()).filter(|&i| verdicts[i].is_none()).collect();
    let mut report = RerankReport {
        model: model_name.clone(),
        asked: missing.len(),
        cached: hits.len() - missing.len(),
        ..RerankReport::default()
    };
    let batches: Vec<Vec<usize>> = missing.chunks(BATCH).map(<[usize]>::to_vec).collect();
    let answers: Vec<(Vec<usize>, Result<Scored, RagError>)> = futures::stream::iter(batches)
        .map(|batch| {
            let passages: Vec<&SearchHit> = batch.iter().map(|&i| hits[i]).collect();
            let request = scoring_request(question, &passages, settings.model.clone());
            async move { (batch, ask(model, request, cancel).await) }
        })
        .buffered(PARALLEL)
        .collect()
        .await;
    let mut failures = Vec::new();
    let mut calls = Vec::new();
    let mut fresh = Vec::new();
    for (batch, answer) in answers {
        report.calls += 1;
        let (found, call) = match answer {
            Ok(answer) => answer,
            Err(error) => {
                failures.push(error);
                continue;
            }
        };
        report.prompt_tokens += call.usage.prompt_tokens;
        report.completion_tokens += call.usage.completion_tokens;
        calls.push(call);
        for (position, &index) in batch.iter().enumerate() {
            if let Some((score, summary)) = found.get(&(position + 1)) {
                fresh.push((ids[index], i64::from(*score), summary.clone()));
                verdicts[index] = Some(Verdict {
                    score: *score,
                    summary: summary.clone(),
                    cached: false,
                });
            }
        }
    }
    if let Err(error) = store.keep_rerank_verdicts(&key, &model_name, &fresh).await {
        tracing::warn!(%error, "could not keep the model's verdicts");
    }
    report.scored = verdicts.iter().filter(|v| v.is_some()).count();
    report.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    report.notice = notice(&report, hits.len(), &failures);
    (verdicts, report, calls)
}

/// What to tell the user when not every passage was scored.
fn notice(report: &RerankReport, hits: usize, failures: &[RagError]) -> Option<String> {
    if report.scored == 0 && hits > 0 {
        let why = match failures.first() {
            // The notice already says it is the model's.
            Some(RagError::Model(error)) => error.to_string(),
            Some(other) => other.to_string(),
            None => "its answer held no scores".into(),
        };
        return Some(format!(
            "the model's relevance scores could not be had ({why}); passages are in the search's order"
        ));
    }
    (report.scored < hits).then(|| {
        format!(
            "{} of {hits} passages got no score from the model and follow the scored ones",
            hits - report.scored
        )
    })
}

/// The hits ordered by the model's score (unscored ones after, in the search's order),
/// those scored below the cutoff dropped; how many were dropped. With no verdict at all,
/// the hits as they were.
pub fn apply(
    hits: Vec<&SearchHit>,
    verdicts: Vec<Option<Verdict>>,
) -> (Vec<(&SearchHit, Option<Verdict>)>, usize) {
    let mut paired: Vec<(&SearchHit, Option<Verdict>)> = hits.into_iter().zip(verdicts).collect();
    if paired.iter().all(|(_, verdict)| verdict.is_none()) {
        return (paired, 0);
    }
    let before = paired.len();
    paired.retain(|(_, verdict)| verdict.as_ref().is_none_or(|v| v.score >= CUTOFF));
    let dropped = before - paired.len();
    // Stable: equal scores keep the search's order.
    paired.sort_by_key(|(_, verdict)| std::cmp::Reverse(verdict.as_ref().map(|v| v.score)));
    (paired, dropped)
}

fn scoring_request(question: &str, passages: &[&SearchHit], model: Option<String>) -> ChatRequest {
    let mut listed = String::new();
    for (index, hit) in passages.iter().enumerate() {
        let title = &hit.chunk.title;
        listed.push_str(&format!("[{}] {title}\n{}\n\n", index + 1, hit.chunk.text));
    }
    ChatRequest {
        response_schema: Some(verdicts_schema(passages.len())),
        tool_choice: None,
        images: Vec::new(),
        messages: vec![
            ChatMessage::System {
                content: "You judge passages from an astronomer's paper library for their question. \
                    For every numbered passage give a score from 0 (nothing to do with the question) \
                    to 10 (answers it directly), and a summary of one or two sentences of what the \
                    passage says about the question, keeping its numbers and uncertainties exactly \
                    (\"Not relevant.\" when it says nothing). Answer with JSON only, no other text: \
                    {\"passages\": [{\"n\": 1, \"score\": 7, \"summary\": \"...\"}]}"
                    .into(),
            },
            ChatMessage::User {
                content: format!("Question: {question}\n\nPassages:\n\n{listed}"),
            },
        ]
        .into(),
        tools: Vec::new(),
        enable_thinking: false,
        model,
    }
}

/// The answer the scoring prompt asks for, as a JSON Schema for endpoints with
/// structured output (the prompt says the same for those without): one verdict for each
/// of the `count` passages, so a constrained small model stops after the last one.
fn verdicts_schema(count: usize) -> ResponseSchema {
    ResponseSchema {
        name: "passage_verdicts".into(),
        schema: serde_json::json!({
            "type": "object",
            "properties": {
                "passages": {
                    "type": "array",
                    "minItems": count,
                    "maxItems": count,
                    "items": {
                        "type": "object",
                        "properties": {
                            "n": {"type": "integer", "minimum": 1, "maximum": count},
                            "score": {"type": "integer", "minimum": 0, "maximum": 10},
                            "summary": {"type": "string"},
                        },
                        "required": ["n", "score", "summary"],
                        "additionalProperties": false,
                    },
                },
            },
            "required": ["passages"],
            "additionalProperties": false,
        }),
    }
}

/// One scoring request's verdicts `(score, summary)` by passage number, and its cost.
type Scored = (HashMap<usize, (u8, String)>, ModelCall);

/// One scoring request: the verdicts by passage number, and the call's cost.
async fn ask(
    model: &dyn ChatModel,
    request: ChatRequest,
    cancel: &CancellationToken,
) -> Result<Scored, RagError> {
    let started = std::time::Instant::now();
    let call = async {
        match answer(model, request.clone(), cancel).await {
            // An endpoint without structured output refuses `response_format` (DeepSeek,
            // older servers: HTTP 400 or 422); the prompt alone asks for the same JSON.
            Err(LlmError::Http {
                status: 400 | 422, ..
            }) if request.response_schema.is_some() => {
                let plain = ChatRequest {
                    response_schema: None,
                    ..request
                };
                answer(model, plain, cancel).await
            }
            other => other,
        }
    };
    let response = tokio::time::timeout(TIMEOUT, call)
        .await
        .map_err(|_| RagError::Timeout(TIMEOUT))??;
    let call = ModelCall {
        model: response.model.clone(),
        usage: response.usage.unwrap_or_default(),
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    Ok((parse_verdicts(&response.text), call))
}

/// The model's whole answer to `request`.
async fn answer(
    model: &dyn ChatModel,
    request: ChatRequest,
    cancel: &CancellationToken,
) -> Result<ChatResponse, LlmError> {
    let mut stream = model.stream(request, cancel.clone()).await?;
    while let Some(event) = stream.next().await {
        if let ModelEvent::Completed(response) = event? {
            return Ok(response);
        }
    }
    Err(LlmError::BadResponse("the answer ended early".into()))
}

/// The verdicts in a model's answer: JSON (`{"passages": [...]}`, `{"scores": [...]}` or a
/// bare list, inside a code fence or not, numbers as numbers or strings), else lines such
/// as `[2] 7/10 - summary`. Scores are rounded and held to 0–10; anything else is ignored.
pub fn parse_verdicts(text: &str) -> HashMap<usize, (u8, String)> {
    let from_json = json_items(text)
        .into_iter()
        .filter_map(|item| {
            let n = number(item.get("n").or_else(|| item.get("passage"))?)?;
            let score = number(item.get("score").or_else(|| item.get("relevance"))?)?;
            let summary = item
                .get("summary")
                .or_else(|| item.get("reason"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .trim()
                .to_string();
            verdict(n, score, summary)
        })
        .collect::<HashMap<_, _>>();
    if !from_json.is_empty() {
        return from_json;
    }
    let line = regex::Regex::new(
        r"(?m)^\W*\[?(\d{1,3})\b\]?\s*[:.)\-–]?\s*(?:score\s*[:=]?\s*)?(\d{1,2}(?:\.\d+)?)\s*(?:/\s*10)?\s*[-–:,.]?\s*(.*)$",
    );
    let Ok(line) = line else {
        return HashMap::new();
    };
    line.captures_iter(text)
        .filter_map(|caps| {
            let n = caps[1].parse::<f64>().ok()?;
            let score = caps[2].parse::<f64>().ok()?;
            verdict(n, score, caps[3].trim().to_string())
        })
        .collect()
}

fn verdict(n: f64, score: f64, summary: String) -> Option<(usize, (u8, String))> {
    (n >= 1.0 && n.fract() == 0.0 && score.is_finite() && (0.0..=10.0).contains(&score))
        .then(|| (n as usize, (score.round() as u8, summary)))
}

fn number(value: &serde_json::Value) -> Option<f64> {
    value
        .as_f64()
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
}

/// The objects of the JSON in `text` (after any prose or code fence).
fn json_items(text: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let start = text.find(['{', '[']);
    let end = text.rfind(['}', ']']);
    let (Some(start), Some(end)) = (start, end) else {
        return Vec::new();
    };
    let Some(slice) = text.get(start..=end) else {
        return Vec::new();
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(slice) else {
        return Vec::new();
    };
    let list = match &value {
        serde_json::Value::Array(list) => Some(list),
        serde_json::Value::Object(map) => ["passages", "scores", "results"]
            .iter()
            .find_map(|key| map.get(*key).and_then(serde_json::Value::as_array)),
        _ => None,
    };
    list.into_iter()
        .flatten()
        .filter_map(|item| item.as_object().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_read_from_json_in_every_usual_wrapping() {
        let fenced = "Here you go:\n```json\n{\"passages\": [{\"n\": 1, \"score\": 8, \"summary\": \"H0 = 69.8 ± 1.9.\"}, {\"n\": \"2\", \"score\": \"2.6\", \"summary\": \"Not relevant.\"}]}\n```";
        let found = parse_verdicts(fenced);
        assert_eq!(found[&1], (8, "H0 = 69.8 ± 1.9.".to_string()));
        assert_eq!(found[&2], (3, "Not relevant.".to_string()));
        let bare = r#"[{"passage": 3, "relevance": 10, "reason": "It answers."}]"#;
        assert_eq!(parse_verdicts(bare)[&3].0, 10);
    }

    #[test]
    fn lines_are_read_when_there_is_no_json_and_nonsense_gives_nothing() {
        let found = parse_verdicts("[1] 7/10 - gives the TRGB zero point\n2: 0 - unrelated\n");
        assert_eq!(found[&1], (7, "gives the TRGB zero point".to_string()));
        assert_eq!(found[&2].0, 0);
        assert!(parse_verdicts("I cannot help with that.").is_empty());
        assert!(parse_verdicts(r#"{"passages": [{"n": 1, "score": 42}]}"#).is_empty());
        assert!(parse_verdicts(r#"{"passages": [{"n": 0, "score": 5}]}"#).is_empty());
        assert!(parse_verdicts("{ broken json").is_empty());
    }
}
