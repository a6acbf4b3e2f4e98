use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

/// The migrations in `migrations/`, embedded at compile time: (version, description, SQL).
/// A test checks that every file in the folder is listed here.
pub(crate) const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "init", include_str!("../../../migrations/0001_init.sql")),
    (
        2,
        "permissions_and_compaction",
        include_str!("../../../migrations/0002_permissions_and_compaction.sql"),
    ),
    (
        3,
        "paper_texts",
        include_str!("../../../migrations/0003_paper_texts.sql"),
    ),
    (
        4,
        "memories",
        include_str!("../../../migrations/0004_memories.sql"),
    ),
    (
        5,
        "tasks",
        include_str!("../../../migrations/0005_tasks.sql"),
    ),
    (
        6,
        "library",
        include_str!("../../../migrations/0006_library.sql"),
    ),
    (
        7,
        "session_leases",
        include_str!("../../../migrations/0007_session_leases.sql"),
    ),
    (
        8,
        "chunk_pages",
        include_str!("../../../migrations/0008_chunk_pages.sql"),
    ),
    (
        9,
        "paper_metadata_source",
        include_str!("../../../migrations/0009_paper_metadata_source.sql"),
    ),
    (
        10,
        "paper_objects",
        include_str!("../../../migrations/0010_paper_objects.sql"),
    ),
    (
        11,
        "import_pending",
        include_str!("../../../migrations/0011_import_pending.sql"),
    ),
    (
        12,
        "foreign_entries",
        include_str!("../../../migrations/0012_foreign_entries.sql"),
    ),
    (
        13,
        "identify_note",
        include_str!("../../../migrations/0013_identify_note.sql"),
    ),
    (
        14,
        "text_fingerprint",
        include_str!("../../../migrations/0014_text_fingerprint.sql"),
    ),
    (
        15,
        "paper_origins",
        include_str!("../../../migrations/0015_paper_origins.sql"),
    ),
    (
        16,
        "ads_link_cache",
        include_str!("../../../migrations/0016_ads_link_cache.sql"),
    ),
    (
        17,
        "metric_via",
        include_str!("../../../migrations/0017_metric_via.sql"),
    ),
];

pub(crate) fn migrator() -> Migrator {
    Migrator::with_migrations(
        MIGRATIONS
            .iter()
            .map(|(version, description, sql)| {
                Migration::new(
                    *version,
                    (*description).into(),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}
