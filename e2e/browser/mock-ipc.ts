// The backend the browser tests give the built UI: `mockIPC` from @tauri-apps/api
// answering every command with fixtures, and a scripted run that streams events through
// the run's Channel (thinking, a tool call with its target card, a todo list, a subagent,
// an ask_user question, a permission request, then a Markdown answer with math).
// Bundled by e2e/browser.mjs with esbuild into an init script; `window.__mock` exposes
// the calls for assertions.
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC } from "@tauri-apps/api/mocks";

type Internals = { runCallback: (id: number, data: unknown) => void };
type Waiter = (value: unknown) => void;
const calls: { cmd: string; args: Record<string, unknown> }[] = [];
const waiting = new Map<string, Waiter>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ngc4258 = {
  query: "NGC 4258", name: "M 106", raDeg: 184.7400833, decDeg: 47.3037222, raSexagesimal: "12:18:57.62",
  decSexagesimal: "+47:18:13.4", objectType: "LIN", objectTypeLabel: "LINER-type active galaxy nucleus",
  aliases: ["M 106", "NGC 4258", "UGC 7353"], resolver: "Simbad",
};
const sessions = [
  { id: "s10k", title: "A long session (10,000 events)", model: "qwen3-max", summary: null, createdAt: "2026-11-01T09:00:00Z", updatedAt: "2026-11-01T09:10:00Z", messageCount: 10000 },
  { id: "s1", title: "Hubble tension from TRGB distances", model: "qwen3-max", summary: null, createdAt: "2026-12-01T09:00:00Z", updatedAt: "2026-12-01T09:10:00Z", messageCount: 8 },
];
const paper = (id: string, title: string, authors: string[], year: number, chunks: number, status = "parsed") => ({
  id, title, authors, year, bibcode: `${year}ApJ...${id}`, arxivId: null, doi: null, status, identifyNote: null, chunks, tags: [], collections: ["TRGB"],
  files: [{ path: `/data/papers/${id}.pdf`, originalName: `${id}.pdf`, sha256: id, sizeBytes: 2_000_000, source: "import" }], addedAt: "2026-12-01T09:00:00Z",
});
const papers = [
  { ...paper("p1", "The Carnegie-Chicago Hubble Program. VIII. TRGB H0", ["Freedman, W. L.", "Madore, B. F."], 2019, 87), bibcode: "2019ApJ...882...34F", arxivId: "1907.05922", doi: "10.3847/1538-4357/ab2f73" },
  paper("p2", "Cepheids and the Hubble constant in NGC 4258", ["Riess, A. G."], 2022, 64),
  paper("p3", "A JWST view of the tip of the red giant branch", ["Anand, G. S."], 2024, 41, "unidentified"),
];
const links = { ads: "https://ui.adsabs.harvard.edu", arxiv: "https://arxiv.org", doi: "https://doi.org", simbad: "https://simbad.cds.unistra.fr/simbad" };
const metrics = [1, 2, 3].flatMap((step) => [
  { runId: "r1", step, agentName: "main", kind: "model", name: "qwen3-max", promptTokens: 900 * step, completionTokens: 120 + step * 30, durationMs: 700 + step * 250, createdAt: "" },
  { runId: "r1", step, agentName: "main", kind: "tool", name: step === 2 ? "search_papers" : "query_target", promptTokens: 0, completionTokens: 0, durationMs: 150 * step, createdAt: "" },
]);
const audit = Array.from({ length: 75 }, (_, index) => ({
  id: 75 - index, sessionId: "s1", agentName: index % 10 === 0 ? "reviewer" : "main", toolCallId: `c${index}`,
  tool: ["query_target", "search_papers", "run_bash"][index % 3], arguments: { query: "TRGB", api_key: "[REDACTED]" },
  decision: index % 3 === 2 ? "deny" : "allow", outcome: index % 3 === 2 ? "rejected" : "ok", durationMs: 40 + index, error: null, createdAt: "2026-12-01T09:00:00Z",
}));
const settings = {
  modelConfigured: true, dataDir: "/home/astro/.local/share/asterism", workspace: null as string | null, workspaceProblem: null,
  fields: [
    ["LLM_BASE_URL", "https://dashscope.aliyuncs.com/compatible-mode/v1", false],
    ["LLM_MODEL", "qwen3-max", false],
    ["FALLBACK_MODEL", "", false],
    ["LLM_API_KEY", "sk-a…3456", true],
    ["ENABLE_THINKING", "true", false],
    ["ASTERISM_MAX_STEPS", "25", false],
    ["ADS_API_TOKEN", "", true],
    ["EMBEDDINGS", "auto", false],
    ["SESAME_URL", "https://cds.unistra.fr/cgi-bin/nph-sesame", false],
  ].map(([name, value, secret]) => ({
    name, value, secret, source: secret && value ? "the system keyring" : "settings.json", defaultValue: "", description: `What ${name} is for.`, overridden: false,
  })),
};

function feed(channel: Channel<unknown>) {
  let index = 0;
  const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
  return (message: Record<string, unknown>) => internals.runCallback(channel.id, { index: index++, message });
}
const answer = (key: string) => new Promise((resolve) => waiting.set(key, resolve));

async function run(question: string, channel: Channel<unknown>) {
  const send = feed(channel);
  const base = { step: 1, agentName: "main" };
  send({ type: "RunStarted", runId: "r2", sessionId: "s2", question, model: "qwen3-max", startedAt: new Date().toISOString() });
  await sleep(50);
  send({ type: "Thinking", delta: "Resolve the anchor galaxy first, then plan the review.", ...base });
  send({ type: "TodoUpdated", agentName: "main", todos: [
    { taskId: "1", content: "Resolve NGC 4258", status: "in_progress", blockedBy: [] },
    { taskId: "2", content: "Find TRGB papers", status: "pending", blockedBy: ["1"] },
  ] });
  send({ type: "ToolCall", id: "e1", toolCallId: "call_1", name: "query_target", arguments: { name: "NGC 4258" }, ...base });
  await sleep(50);
  send({ type: "ToolResult", id: "e2", toolCallId: "call_1", name: "query_target", output: "M 106 at 12:18:57.62 +47:18:13.4", isError: false, metadata: ngc4258, durationMs: 120, ...base });
  send({ type: "SubagentStarted", agentName: "reviewer", parent: "main", task: "Collect TRGB H0 values" });
  send({ type: "ToolCall", id: "e3", toolCallId: "call_2", name: "search_papers", arguments: { query: "TRGB H0" }, step: 1, agentName: "reviewer" });
  send({ type: "SubagentFinished", agentName: "reviewer", summary: "Three TRGB values between 69.8 and 70.5.", reason: "completed", steps: 2 });
  send({ type: "AskUser", requestId: "q1", question: "Which years should the review cover?", options: ["2019–2026", "All years"] });
  const years = await answer("q1");
  send({ type: "ToolCall", id: "e4", toolCallId: "call_3", name: "run_bash", arguments: { command: "ls ~/Papers" }, step: 2, agentName: "main" });
  send({ type: "PermissionRequest", requestId: "p1", toolCallId: "call_3", tool: "run_bash", arguments: { command: "ls ~/Papers" }, reason: "run_bash runs a shell command", grants: [
    { kind: "exact", rule: "run_bash(=ls ~/Papers)", text: "ls ~/Papers" },
    { kind: "prefix", rule: "run_bash(ls)", text: "ls" },
  ] });
  const decision = await answer("p1");
  send({ type: "ToolResult", id: "e5", toolCallId: "call_3", name: "run_bash", output: decision === "deny" ? "denied" : "freedman2019.pdf", isError: decision === "deny", metadata: null, durationMs: 30, step: 2, agentName: "main" });
  for (const piece of [`For ${years}: TRGB gives `, "**$H_0 = 69.8 \\pm 1.7$** km s$^{-1}$ Mpc$^{-1}$ ", "(Freedman 2019, p. 12, §5)."]) {
    send({ type: "TextDelta", delta: piece, step: 3, agentName: "main" });
    await sleep(30);
  }
  send({ type: "RunFinished", sessionId: "s2", reason: "completed", usage: { promptTokens: 2700, completionTokens: 300, reasoningTokens: 0 }, steps: 3, finishedAt: new Date().toISOString() });
}

/** The stored timelines: a long session of 10,000 items and a short one. */
function timeline(sessionId: string): unknown[] {
  if (sessionId === "s10k") {
    return Array.from({ length: 10_000 }, (_, index) =>
      index % 2 === 0
        ? { kind: "user", id: `item-${index}`, text: `Question ${index}` }
        : { kind: "text", id: `item-${index}`, step: 1, agentName: "main", text: `Answer ${index}: TRGB distance modulus $\\mu = 29.4$.` },
    );
  }
  return [
    { kind: "user", id: "item-0", text: "What do recent papers say about the Hubble tension from TRGB distances?" },
    { kind: "text", id: "item-1", step: 1, agentName: "main", text: "TRGB distances give $H_0 \\approx 70$ (Freedman 2019, p. 12). See [the paper](https://arxiv.org/abs/1907.05922) and [a blog post](https://example.org/h0)." },
  ];
}

mockIPC(
  (cmd, payload) => {
    const args = (payload ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args: cmd === "agent_run" ? { question: args.question } : args });
    switch (cmd) {
      case "app_status":
        return { model: "qwen3-max", modelConfigured: true, thinkingSupported: true, dataDir: settings.dataDir, links };
      // The opener plugin and the app's commands that open things outside the webview.
      case "plugin:opener|open_url":
      case "library_open_pdf":
      case "library_show_pdf":
        return null;
      case "link_open":
        return true;
      case "sessions_list":
        return sessions;
      case "session_timeline_tail": {
        const items = timeline(args.sessionId as string);
        return { total: items.length, items: items.slice(Math.max(0, items.length - (args.count as number))) };
      }
      case "session_timeline":
        return timeline(args.sessionId as string);
      // The app's own native dialogs answer these: a path chosen, never one from the page.
      case "session_export":
        return { path: "/home/astro/Hubble-tension.asterism.json", bytes: 2048 };
      case "session_import":
        return "s1";
      case "dialog_language":
        return null;
      case "agent_run":
        void run(args.question as string, args.onEvent as Channel<unknown>);
        return "s2";
      case "question_answer":
        waiting.get(args.requestId as string)?.(args.answer);
        return true;
      case "permission_answer":
        waiting.get(args.requestId as string)?.(args.decision);
        return true;
      case "agent_cancel":
        return true;
      case "session_metrics":
        return metrics;
      case "audit_page": {
        const filter = args.filter as Record<string, string | null>;
        const rows = audit.filter((row) => (!filter.tool || row.tool === filter.tool) && (!filter.decision || row.decision === filter.decision) && (!filter.outcome || row.outcome === filter.outcome));
        const offset = args.offset as number;
        return { entries: rows.slice(offset, offset + (args.limit as number)), total: rows.length, tools: ["query_target", "run_bash", "search_papers"], decisions: ["allow", "deny"], outcomes: ["ok", "rejected"] };
      }
      case "library_list":
        return papers;
      case "library_collections":
        return [{ name: "TRGB", papers: 3 }];
      case "library_paper": {
        const found = papers.find((p) => p.id === args.paperId) ?? papers[0];
        return { paper: found, abstractText: "We present a TRGB calibration of type Ia supernovae and find H0 = 69.8.", journal: "ApJ", notes: [
          { id: "n1", paperId: found!.id, paperLabel: null, page: 12, quote: "H0 = 69.8 ± 0.8 (stat)", comment: "The headline TRGB value", color: "yellow", rects: [], createdAt: "", updatedAt: "" },
        ] };
      }
      case "library_search":
        return { hits: [{ paperId: "p1", title: papers[0]!.title, authors: papers[0]!.authors, year: 2019, page: 12, section: "5 Results", text: "We find H0 = 69.8 ± 0.8 (stat) ± 1.7 (sys) km/s/Mpc from the TRGB.", score: 0.03 }], note: null };
      case "library_import":
      case "library_import_paths": {
        const send = feed(args.onProgress as Channel<unknown>);
        send({ kind: "file", done: 1, total: 1, path: "/home/astro/Papers/anand2024.pdf", outcome: "imported", paperId: "p4", title: "JWST TRGB", message: null });
        return { imported: 1, linked: 0, duplicates: 0, skipped: 0, failed: 0, embedded: 40, indexError: null };
      }
      case "library_export_bib":
        return { entries: 3, path: "/home/astro/library.bib", notes: [] };
      case "note_add":
      case "library_collect":
        return cmd === "note_add" ? { id: "n2", ...(args.note as object) } : null;
      case "library_figures":
        return [];
      case "settings_get":
        return settings;
      case "settings_save":
        if ((args.values as { name: string }[]).some((value) => value.name === "ASTERISM_WORKSPACE")) settings.workspace = null;
        return settings;
      case "settings_choose_workspace":
        settings.workspace = "/home/astro/thesis";
        return settings;
      default:
        throw { kind: "internal", message: `the browser mock has no ${cmd}` };
    }
  },
  { shouldMockEvents: true },
);

// The viewer's `pdf://` URLs point at a real paper the test server serves.
(window as unknown as { __TAURI_INTERNALS__: { convertFileSrc: (path: string, protocol: string) => string } }).__TAURI_INTERNALS__.convertFileSrc =
  (path, protocol) => `${location.origin}/${protocol}/${path}.pdf`;

(window as unknown as { __mock: unknown }).__mock = { calls };
