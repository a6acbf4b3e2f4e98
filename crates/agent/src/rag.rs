//! Answers from the library: retrieve passages (hybrid search), then let the model
//! answer only from them, citing each claim by passage number; the citations become
//! [paper, page/section] references with the quoted evidence. When the library has
//! nothing relevant, it says so without asking the model.

pub mod rerank;

use asterism_library::library::{Library, SearchHit, SearchMode, quote_for, split_sentences};
use asterism_llm::{ChatMessage, ChatModel, ChatRequest, LlmError, ModelEvent};
use asterism_store::PaperFilter;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

pub use rerank::{RerankReport, RerankSettings, Verdict};

/// Passages given to the model.
pub const PASSAGES: usize = 8;
/// Below this cosine similarity, a passage found only by vectors is not evidence.
pub const MIN_SIMILARITY: f64 = 0.3;
/// What the model answers when the passages do not contain the answer.
const NO_ANSWER: &str = "NO_ANSWER";

/// Why the library could not answer: the asker's mistake, the library, or the model
/// (whose [`LlmError`] says whether the network, the key or a rate limit failed).
#[derive(Debug, thiserror::Error)]
pub enum RagError {
    /// Nothing was asked.
    #[error("the question is empty")]
    EmptyQuestion,
    /// The library's database could not be searched.
    #[error("the library could not be searched: {0}")]
    Library(asterism_store::StoreError),
    /// The model call failed.
    #[error("the model could not answer: {0}")]
    Model(LlmError),
    /// The model's answer stopped before it was complete.
    #[error("the model's answer ended early")]
    EndedEarly,
    /// The model did not answer in time.
    #[error("no answer within {} s", .0.as_secs())]
    Timeout(std::time::Duration),
    /// Stopped by the asker before the answer was written.
    #[error("the answer was cancelled")]
    Cancelled,
}

impl From<LlmError> for RagError {
    fn from(error: LlmError) -> Self {
        match error {
            LlmError::Cancelled => RagError::Cancelled,
            other => RagError::Model(other),
        }
    }
}

impl From<asterism_store::StoreError> for RagError {
    fn from(error: asterism_store::StoreError) -> Self {
        RagError::Library(error)
    }
}

/// One passage the answer may cite.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The number the model cites (`[1]`).
    pub n: usize,
    pub paper_id: String,
    pub title: String,
    /// "Freedman 2019" style.
    pub short_ref: String,
    pub bibcode: Option<String>,
    pub arxiv_id: Option<String>,
    pub doi: Option<String>,
    pub original_name: Option<String>,
    pub page: Option<i64>,
    pub section: Option<String>,
    pub chunk_id: i64,
    /// The passage text.
    pub quote: String,
    /// Whether the answer cites it.
    pub cited: bool,
    /// The model's relevance score (0–10) and summary, when passages were scored.
    pub verdict: Option<Verdict>,
}

/// A sentence of the answer and, for each passage it cites, the words of that passage
/// that support it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    /// The sentence, without its citation numbers.
    pub text: String,
    pub support: Vec<Support>,
}

/// Where a cited passage backs a claim.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Support {
    /// The passage number.
    pub n: usize,
    /// The passage's sentence(s) closest to the claim; `None` when the passage holds
    /// none of the claim's words (the reader should check that citation).
    pub quote: Option<String>,
    /// The page the quote is on.
    pub page: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RagAnswer {
    pub question: String,
    /// The answer with `[n]` citations, or why there is none.
    pub answer: String,
    /// False when the library had nothing that answers the question, or no citation of
    /// the answer named a given passage.
    pub answered: bool,
    /// Citation numbers the model wrote that name no given passage: removed from the
    /// answer, which says so.
    pub removed_citations: Vec<usize>,
    /// Each cited sentence with the quoted words that support it.
    pub claims: Vec<Claim>,
    pub evidence: Vec<Evidence>,
    pub mode: SearchMode,
    /// A note about the search (e.g. keyword-only).
    pub note: Option<String>,
    /// The model call that wrote the answer (none when the library had nothing).
    pub model_call: Option<crate::ModelCall>,
    /// What scoring the passages cost and did (`RAG_RERANK=model`).
    pub rerank: Option<RerankReport>,
    /// The scoring requests, for the metrics.
    #[serde(skip)]
    pub rerank_calls: Vec<crate::ModelCall>,
}

impl RagAnswer {
    /// The answer followed by its sources, as the model and the terminal read it.
    pub fn to_text(&self) -> String {
        let mut text = self.answer.clone();
        if !self.claims.is_empty() {
            text.push_str("\n\nEvidence:");
            for claim in &self.claims {
                text.push_str(&format!("\n- {}", claim.text));
                for support in &claim.support {
                    text.push_str(&format!("\n    [{}] {}", support.n, support_text(support)));
                }
            }
        }
        let cited: Vec<&Evidence> = self.evidence.iter().filter(|e| e.cited).collect();
        if !cited.is_empty() {
            text.push_str("\n\nSources:");
            for evidence in cited {
                text.push_str(&format!("\n[{}] {}", evidence.n, reference(evidence)));
                if let Some(verdict) = &evidence.verdict {
                    text.push_str(&format!("\n    {}/10: {}", verdict.score, verdict.summary));
                }
            }
        }
        if let Some(rerank) = &self.rerank {
            text.push_str(&format!("\n\n({})", rerank_line(rerank)));
        }
        if let Some(note) = &self.note {
            text.push_str(&format!("\n\n(Search: {note}.)"));
        }
        text
    }
}

/// `Scored by qwen-plus: 12 passages (4 from the cache), 3 dropped; 1,234 tokens, 2.1 s`.
fn rerank_line(report: &RerankReport) -> String {
    let mut line = format!(
        "Scored by {}: {} passages ({} from the cache), {} dropped below {}/10; {} tokens, {:.1} s",
        report.model,
        report.scored,
        report.cached,
        report.dropped,
        rerank::CUTOFF,
        report.prompt_tokens + report.completion_tokens,
        report.latency_ms / 1000.0
    );
    if let Some(notice) = &report.notice {
        line.push_str(&format!("; {notice}"));
    }
    line
}

/// `p. 4: “the quoted words”`, or a warning when the passage does not hold the claim.
fn support_text(support: &Support) -> String {
    let Some(quote) = &support.quote else {
        return "(this passage holds none of the claim's words: check it)".into();
    };
    let quote = quote.split_whitespace().collect::<Vec<_>>().join(" ");
    match support.page {
        Some(page) => format!("p. {page}: “{quote}”"),
        None => format!("“{quote}”"),
    }
}

/// Each sentence of the answer that cites passages, with the supporting words of each.
fn claims(answer: &str, hits: &[&SearchHit]) -> Vec<Claim> {
    split_sentences(answer)
        .into_iter()
        .filter_map(|sentence| {
            let mut numbers = cited_numbers(sentence);
            let mut seen = std::collections::HashSet::new();
            numbers.retain(|n| seen.insert(*n));
            if numbers.is_empty() {
                return None;
            }
            let (text, _) = keep_valid_citations(sentence, 0);
            let support = numbers
                .into_iter()
                .filter_map(|n| {
                    let hit = hits.get(n.checked_sub(1)?)?;
                    let quote = quote_for(&hit.chunk, &text);
                    Some(Support {
                        n,
                        page: quote.as_ref().and_then(|q| q.page).or(hit.chunk.page),
                        quote: quote.map(|q| q.text),
                    })
                })
                .collect();
            Some(Claim { text, support })
        })
        .collect()
}

/// `Freedman 2019, "Title", p. 3, §2.1 Data`.
pub fn reference(evidence: &Evidence) -> String {
    let mut text = format!("{}, \"{}\"", evidence.short_ref, evidence.title);
    if let Some(page) = evidence.page {
        text.push_str(&format!(", p. {page}"));
    }
    if let Some(section) = &evidence.section {
        text.push_str(&format!(", §{section}"));
    }
    if let Some(name) = &evidence.original_name {
        text.push_str(&format!(" [{name}]"));
    }
    text
}

fn short_ref(hit: &SearchHit) -> String {
    let author = hit
        .chunk
        .authors
        .first()
        .map(|name| name.split(',').next().unwrap_or(name).trim().to_string())
        .filter(|name| !name.is_empty());
    match (author, hit.chunk.year) {
        (Some(author), Some(year)) if hit.chunk.authors.len() > 1 => {
            format!("{author} et al. {year}")
        }
        (Some(author), Some(year)) => format!("{author} {year}"),
        (Some(author), None) => author,
        (None, Some(year)) => format!("({year})"),
        (None, None) => "unidentified paper".into(),
    }
}

/// A hit is evidence when words of the question are in it, or it is close enough in
/// meaning.
fn relevant(hit: &SearchHit) -> bool {
    hit.bm25_rank.is_some() || hit.similarity.is_some_and(|sim| sim >= MIN_SIMILARITY)
}

/// Numbers cited as `[n]` or `[n, m]` in the answer.
fn cited_numbers(answer: &str) -> Vec<usize> {
    let mut numbers = Vec::new();
    let mut rest = answer;
    while let Some(start) = rest.find('[') {
        rest = &rest[start + 1..];
        let Some(end) = rest.find(']') else { break };
        for part in rest[..end].split([',', ';']) {
            if let Ok(n) = part.trim().parse::<usize>() {
                numbers.push(n);
            }
        }
        rest = &rest[end..];
    }
    numbers
}

/// The answer with every citation number that names no passage (`1..=passages`)
/// removed (a bracket left empty goes too), and the numbers removed. Brackets that are not all numbers
/// (`[Fig. 2]`) are left alone.
fn keep_valid_citations(answer: &str, passages: usize) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(answer.len());
    let mut removed = Vec::new();
    let mut rest = answer;
    while let Some(start) = rest.find('[') {
        let Some(length) = rest[start..].find(']') else {
            break;
        };
        out.push_str(&rest[..start]);
        let inside = &rest[start + 1..start + length];
        let numbers: Option<Vec<usize>> = inside
            .split([',', ';'])
            .map(|part| part.trim().parse::<usize>().ok())
            .collect();
        match numbers {
            Some(numbers) if !numbers.is_empty() => {
                let (valid, invalid): (Vec<usize>, Vec<usize>) = numbers
                    .into_iter()
                    .partition(|n| (1..=passages).contains(n));
                removed.extend(invalid);
                if !valid.is_empty() {
                    let kept: Vec<String> = valid.iter().map(usize::to_string).collect();
                    out.push_str(&format!("[{}]", kept.join(", ")));
                } else if out.ends_with(' ') {
                    out.pop();
                }
            }
            _ => out.push_str(&rest[start..=start + length]),
        }
        rest = &rest[start + length + 1..];
    }
    out.push_str(rest);
    removed.sort_unstable();
    removed.dedup();
    (out, removed)
}

/// The sentence an answer ends with when citations were removed.
fn removal_note(removed: &[usize], passages: usize) -> String {
    let named: Vec<String> = removed.iter().map(|n| format!("#{n}")).collect();
    format!(
        "\n\n(Removed citation{} {}: {} passage{} given, so {} named no source.)",
        if removed.len() == 1 { "" } else { "s" },
        named.join(", "),
        passages,
        if passages == 1 { " was" } else { "s were" },
        if removed.len() == 1 { "it" } else { "they" },
    )
}

/// The relevant passages for the question: the hybrid search's best, or (with
/// `rerank` on) those the model scored at the cutoff or above, best first, with its
/// verdicts, what scoring cost, and its calls.
async fn passages<'a>(
    model: &dyn ChatModel,
    library: &Library,
    rerank: &RerankSettings,
    question: &str,
    hits: Vec<&'a SearchHit>,
    cancel: &CancellationToken,
) -> (
    Vec<(&'a SearchHit, Option<Verdict>)>,
    Option<RerankReport>,
    Vec<crate::ModelCall>,
) {
    if !rerank.enabled || hits.is_empty() {
        let mut plain: Vec<_> = hits.into_iter().map(|hit| (hit, None)).collect();
        plain.truncate(PASSAGES);
        return (plain, None, Vec::new());
    }
    let (verdicts, mut report, calls) =
        rerank::score(model, &library.store, rerank, question, &hits, cancel).await;
    let (mut kept, dropped) = rerank::apply(hits, verdicts);
    report.dropped = dropped;
    kept.truncate(PASSAGES);
    (kept, Some(report), calls)
}

/// Search hits ordered by the model's scores (those below the cutoff dropped), each
/// with its verdict, and what scoring cost: `asterism library search --rerank`.
pub async fn scored_search(
    model: &dyn ChatModel,
    library: &Library,
    rerank: &RerankSettings,
    query: &str,
    filter: &PaperFilter,
    limit: usize,
) -> Result<(Vec<(SearchHit, Option<Verdict>)>, RerankReport), RagError> {
    let results = library
        .search(query, filter, limit.max(rerank.candidates).min(100))
        .await?;
    let hits: Vec<&SearchHit> = results.hits.iter().collect();
    let cancel = CancellationToken::new();
    let (verdicts, mut report, _) =
        rerank::score(model, &library.store, rerank, query, &hits, &cancel).await;
    let (kept, dropped) = rerank::apply(hits, verdicts);
    report.dropped = dropped;
    let mut kept: Vec<(SearchHit, Option<Verdict>)> = kept
        .into_iter()
        .map(|(hit, verdict)| (hit.clone(), verdict))
        .collect();
    kept.truncate(limit);
    Ok((kept, report))
}

/// The numbered evidence for the chosen passages (none cited yet).
fn evidence_of(chosen: &[(&SearchHit, Option<Verdict>)]) -> Vec<Evidence> {
    chosen
        .iter()
        .enumerate()
        .map(|(index, (hit, verdict))| Evidence {
            n: index + 1,
            paper_id: hit.chunk.paper_id.clone(),
            title: hit.chunk.title.clone(),
            short_ref: short_ref(hit),
            bibcode: hit.chunk.bibcode.clone(),
            arxiv_id: hit.chunk.arxiv_id.clone(),
            doi: hit.chunk.doi.clone(),
            original_name: hit.chunk.original_name.clone(),
            page: hit.chunk.page,
            section: hit.chunk.section.clone(),
            chunk_id: hit.chunk.chunk_id,
            quote: hit.chunk.text.clone(),
            cited: false,
            verdict: verdict.clone(),
        })
        .collect()
}

/// Why there is no evidence: nothing found, or nothing the model judged relevant.
fn no_evidence(found: usize) -> String {
    if found == 0 {
        return "The library has nothing relevant to this question. Search the literature \
                (search_papers) or import the papers that cover it."
            .into();
    }
    format!(
        "The model judged none of the {found} passages found in the library relevant to this \
         question (all scored below {}/10). Search the literature (search_papers) or import the \
         papers that cover it.",
        rerank::CUTOFF
    )
}

/// The model's answer from the numbered passages, and the call's cost.
async fn write_answer(
    model: &dyn ChatModel,
    question: &str,
    evidence: &[Evidence],
    cancel: &CancellationToken,
) -> Result<(String, crate::ModelCall), RagError> {
    let mut passages = String::new();
    for item in evidence {
        let summary = item
            .verdict
            .as_ref()
            .map(|v| format!("Summary (relevance {}/10): {}\n", v.score, v.summary))
            .unwrap_or_default();
        passages.push_str(&format!(
            "[{}] {}\n{summary}{}\n\n",
            item.n,
            reference(item),
            item.quote
        ));
    }
    let request = ChatRequest {
        response_schema: None,
        tool_choice: None,
        images: Vec::new(),
        messages: vec![
            ChatMessage::System {
                content: format!(
                    "You answer an astronomer's question using only the numbered passages from their \
                     paper library. Cite every claim with the passage number in brackets, e.g. [2] or \
                     [1, 3]. Quote numbers exactly as the passages give them, with their uncertainties. \
                     Do not use outside knowledge. A passage may come with a summary of what it says about \
                     the question: use it to choose, but take numbers from the passage itself. If the \
                     passages do not contain the answer, reply with exactly {NO_ANSWER}."
                ),
            },
            ChatMessage::User {
                content: format!("Passages:\n\n{passages}Question: {question}"),
            },
        ]
        .into(),
        tools: Vec::new(),
        enable_thinking: false,
        model: None,
    };
    complete(model, request, cancel).await
}

/// One request answered in full: its text (trimmed) and what it cost.
pub(crate) async fn complete(
    model: &dyn ChatModel,
    request: ChatRequest,
    cancel: &CancellationToken,
) -> Result<(String, crate::ModelCall), RagError> {
    let started = std::time::Instant::now();
    let mut stream = model.stream(request, cancel.clone()).await?;
    while let Some(event) = stream.next().await {
        if let ModelEvent::Completed(response) = event? {
            let call = crate::ModelCall {
                model: response.model.clone(),
                usage: response.usage.unwrap_or_default(),
                latency_ms: started.elapsed().as_secs_f64() * 1000.0,
            };
            return Ok((response.text.trim().to_string(), call));
        }
    }
    Err(RagError::EndedEarly)
}

/// Retrieves (with the model's scores when `rerank` is on) and answers.
pub async fn answer(
    model: &dyn ChatModel,
    library: &Library,
    rerank: &RerankSettings,
    question: &str,
    filter: &PaperFilter,
    cancel: &CancellationToken,
) -> Result<RagAnswer, RagError> {
    if question.trim().is_empty() {
        return Err(RagError::EmptyQuestion);
    }
    let wanted = if rerank.enabled {
        rerank.candidates.clamp(PASSAGES, 100)
    } else {
        PASSAGES
    };
    let results = library.search(question, filter, wanted).await?;
    let relevant_hits: Vec<&SearchHit> = results.hits.iter().filter(|hit| relevant(hit)).collect();
    let found = relevant_hits.len();
    let (chosen, rerank_report, rerank_calls) =
        passages(model, library, rerank, question, relevant_hits, cancel).await;
    let hits: Vec<&SearchHit> = chosen.iter().map(|(hit, _)| *hit).collect();
    let mut evidence = evidence_of(&chosen);
    let mut answer = RagAnswer {
        question: question.to_string(),
        answer: String::new(),
        answered: false,
        removed_citations: Vec::new(),
        claims: Vec::new(),
        evidence: Vec::new(),
        mode: results.mode,
        note: results.note.clone(),
        model_call: None,
        rerank: rerank_report,
        rerank_calls,
    };
    if evidence.is_empty() {
        answer.answer = no_evidence(found);
        return Ok(answer);
    }
    let (text, call) = write_answer(model, question, &evidence, cancel).await?;
    answer.model_call = Some(call);
    if text.is_empty() || text.contains(NO_ANSWER) {
        answer.answer = "The passages found in the library do not answer this question.".into();
        answer.evidence = evidence;
        return Ok(answer);
    }
    let (mut text, removed) = keep_valid_citations(&text, evidence.len());
    let cited = cited_numbers(&text);
    if !removed.is_empty() {
        text.push_str(&removal_note(&removed, evidence.len()));
    }
    for item in &mut evidence {
        item.cited = cited.contains(&item.n);
    }
    answer.claims = claims(&text, &hits);
    answer.answer = text;
    answer.answered = !cited.is_empty();
    answer.removed_citations = removed;
    answer.evidence = evidence;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use asterism_llm::ModelEventStream;

    /// A model whose call fails with its error, or (`None`) whose stream ends at once.
    struct Broken(Option<LlmError>);

    #[async_trait::async_trait]
    impl ChatModel for Broken {
        fn model_name(&self) -> &str {
            "broken"
        }
        fn supports_thinking_toggle(&self) -> bool {
            false
        }
        async fn stream(
            &self,
            _request: ChatRequest,
            _cancel: CancellationToken,
        ) -> Result<ModelEventStream, LlmError> {
            match &self.0 {
                Some(error) => Err(error.clone()),
                None => Ok(Box::pin(futures::stream::empty())),
            }
        }
    }

    async fn empty_library(dir: &std::path::Path) -> Library {
        let store = asterism_store::Store::open_in_dir(dir).await.unwrap();
        let nowhere = "http://127.0.0.1:9";
        let wait = std::time::Duration::from_secs(1);
        let papers = asterism_library::papers::PaperSearch {
            ads: asterism_library::sources::ads::AdsClient::new(nowhere, None, wait).unwrap(),
            arxiv: asterism_library::sources::arxiv::ArxivClient::new(nowhere, wait).unwrap(),
            store: store.clone(),
        };
        let chunker = asterism_library::library::Chunker::characters();
        Library::new(store, papers, chunker, dir, None)
    }

    #[tokio::test]
    async fn a_failed_model_call_is_told_from_a_bad_question() {
        let cancel = CancellationToken::new();
        let network = Broken(Some(LlmError::Network("connection refused".into())));
        let error = write_answer(&network, "H0?", &[], &cancel)
            .await
            .unwrap_err();
        assert!(
            matches!(&error, RagError::Model(LlmError::Network(_))),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "the model could not answer: network error talking to the model: connection refused"
        );
        let key = Broken(Some(LlmError::Auth {
            status: 401,
            message: "bad key".into(),
        }));
        let error = write_answer(&key, "H0?", &[], &cancel).await.unwrap_err();
        assert!(matches!(error, RagError::Model(LlmError::Auth { .. })));
        let stopped = Broken(Some(LlmError::Cancelled));
        let error = write_answer(&stopped, "H0?", &[], &cancel)
            .await
            .unwrap_err();
        assert!(matches!(error, RagError::Cancelled), "{error:?}");
        let silent = Broken(None);
        let error = write_answer(&silent, "H0?", &[], &cancel)
            .await
            .unwrap_err();
        assert!(matches!(error, RagError::EndedEarly), "{error:?}");

        let dir = tempfile::tempdir().unwrap();
        let library = empty_library(dir.path()).await;
        let off = RerankSettings::off();
        let filter = PaperFilter::default();
        let error = answer(&network, &library, &off, "  ", &filter, &cancel)
            .await
            .unwrap_err();
        assert!(matches!(error, RagError::EmptyQuestion), "{error:?}");
    }

    #[test]
    fn citations_are_read_from_the_answer() {
        assert_eq!(
            cited_numbers("H0 = 69.8 ± 1.9 [1]; Cepheids give 73 [2, 3]. See [x]."),
            [1, 2, 3]
        );
        assert!(cited_numbers("no citations").is_empty());
    }

    #[test]
    fn citations_naming_no_given_passage_are_removed_and_said() {
        let (text, removed) = keep_valid_citations(
            "H0 = 69.8 ± 1.9 [1]; Cepheids give 73 [2, 9]; masers agree [7]. See [Fig. 2].",
            2,
        );
        assert_eq!(removed, [7, 9]);
        assert_eq!(
            text,
            "H0 = 69.8 ± 1.9 [1]; Cepheids give 73 [2]; masers agree. See [Fig. 2]."
        );
        assert_eq!(
            removal_note(&removed, 2),
            "\n\n(Removed citations #7, #9: 2 passages were given, so they named no source.)"
        );
        let (text, removed) = keep_valid_citations("Only this [3].", 2);
        assert_eq!(removed, [3]);
        assert!(cited_numbers(&text).is_empty(), "{text}");
        let (same, none) = keep_valid_citations("Fine [1, 2].", 2);
        assert_eq!((same.as_str(), none.len()), ("Fine [1, 2].", 0));
    }
}
