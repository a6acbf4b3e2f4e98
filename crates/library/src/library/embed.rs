//! Embeddings behind one trait: a local model (fastembed with the int8 MiniLM ONNX and
//! ONNX Runtime loaded at run time) or any OpenAI-compatible `/v1/embeddings` endpoint.
//! The index stores 384-dimensional vectors; an embedder must produce that many.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;

/// The dimension of the stored vectors (`chunk_vectors`).
pub const DIMENSIONS: usize = 384;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EmbedError {
    #[error("the embedding service failed: {0}")]
    Service(String),
    #[error(
        "the embedding model returns {got} dimensions; the index uses {DIMENSIONS}: choose a {DIMENSIONS}-dimensional model (e.g. all-MiniLM-L6-v2) or one that takes `dimensions`"
    )]
    Dimensions { got: usize },
    #[error("the local embedding model could not run: {0}")]
    Local(String),
}

/// Turns texts into unit-length vectors of [`DIMENSIONS`].
#[async_trait]
pub trait Embedder: Send + Sync {
    /// Identifies the model; vectors of different models are never mixed.
    fn name(&self) -> String;
    /// Embeds passages (documents).
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// Embeds a search query. Models trained with a query prefix ("query: ",
    /// "Represent this sentence for searching relevant passages: ") add it here.
    async fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed(&[query.to_string()])
            .await?
            .pop()
            .ok_or_else(|| EmbedError::Service("no vector for the query".into()))
    }
    /// Lets go of what the model holds in memory when unused for `keep` (the local
    /// model's session; it loads again on the next use). True when something was let go.
    fn release_if_idle(&self, _keep: Duration) -> bool {
        false
    }
}

/// Scales a vector to unit length (cosine then equals the dot product).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in vector.iter_mut() {
            *x /= norm;
        }
    }
}

/// Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, LM Studio,
/// DashScope's compatible mode).
#[derive(Clone)]
pub struct RemoteEmbedder {
    http: reqwest::Client,
    base_url: String,
    api_key: Option<String>,
    model: String,
}

/// The key is never printed: `Debug` output ends up in logs and panics.
impl std::fmt::Debug for RemoteEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEmbedder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct EmbeddingResponse {
    data: Vec<EmbeddingItem>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    index: usize,
    embedding: Vec<f32>,
}

impl RemoteEmbedder {
    pub fn new(base_url: &str, api_key: Option<String>, model: &str) -> Result<Self, EmbedError> {
        // The shared builder installs the TLS provider: a remote embedder may be the first
        // HTTP client a process makes.
        let http = crate::http::client(Duration::from_secs(60))
            .map_err(|error| EmbedError::Service(error.to_string()))?;
        Ok(Self {
            http,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            model: model.to_string(),
        })
    }
}

#[async_trait]
impl Embedder for RemoteEmbedder {
    fn name(&self) -> String {
        format!("remote:{}", self.model)
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut request = self
            .http
            .post(format!("{}/embeddings", self.base_url))
            .json(&serde_json::json!({
                "model": self.model,
                "input": texts,
                "dimensions": DIMENSIONS,
                "encoding_format": "float",
            }));
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|error| EmbedError::Service(error.without_url().to_string()))?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            let body: String = body.chars().take(300).collect();
            return Err(EmbedError::Service(format!("HTTP {status}: {body}")));
        }
        let mut answer: EmbeddingResponse = response
            .json()
            .await
            .map_err(|error| EmbedError::Service(format!("unexpected answer: {error}")))?;
        if answer.data.len() != texts.len() {
            return Err(EmbedError::Service(format!(
                "asked for {} embeddings, got {}",
                texts.len(),
                answer.data.len()
            )));
        }
        answer.data.sort_by_key(|item| item.index);
        answer
            .data
            .into_iter()
            .map(|item| {
                if item.embedding.len() != DIMENSIONS {
                    return Err(EmbedError::Dimensions {
                        got: item.embedding.len(),
                    });
                }
                let mut vector = item.embedding;
                normalize(&mut vector);
                Ok(vector)
            })
            .collect()
    }
}

#[cfg(test)]
mod debug_tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_key() {
        let embedder = RemoteEmbedder::new(
            "http://127.0.0.1:9/v1",
            Some("sk-embedding-secret-98765".into()),
            "m",
        )
        .unwrap();
        let shown = format!("{embedder:?}");
        assert!(!shown.contains("sk-embedding-secret-98765"), "{shown}");
        assert!(shown.contains("***"), "{shown}");
    }
}
