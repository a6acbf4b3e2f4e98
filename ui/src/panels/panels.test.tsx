import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { AppError, AuditEntry, LibraryPaper, MetricEntry, SettingsView, TimelineItem } from "../bindings";
import { ResearchAgentPanel } from "../components/ResearchAgentPanel";
import { mockBackend, ev } from "../test/backend";
import { redact } from "./AuditLogViewer";

const session = { id: "s1", title: "TRGB distances", model: "qwen3-max", summary: null, createdAt: "2026-12-01T10:00:00Z", updatedAt: "2026-12-01T10:05:00Z", messageCount: 4 };

const metric = (step: number, kind: string, name: string, prompt: number, completion: number, ms: number, via: string | null = null): MetricEntry => ({
  runId: "r1", step, agentName: "main", kind, name, via, promptTokens: prompt, completionTokens: completion, durationMs: ms, createdAt: "2026-12-01T10:00:00Z",
});

const audit = (id: number, tool: string, decision: string, outcome: string): AuditEntry => ({
  id, sessionId: "s1", agentName: "main", toolCallId: `c${id}`, tool, arguments: { name: "NGC 4258", api_key: "sk-live-123456789" },
  decision, outcome, durationMs: 20, error: outcome === "error" ? "Sesame timed out" : null, createdAt: "2026-12-01T10:00:00Z",
});

const paper: LibraryPaper = {
  id: "p1", title: "The Carnegie-Chicago Hubble Program", authors: ["Freedman, W. L.", "Madore, B. F."], year: 2019,
  bibcode: "2019ApJ...882...34F", arxivId: "1907.05922", doi: null, status: "parsed", identifyNote: null,
  files: [{ path: "/data/papers/p1.pdf", originalName: "freedman2019.pdf", sha256: "ab", sizeBytes: 2_400_000, source: "import" }],
  collections: ["TRGB"], tags: [], chunks: 87, addedAt: "2026-12-01T10:00:00Z",
};

const settings: SettingsView = {
  modelConfigured: true,
  dataDir: "/home/astro/.local/share/asterism",
  workspace: null,
  workspaceProblem: null,
  fields: [
    { name: "LLM_BASE_URL", value: "https://api.deepseek.com/v1", secret: false, source: "settings.json", defaultValue: "https://api.openai.com/v1", description: "Endpoint", overridden: false },
    { name: "LLM_MODEL", value: "deepseek-chat", secret: false, source: "settings.json", defaultValue: "", description: "Model", overridden: false },
    { name: "LLM_API_KEY", value: "sk-a…3456", secret: true, source: "the system keyring", defaultValue: "", description: "Key", overridden: false },
    { name: "ADS_API_TOKEN", value: "", secret: true, source: "default", defaultValue: "", description: "ADS", overridden: false },
    { name: "EMBEDDINGS", value: "auto", secret: false, source: "default", defaultValue: "auto", description: "Embeddings", overridden: false },
    { name: "SESAME_URL", value: "https://cds.unistra.fr/cgi-bin/nph-sesame", secret: false, source: "environment", defaultValue: "", description: "Sesame", overridden: true },
  ],
};

describe("AskUserQuestionCard", () => {
  it("shows the agent's question with its options and sends the chosen one", async () => {
    const backend = mockBackend();
    const user = userEvent.setup();
    render(<ResearchAgentPanel />);
    await user.type(screen.getByTestId("question-input"), "Review TRGB papers{Enter}");
    await backend.lastFeed().send(ev.started("Review TRGB papers"), {
      type: "AskUser", requestId: "q1", question: "Which years should I cover?", options: ["2019–2026", "All"],
    });
    const card = await screen.findByTestId("ask-user-card");
    expect(card).toHaveTextContent("Which years should I cover?");
    await user.click(within(card).getByRole("button", { name: "2019–2026" }));
    expect(backend.callsTo("question_answer")[0]?.args).toMatchObject({ requestId: "q1", answer: "2019–2026" });
    expect(screen.queryByTestId("ask-user-card")).not.toBeInTheDocument();
  });

  it("takes a free-text answer", async () => {
    const backend = mockBackend();
    const user = userEvent.setup();
    render(<ResearchAgentPanel />);
    await user.type(screen.getByTestId("question-input"), "Go{Enter}");
    await backend.lastFeed().send(ev.started("Go"), { type: "AskUser", requestId: "q2", question: "Which object?", options: [] });
    await user.type(await screen.findByTestId("ask-user-input"), "NGC 1068{Enter}");
    expect(backend.callsTo("question_answer")[0]?.args).toMatchObject({ answer: "NGC 1068" });
  });
});

describe("Timeline", () => {
  it("renders a 10,000-item replay virtualised, not as 10,000 nodes", async () => {
    const items: TimelineItem[] = Array.from({ length: 10_000 }, (_, index) => ({
      kind: "text", id: `item-${index}`, step: index, agentName: "main", text: `Passage ${index}`,
    }));
    mockBackend({ sessions: [session], timelines: { s1: items } });
    const user = userEvent.setup();
    render(<ResearchAgentPanel />);
    await user.click(await screen.findByText("TRGB distances"));
    await waitFor(() => expect(screen.getByTestId("timeline")).toHaveAttribute("data-count", "10000"));
    expect(screen.queryAllByTestId("timeline-item").length).toBeLessThan(100);
  });

  it("renders Markdown with KaTeX math in answers", async () => {
    const backend = mockBackend();
    const user = userEvent.setup();
    render(<ResearchAgentPanel />);
    await user.type(screen.getByTestId("question-input"), "H0?{Enter}");
    await backend.lastFeed().send(ev.started("H0?"), ev.text("TRGB gives **$H_0 = 69.8$** km/s/Mpc"), ev.finished());
    await waitFor(() => expect(document.querySelector(".answer strong .katex")).not.toBeNull(), { timeout: 5000 });
    expect(document.querySelector(".answer")).toHaveTextContent("TRGB gives");
  });

  it("renders display math as a block, keeps code as code, and bad TeX as a visible error", { timeout: 10_000 }, async () => {
    const backend = mockBackend();
    const user = userEvent.setup();
    render(<ResearchAgentPanel />);
    await user.type(screen.getByTestId("question-input"), "mu?{Enter}");
    const text = "The modulus:\n\n$$\n\\mu = 5 \\log_{10} d - 5\n$$\n\n```python\nmu = 29.4\n```\n\nBroken: $\\frac{1$";
    await backend.lastFeed().send(ev.started("mu?"), ev.text(text), ev.finished());
    await waitFor(() => expect(document.querySelector(".answer .math-display .katex-display")).not.toBeNull(), { timeout: 5000 });
    // The formula is not wrapped in a code block, and a real code block stays one.
    expect(document.querySelector(".answer pre .katex")).toBeNull();
    expect(document.querySelector(".answer pre code")).toHaveTextContent("mu = 29.4");
    // KaTeX shows a formula it cannot parse in its error colour instead of throwing.
    expect(document.querySelector(".answer .math-inline .katex-error")).not.toBeNull();
  });
});

describe("Compaction", () => {
  it("shows where the conversation was compacted as a marker, not as a plain notice", async () => {
    const items = [
      { kind: "user", id: "item-0", text: "Long review" },
      { kind: "notice", id: "item-1", noticeKind: "compaction", message: "52,000 → 9,000 tokens", step: 4, agentName: "main" },
    ] as unknown as TimelineItem[];
    mockBackend({ sessions: [session], timelines: { s1: items } });
    const user = userEvent.setup();
    render(<ResearchAgentPanel />);
    await user.click(await screen.findByText("TRGB distances"));
    expect(await screen.findByTestId("compaction-marker")).toHaveTextContent("Earlier conversation compacted");
  });
});

describe("AgentMetricsPanel", () => {
  it("charts tokens per step and estimates the cost from the session's measurements", async () => {
    mockBackend({
      sessions: [session],
      metrics: { s1: [metric(1, "model", "qwen3-max", 1000, 100, 900), metric(1, "tool", "query_target", 0, 0, 120), metric(2, "model", "qwen3-max", 2000, 300, 1500)] },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-metrics"));
    const panel = await screen.findByTestId("metrics-panel");
    await waitFor(() => expect(within(panel).getByTestId("tokens-in")).toHaveTextContent("3,000"));
    expect(within(panel).getByTestId("tokens-out")).toHaveTextContent("400");
    // qwen3-max: $1.2 in / $6 out per million → 3000·1.2e-6 + 400·6e-6 = $0.0060
    expect(within(panel).getByTestId("cost")).toHaveTextContent("$0.0060");
    expect(within(within(panel).getByTestId("tokens-chart")).getAllByTestId("chart-bar")).toHaveLength(2);
    expect(within(panel).getByTestId("tools-chart")).toHaveTextContent("query_target");
    expect(within(panel).getByTestId("ads-quota")).toHaveTextContent("not known until the first ADS search");
  });

  it("counts a tool's own model calls and shows waiting for the user apart from the tools' time", async () => {
    mockBackend({
      sessions: [session],
      metrics: {
        s1: [
          metric(1, "model", "qwen3-max", 1000, 100, 900),
          metric(1, "wait", "run_bash", 0, 0, 12000),
          metric(1, "tool", "run_bash", 0, 0, 300),
          metric(1, "tool", "rag_search", 0, 0, 2500),
          metric(1, "model", "qwen3-max", 3000, 200, 2000, "rag_search"),
          metric(2, "model", "qwen3-max", 2000, 300, 1500),
        ],
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-metrics"));
    const panel = await screen.findByTestId("metrics-panel");
    await waitFor(() => expect(within(panel).getByTestId("tokens-in")).toHaveTextContent("6,000"));
    expect(within(panel).getByTestId("model-calls")).toHaveTextContent("3 · 4.4 s (1 inside tools)");
    expect(within(panel).getByTestId("tool-calls")).toHaveTextContent("2 · 2.8 s");
    expect(within(panel).getByTestId("waiting")).toHaveTextContent("12.0 s");
    expect(within(within(panel).getByTestId("tokens-chart")).getAllByTestId("chart-bar")).toHaveLength(2);
  });

  it("shows the ADS quota the last answer stated, as a warning below a tenth", async () => {
    mockBackend({ sessions: [session], status: { adsQuota: "312 of 5000 requests left, resets 2023-11-14T22:13:20Z", adsQuotaLow: true } });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-metrics"));
    const quota = await screen.findByTestId("ads-quota");
    await waitFor(() => expect(quota).toHaveTextContent("ADS quota low: 312 of 5000 requests left, resets 2023-11-14T22:13:20Z"));
    expect(quota).toHaveClass("warn");
  });
});

describe("AuditLogViewer", () => {
  it("pages, filters by outcome and shows arguments with secrets redacted", async () => {
    const rows = Array.from({ length: 60 }, (_, index) => audit(60 - index, index % 3 === 0 ? "run_bash" : "query_target", "allow", index === 5 ? "error" : "ok"));
    const backend = mockBackend({ sessions: [session], audit: rows });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-audit"));
    const log = await screen.findByTestId("audit-log");
    await waitFor(() => expect(within(log).getAllByTestId("audit-row")).toHaveLength(50));
    expect(within(log).getByTestId("audit-range")).toHaveTextContent("1–50 / 60");
    await user.click(within(log).getByRole("button", { name: "Older ›" }));
    await waitFor(() => expect(within(log).getAllByTestId("audit-row")).toHaveLength(10));
    await user.selectOptions(within(log).getByTestId("audit-filter-outcome"), "error");
    await waitFor(() => expect(within(log).getAllByTestId("audit-row")).toHaveLength(1));
    expect(backend.callsTo("audit_page").at(-1)?.args).toMatchObject({ offset: 0, filter: { outcome: "error" } });
    await user.click(within(log).getByTestId("audit-row"));
    const args = within(log).getByTestId("audit-arguments");
    expect(args).toHaveTextContent("[REDACTED]");
    expect(args).not.toHaveTextContent("sk-live");
    expect(log).toHaveTextContent("Sesame timed out");
  });

  it("redacts nested secret-looking keys", () => {
    expect(redact({ headers: { Authorization: "Bearer x" }, list: [{ token: "t" }], name: "M31" })).toEqual({
      headers: { Authorization: "[REDACTED]" }, list: [{ token: "[REDACTED]" }], name: "M31",
    });
  });
});

describe("LibraryView", () => {
  it("imports the chosen PDFs with progress, lists papers, filters and shows details with notes", async () => {
    const backend = mockBackend({
      papers: [paper, { ...paper, id: "p2", title: "Cepheids in NGC 4258", authors: ["Riess, A."], bibcode: null, arxivId: null, collections: [], chunks: 10 }],
      notes: [{ id: "n1", paperId: "p1", paperLabel: null, page: 3, quote: "H0 = 69.8", comment: "TRGB value", color: null, rects: [], createdAt: "", updatedAt: "" }],
      dialog: ["/home/astro/Papers/freedman2019.pdf"],
      importEvents: [
        { kind: "file", done: 1, total: 1, path: "/home/astro/Papers/freedman2019.pdf", outcome: "imported", paperId: "p1", title: "CCHP", message: null },
        { kind: "embedding", done: 87, total: 87 },
      ],
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    const view = await screen.findByTestId("library-view");
    await waitFor(() => expect(within(view).getAllByTestId("library-row")).toHaveLength(2));

    await user.click(within(view).getByTestId("library-import"));
    await waitFor(() => expect(backend.callsTo("library_import")).toHaveLength(1));
    // The app opens the file dialog; the webview only says what to pick.
    const { onProgress, ...args } = backend.callsTo("library_import")[0]!.args;
    expect(args).toEqual({ pick: "files", collection: null });
    expect(onProgress).toBeDefined();
    expect(await screen.findByTestId("info-toast")).toHaveTextContent("1 imported");

    await user.type(within(view).getByTestId("library-search"), "cepheid");
    expect(within(view).getAllByTestId("library-row")).toHaveLength(1);
    await user.clear(within(view).getByTestId("library-search"));

    await user.click(within(view).getByText("The Carnegie-Chicago Hubble Program"));
    const details = await within(view).findByTestId("paper-details");
    expect(details).toHaveTextContent("2019ApJ...882...34F");
    expect(within(details).getAllByTestId("note")[0]).toHaveTextContent("TRGB value");
    await user.type(within(details).getByPlaceholderText("Write a note"), "Check the zero point{Enter}");
    expect(backend.callsTo("note_add")[0]?.args.note).toMatchObject({ paperId: "p1", comment: "Check the zero point" });
  });

  it("shows an import's count, time left and Cancel, and says where a cancelled import stopped", async () => {
    const backend = mockBackend({
      papers: [paper],
      dialog: ["/home/astro/Papers"],
      importEvents: [{ kind: "file", done: 1, total: 4, path: "/home/astro/Papers/freedman2019.pdf", outcome: "imported", paperId: "p1", title: "CCHP", message: null }],
      importUntilCancelled: true,
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    const view = await screen.findByTestId("library-view");
    await user.click(within(view).getByTestId("library-import"));
    const bar = await within(view).findByTestId("import-progress");
    expect(bar).toHaveTextContent("Importing 1 of 4: freedman2019.pdf");
    expect(within(bar).getByTestId("import-eta")).toHaveTextContent(/about \d+:\d\d left/);
    await user.click(within(bar).getByTestId("import-cancel"));
    expect(backend.callsTo("library_import_cancel")).toHaveLength(1);
    await waitFor(() => expect(within(view).queryByTestId("import-progress")).not.toBeInTheDocument());
    const toasts = screen.getAllByTestId("info-toast").map((toast) => toast.textContent).join(" ");
    expect(toasts).toContain("Stopped after 1 of 4 files; import them again to finish");
  });

  it("shows the library being embedded in the background, with its count and time left, until it ends", async () => {
    const answers = [{ done: 100, total: 1000 }, { done: 400, total: 1000 }, null];
    const backend = mockBackend({ papers: [paper], backgroundEmbedding: () => (answers.length > 1 ? answers.shift()! : answers[0]!) });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    const view = await screen.findByTestId("library-view");
    const bar = await within(view).findByTestId("background-embedding");
    expect(bar).toHaveTextContent("Embedding the library in the background: 100 of 1000 passages");
    await waitFor(() => expect(bar).toHaveTextContent(/400 of 1000 passages · about \d+:\d\d left/), { timeout: 5000 });
    await waitFor(() => expect(within(view).queryByTestId("background-embedding")).not.toBeInTheDocument(), { timeout: 5000 });
    expect(backend.callsTo("library_background_embedding").length).toBeGreaterThanOrEqual(3);
  }, 15000);

  it("imports a typed path through the app's confirmation, and nothing when it is declined", async () => {
    const backend = mockBackend({ papers: [], confirm: false });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    const view = await screen.findByTestId("library-view");
    await user.type(within(view).getByTestId("library-path"), "/home/astro/Papers{Enter}");
    await waitFor(() => expect(backend.callsTo("library_import_paths")).toHaveLength(1));
    expect(backend.callsTo("library_import_paths")[0]!.args).toMatchObject({ paths: ["/home/astro/Papers"], collection: null });
    await waitFor(() => expect(within(view).getByTestId("library-path-import")).toBeDisabled());
    expect(screen.queryByTestId("info-toast")).not.toBeInTheDocument();
    expect(within(view).getByTestId("library-import")).toBeEnabled();
  });

  it("exports BibTeX where the app's save dialog says, and nothing when it is cancelled", async () => {
    const backend = mockBackend({ papers: [paper], dialog: ["/home/astro/trgb.bib"] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    const view = await screen.findByTestId("library-view");
    await user.click(within(view).getByTestId("library-export-bib"));
    expect(await screen.findByTestId("info-toast")).toHaveTextContent("1 entry written to /home/astro/trgb.bib");
    expect(backend.callsTo("library_export_bib")[0]!.args).toEqual({ collection: null });
  });

  it("says what to do when the library is empty", async () => {
    mockBackend({ papers: [] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    expect(await screen.findByTestId("library-empty")).toHaveTextContent("Import PDFs");
  });
});

describe("Import results", () => {
  it("lists each file that needs the user with its reason and what to do, retries a failed one, and lets earlier toasts go", async () => {
    const folder = "/home/astro/Drafts";
    const backend = mockBackend({
      papers: [paper],
      dialog: [folder],
      importEvents: [
        { kind: "file", done: 1, total: 4, path: `${folder}/good.pdf`, outcome: "imported", paperId: "p1", title: "CCHP", message: null },
        { kind: "file", done: 2, total: 4, path: `${folder}/broken.pdf`, outcome: "failed", paperId: null, title: null, message: "the PDF is damaged or truncated: xref" },
        { kind: "file", done: 3, total: 4, path: `${folder}/locked.pdf`, outcome: "imported", paperId: "p9", title: "Locked", message: "the PDF is encrypted with a password; its text is not searchable" },
        { kind: "file", done: 4, total: 4, path: `${folder}/notes.docx`, outcome: "skipped", paperId: null, title: null, message: "not a PDF, .bib or CSL-JSON file" },
      ],
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    const view = await screen.findByTestId("library-view");
    await user.click(within(view).getByTestId("library-import"));
    const results = await screen.findByTestId("import-results");
    const rows = within(results).getAllByTestId("import-result");
    expect(rows.map((row) => row.querySelector("strong")?.textContent)).toEqual(["broken.pdf", "locked.pdf", "notes.docx"]);
    expect(rows[0]).toHaveTextContent("damaged or truncated");
    expect(rows[0]).toHaveTextContent("Download or export the file again, then Retry.");
    expect(rows[1]).toHaveTextContent("save a copy without the password");
    expect(rows[2]).toHaveTextContent("Only PDFs, .bib and CSL-JSON files and Zotero data folders are imported.");
    expect(within(rows[1]!).queryByTestId("import-retry")).toBeNull();
    expect(screen.queryByTestId("error-toast")).toBeNull();
    expect(await screen.findByTestId("info-toast")).toHaveTextContent("1 imported");

    await user.click(within(rows[0]!).getByTestId("import-retry"));
    await waitFor(() => expect(backend.callsTo("library_import_paths")).toHaveLength(1));
    expect(backend.callsTo("library_import_paths")[0]!.args.paths).toEqual([`${folder}/broken.pdf`]);

    // The next action's message replaces the import's; the list stays until dismissed.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await user.click(within(view).getByTestId("library-import"));
    await waitFor(() => expect(screen.getAllByTestId("info-toast")).toHaveLength(1));
    await user.click(within(screen.getByTestId("import-results")).getByText("Dismiss"));
    expect(screen.queryByTestId("import-results")).toBeNull();
  });
});

describe("SettingsPanel", () => {
  it("never shows a key unmasked, and saves only what changed with new keys apart", async () => {
    const backend = mockBackend({ settings });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-settings"));
    const panel = await screen.findByTestId("settings-panel");
    const key = await within(panel).findByTestId("setting-LLM_API_KEY");
    expect(key).toHaveAttribute("type", "password");
    expect(key).toHaveValue("");
    expect(key.getAttribute("placeholder")).toContain("sk-a…3456");
    expect(panel).toHaveTextContent("Set by environment");

    await user.selectOptions(within(panel).getByTestId("setting-preset"), "dashscope");
    expect(within(panel).getByTestId("setting-LLM_MODEL")).toHaveValue("qwen3-max");
    await user.type(within(panel).getByTestId("setting-ADS_API_TOKEN"), "ads-secret-token");
    await user.click(within(panel).getByTestId("settings-save"));
    await waitFor(() => expect(backend.callsTo("settings_save")).toHaveLength(1));
    const saved = backend.callsTo("settings_save")[0]!.args;
    expect(saved.values).toEqual(
      expect.arrayContaining([
        { name: "LLM_BASE_URL", value: "https://dashscope.aliyuncs.com/compatible-mode/v1" },
        { name: "LLM_MODEL", value: "qwen3-max" },
      ]),
    );
    expect(saved.values).not.toContainEqual(expect.objectContaining({ name: "EMBEDDINGS" }));
    expect(saved.secrets).toEqual([{ name: "ADS_API_TOKEN", value: "ads-secret-token" }]);
  });

  it("shows why a save was refused when the key question was declined, and keeps what was typed", async () => {
    const refusal = "Not saved: you did not confirm sending your API key to https://evil.example/v1.";
    const backend = mockBackend({
      settings,
      settingsSave: () => {
        throw { kind: "invalidInput", message: refusal } satisfies AppError;
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-settings"));
    const panel = await screen.findByTestId("settings-panel");
    const url = await within(panel).findByTestId("setting-LLM_BASE_URL");
    await user.clear(url);
    await user.type(url, "https://evil.example/v1");
    await user.click(within(panel).getByTestId("settings-save"));
    expect(await screen.findByTestId("error-toast")).toHaveTextContent(refusal);
    expect(backend.callsTo("settings_save")[0]!.args.values).toEqual([{ name: "LLM_BASE_URL", value: "https://evil.example/v1" }]);
    expect(within(panel).getByTestId("setting-LLM_BASE_URL")).toHaveValue("https://evil.example/v1");
    expect(within(panel).getByTestId("settings-save")).toBeEnabled();
    expect(screen.queryByText("Settings saved and applied.")).not.toBeInTheDocument();
  });
});

describe("Workspace folder", () => {
  it("shows none, chooses a folder through the app's dialog, and clears it", async () => {
    const backend = mockBackend({ settings, dialog: ["/home/astro/thesis"] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-settings"));
    const row = await screen.findByTestId("workspace-setting");
    expect(within(row).getByTestId("workspace-folder")).toHaveTextContent("none: the agent's file tools reach only the library");
    expect(within(row).queryByTestId("workspace-clear")).not.toBeInTheDocument();
    await user.click(within(row).getByTestId("workspace-choose"));
    await waitFor(() => expect(within(row).getByTestId("workspace-folder")).toHaveTextContent("/home/astro/thesis"));
    expect(backend.callsTo("settings_choose_workspace")[0]!.args).toEqual({});
    await user.click(within(row).getByTestId("workspace-clear"));
    await waitFor(() => expect(within(row).getByTestId("workspace-folder")).toHaveTextContent("none"));
    expect(backend.callsTo("settings_save").at(-1)!.args).toEqual({ values: [{ name: "ASTERISM_WORKSPACE", value: "" }], secrets: [] });
  });

  it("shows the app's refusal of the root of the filesystem", async () => {
    mockBackend({ settings, dialog: ["/"] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-settings"));
    await user.click(await screen.findByTestId("workspace-choose"));
    expect(await screen.findByTestId("error-toast")).toHaveTextContent("the root of the filesystem cannot be the workspace");
    expect(screen.getByTestId("workspace-folder")).toHaveTextContent("none");
  });

  it("says why a configured workspace is not used", async () => {
    mockBackend({ settings: { ...settings, workspaceProblem: "the home folder itself cannot be the workspace (choose a project folder inside it)" } });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-settings"));
    expect(await screen.findByTestId("workspace-problem")).toHaveTextContent("Not used: the home folder itself cannot be the workspace");
  });

  it("names the PDF engine and embedding model in use, and warns when either is the fallback", async () => {
    mockBackend({ settings });
    const user = userEvent.setup();
    const { unmount } = render(<App />);
    await user.click(screen.getByTestId("nav-settings"));
    const pdf = await screen.findByTestId("part-pdf");
    expect(pdf).toHaveTextContent("pdfium (/opt/asterism/libpdfium.so)");
    expect(pdf).not.toHaveClass("warn");
    expect(screen.getByTestId("part-embeddings")).toHaveTextContent("local:all-MiniLM-L6-v2-int8");
    unmount();

    const fallback = { pdfEngine: "pdf-extract, the slow fallback: libpdfium was not found", pdfFallback: true, embeddings: "none: no local model was found", embeddingsFallback: true };
    mockBackend({ settings, status: { parts: fallback } });
    render(<App />);
    await user.click(screen.getByTestId("nav-settings"));
    const slow = await screen.findByTestId("part-pdf");
    expect(slow).toHaveClass("warn");
    expect(slow).toHaveTextContent("Warning: pdf-extract, the slow fallback");
    expect(screen.getByTestId("part-embeddings")).toHaveTextContent("Warning: none: no local model was found");
  });

  it("speaks Chinese", async () => {
    mockBackend({ settings });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("toggle-language"));
    await user.click(screen.getByTestId("nav-settings"));
    const row = await screen.findByTestId("workspace-setting");
    expect(row).toHaveTextContent("工作区文件夹");
    expect(within(row).getByTestId("workspace-folder")).toHaveTextContent("无：助手的文件工具只能访问文献库");
    await user.click(screen.getByTestId("toggle-language"));
  });
});

describe("App shell", () => {
  it("switches the whole UI to Simplified Chinese and back", async () => {
    mockBackend({ sessions: [session] });
    const user = userEvent.setup();
    render(<App />);
    expect(screen.getByTestId("send-button")).toHaveTextContent("Send");
    await user.click(screen.getByTestId("toggle-language"));
    await waitFor(() => expect(screen.getByTestId("send-button")).toHaveTextContent("发送"));
    expect(screen.getByTestId("nav-library")).toHaveTextContent("文献库");
    await user.click(screen.getByTestId("toggle-language"));
    await waitFor(() => expect(screen.getByTestId("send-button")).toHaveTextContent("Send"));
  });

  it("toggles the dark theme on the document and opens panels with Ctrl+digits", async () => {
    mockBackend({ papers: [] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("toggle-theme"));
    expect(document.documentElement.dataset.theme).toBe("dark");
    await user.keyboard("{Control>}2{/Control}");
    expect(await screen.findByTestId("library-view")).toBeInTheDocument();
  });

  it("without a model, explains what to set and links to Settings; the composer is disabled", async () => {
    mockBackend({ status: { modelConfigured: false, model: "" }, settings });
    const user = userEvent.setup();
    render(<App />);
    expect(await screen.findByTestId("config-notice")).toHaveTextContent("LLM_MODEL");
    expect(screen.getByTestId("question-input")).toBeDisabled();
    await user.click(screen.getByTestId("open-settings"));
    expect(await screen.findByTestId("settings-panel")).toBeInTheDocument();
  });
});
