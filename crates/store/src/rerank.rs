//! The model's verdicts on passages for a question (see migration 0020).

use std::collections::HashMap;

use sqlx::Row;

use crate::{Result, Store};

impl Store {
    /// The kept verdicts `(score, summary)` of `model` for these passages and question.
    pub async fn rerank_verdicts(
        &self,
        question: &str,
        model: &str,
        chunk_ids: &[i64],
    ) -> Result<HashMap<i64, (i64, String)>> {
        let mut found = HashMap::new();
        for id in chunk_ids {
            let row = sqlx::query(
                "SELECT score, summary FROM rerank_cache WHERE question = ? AND model = ? AND chunk_id = ?",
            )
            .bind(question)
            .bind(model)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
            if let Some(row) = row {
                found.insert(*id, (row.try_get("score")?, row.try_get("summary")?));
            }
        }
        Ok(found)
    }

    /// Keeps verdicts `(chunk id, score, summary)` of `model` for `question`.
    pub async fn keep_rerank_verdicts(
        &self,
        question: &str,
        model: &str,
        verdicts: &[(i64, i64, String)],
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        for (id, score, summary) in verdicts {
            sqlx::query(
                "INSERT INTO rerank_cache (question, chunk_id, model, score, summary, created_at)
                 SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)
                 ON CONFLICT(question, model, chunk_id) DO UPDATE SET
                   score = excluded.score, summary = excluded.summary, created_at = excluded.created_at",
            )
            .bind(question)
            .bind(id)
            .bind(model)
            .bind(score)
            .bind(summary)
            .bind(crate::now_rfc3339())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{NewChunk, Store};

    #[tokio::test]
    async fn verdicts_are_kept_per_question_model_and_passage_and_go_with_the_passage() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_dir(dir.path()).await.unwrap();
        let paper = asterism_protocol::PaperRecord {
            title: "A paper".into(),
            bibcode: Some("2020ApJ...900....1A".into()),
            ..Default::default()
        };
        let paper_id = store.upsert_paper(&paper).await.unwrap();
        let chunk = NewChunk {
            page: Some(1),
            page_end: Some(1),
            page_breaks: Vec::new(),
            section: None,
            text: "H0 = 69.8".into(),
            keywords_only: false,
        };
        store.replace_chunks(&paper_id, &[chunk]).await.unwrap();
        let id = store.chunk_id_high_water().await.unwrap();
        store
            .keep_rerank_verdicts(
                "q",
                "m",
                &[(id, 8, "It answers.".into()), (id + 99, 1, "gone".into())],
            )
            .await
            .unwrap();
        let kept = store
            .rerank_verdicts("q", "m", &[id, id + 99])
            .await
            .unwrap();
        assert_eq!(kept.len(), 1, "a passage that does not exist is not kept");
        assert_eq!(kept[&id], (8, "It answers.".to_string()));
        assert!(
            store
                .rerank_verdicts("q", "other", &[id])
                .await
                .unwrap()
                .is_empty()
        );
        store.replace_chunks(&paper_id, &[]).await.unwrap();
        assert!(
            store
                .rerank_verdicts("q", "m", &[id])
                .await
                .unwrap()
                .is_empty()
        );
    }
}
