//! Every variable Asterism reads, with its default and what it is for (`.env.example`
//! lists the same).

/// Every variable Asterism reads, with its default and what it is for.
pub const VARIABLES: &[(&str, &str, &str)] = &[
    (
        "ASTERISM_DATA_DIR",
        "",
        "Where the database, papers and tool outputs live.",
    ),
    (
        "LLM_BASE_URL",
        "https://api.openai.com/v1",
        "OpenAI-compatible endpoint, including /v1.",
    ),
    (
        "LLM_API_KEY",
        "",
        "API key of the endpoint (sent as a Bearer token).",
    ),
    (
        "LLM_MODEL",
        "",
        "Model name; empty means the agent is not configured.",
    ),
    (
        "FALLBACK_MODEL",
        "",
        "Model tried when the primary fails after retries.",
    ),
    (
        "ENABLE_THINKING",
        "false",
        "Ask Qwen/DashScope models to think (sent only to them).",
    ),
    (
        "LLM_IDLE_TIMEOUT_S",
        "90",
        "Seconds to wait for the model's response to start or for its next chunk before the call fails (and is retried).",
    ),
    (
        "MAX_TOOL_ARGUMENT_KB",
        "256",
        "A tool call whose arguments are longer than this many KiB is refused before the tool runs.",
    ),
    (
        "ASTERISM_MAX_STEPS",
        "25",
        "Model calls per run before it stops.",
    ),
    ("ADS_API_TOKEN", "", "NASA ADS API token."),
    (
        "ADS_API_URL",
        "https://api.adsabs.harvard.edu/v1",
        "NASA ADS API base URL.",
    ),
    (
        "ARXIV_API_URL",
        "https://export.arxiv.org/api",
        "arXiv API base URL.",
    ),
    (
        "ARXIV_URL",
        "https://arxiv.org",
        "arXiv site (PDF and HTML; the app's arXiv links).",
    ),
    (
        "ADS_UI_URL",
        "https://ui.adsabs.harvard.edu",
        "NASA ADS web site the app's paper links open (…/abs/BIBCODE/abstract).",
    ),
    (
        "DOI_URL",
        "https://doi.org",
        "DOI resolver the app's publisher links open (…/DOI).",
    ),
    (
        "SIMBAD_URL",
        "https://simbad.cds.unistra.fr/simbad",
        "SIMBAD web site a target card links to (…/sim-id?Ident=NAME).",
    ),
    (
        "SESAME_URL",
        "https://cds.unistra.fr/cgi-bin/nph-sesame",
        "CDS Sesame name resolver.",
    ),
    (
        "CROSSREF_URL",
        "https://api.crossref.org",
        "Crossref REST API base URL (identifies imported PDFs by DOI, title and author).",
    ),
    (
        "OLLAMA_URL",
        "http://127.0.0.1:11434/v1",
        "Where a local Ollama server is looked for when no model is configured (first-run setup, doctor).",
    ),
    (
        "TARGET_CACHE_DAYS",
        "30",
        "Days a Sesame answer is reused before asking again (0: always ask).",
    ),
    (
        "KEEP_ALIVE_S",
        "300",
        "Seconds the embedding model and the vector index stay in memory after their last use, as Ollama's keep-alive (0: until the app closes).",
    ),
    (
        "EMBEDDINGS",
        "auto",
        "Embeddings for library search: local (the installed model, see LOCAL_EMBEDDING_MODEL), remote (EMBEDDING_BASE_URL), none (keywords only), auto (local if installed, else remote if configured, else none).",
    ),
    (
        "LOCAL_EMBEDDING_MODEL",
        "bge-small",
        "The local embedding model: bge-small (bge-small-en-v1.5 int8, the default) or minilm (all-MiniLM-L6-v2 int8). Changing it re-embeds the library once.",
    ),
    (
        "EMBEDDING_BASE_URL",
        "",
        "OpenAI-compatible base URL for remote embeddings (…/v1).",
    ),
    (
        "EMBEDDING_API_KEY",
        "",
        "API key of the embedding endpoint.",
    ),
    (
        "EMBEDDING_MODEL",
        "text-embedding-3-small",
        "Remote embedding model (must give 384 dimensions, or accept `dimensions`).",
    ),
    (
        "LLM_VISION",
        "auto",
        "Whether the model takes images: on, off, or auto (by its name: Qwen-VL, GPT-4o, Gemini, LLaVA …). When it does, the agent may look at a paper's figure with view_figure, asking you first.",
    ),
    (
        "MEMORY_EXTRACTION",
        "false",
        "After each answered `asterism ask`, let a subagent save what is worth remembering.",
    ),
    (
        "ASTERISM_WORKSPACE",
        "",
        "The folder the agent's file tools and shell may use (never / or the home folder itself). The CLI's --workspace beats it; the CLI defaults to its working directory.",
    ),
    (
        "SHELL_NETWORK",
        "false",
        "Let run_bash open network connections (off: its sandbox refuses every socket).",
    ),
    (
        "NEWS_CATEGORIES",
        "",
        "arXiv categories `asterism news` lists, separated by commas (astro-ph: all six astro-ph.* categories); empty: those of your library's papers, else astro-ph.",
    ),
    (
        "NEWS_AUTHORS",
        "",
        "Authors whose new papers `asterism news` ranks up, separated by ';' (\"Foreman-Mackey; Bouma, L.\").",
    ),
    (
        "NEWS_LIMIT",
        "25",
        "How many new papers `asterism news` shows.",
    ),
    (
        "RAG_RERANK",
        "model",
        "model: the model scores the library's best passages for the question (0-10, with a summary) and the answer is written from those it keeps; off: the search's order as it is.",
    ),
    (
        "RAG_CANDIDATES",
        "20",
        "How many of the search's best passages the model scores (8 to 100).",
    ),
    (
        "SUMMARY_MODEL",
        "",
        "A cheaper model of the same endpoint for scoring passages (empty: the configured model).",
    ),
    (
        "SHELL_READ",
        "",
        "Folders outside the workspace run_bash may read, separated by ':' (e.g. ~/miniconda3); the rest of the home folder and the data folder stay unreadable to it.",
    ),
];
