import { Channel } from "@tauri-apps/api/core";
import { mockConvertFileSrc, mockIPC } from "@tauri-apps/api/mocks";
import { act } from "@testing-library/react";
import type {
  About,
  AdsLibrary,
  AdsPullProgress,
  AdsPulled_Serialize,
  AdsPushReport,
  AgentEvent,
  AppError,
  AppStatus,
  AuditEntry,
  EmbeddingProgress,
  EndpointCheck,
  ImportEvent,
  LibraryObject,
  LibraryPaper,
  LocalServer,
  McpServerView_Serialize,
  McpView_Serialize,
  MetricEntry,
  NearbyObjects,
  Neighbours_Serialize,
  NewsList_Serialize,
  PassageResults,
  Note,
  ResolvedTarget_Serialize,
  SessionSummary,
  SettingsView,
  StoredFigure,
  TimelineItem,
} from "../bindings";

type Internals = { runCallback: (id: number, data: unknown) => void };

/**
 * Sends events through a Channel the way the Rust side does: each message goes to the
 * channel's callback id as `{ index, message }`, so the real ordering logic of
 * `Channel` runs. (Under `mockIPC`, `invoke` hands the args to the handler without
 * serialising them, so `payload.onEvent` is the very Channel the UI created.)
 */
export class ChannelFeed {
  private index = 0;
  constructor(readonly channel: Channel<AgentEvent>) {}

  async send(...events: AgentEvent[]) {
    const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
    await act(async () => {
      for (const message of events) {
        internals.runCallback(this.channel.id, { index: this.index++, message });
      }
    });
  }
}

export type Call = { cmd: string; args: Record<string, unknown> };

export type BackendOptions = {
  status?: Partial<AppStatus>;
  sessions?: SessionSummary[];
  timelines?: Record<string, TimelineItem[]>;
  /** Replaces `agent_run`'s answer (the session id); throw an AppError to fail the command. */
  agentRun?: (args: Record<string, unknown>) => string;
  metrics?: Record<string, MetricEntry[]>;
  audit?: AuditEntry[];
  papers?: LibraryPaper[];
  notes?: Note[];
  settings?: SettingsView;
  /**
   * What the native dialogs the app opens answer: the paths chosen (save and folder
   * dialogs take the first), or `null`, the default, when the user cancelled. The
   * webview never calls the dialog plugin itself.
   */
  dialog?: string[] | null;
  /**
   * What the native message box asks before `library_import_paths` and `mcp_add` answer
   * (default: yes); declined, `mcp_add` fails with "NAME was not added." as the app does.
   */
  confirm?: boolean;
  /** Replaces `settings_save`'s answer; throw an AppError to fail the command (e.g. a declined key question). */
  settingsSave?: (args: Record<string, unknown>) => SettingsView;
  /** The session id `session_import` answers. */
  importedSession?: string;
  /** Events `library_import` streams before it answers. */
  importEvents?: ImportEvent[];
  /** Holds `library_import` open after its events until `library_import_cancel`, then answers it as stopped. */
  importUntilCancelled?: boolean;
  /** What `library_background_embedding` answers, asked at each poll (default: none runs). */
  backgroundEmbedding?: () => EmbeddingProgress | null;
  /** What `library_objects` answers (default: none). */
  objects?: LibraryObject[];
  /** What `library_figures` answers (default: none). */
  figures?: StoredFigure[];
  /** Makes `library_objects` fail with this error. */
  objectsError?: AppError;
  /**
   * Replaces `library_objects_near`'s answer (default: the name resolved at 0° 0°, nothing
   * within the radius); throw an AppError to fail it (e.g. a name Sesame cannot resolve).
   * A radius outside (0, 600] fails before, as in the app.
   */
  objectsNear?: (args: { name: string; radiusArcmin: number }) => NearbyObjects;
  /** What `news_today` answers (`refresh`: asked again); throw an AppError to fail it. Default: nothing new. */
  news?: (refresh: boolean) => NewsList_Serialize;
  /** What `paper_links` answers for (paper id, link); throw an AppError to fail it. */
  paperLinks?: (id: string, link: string) => Neighbours_Serialize;
  /**
   * The ADS libraries: `libraries` answers `ads_libraries` (default: no token), `pull` and
   * `push` answer `ads_pull`/`ads_push` (throw an AppError to fail them); `pullEvents` go
   * on the pull's progress channel first.
   */
  ads?: {
    libraries?: () => AdsLibrary[];
    pull?: (library: string, download: boolean) => AdsPulled_Serialize;
    push?: (args: { collection: string; to: string; create: boolean; removeMissing: boolean }) => AdsPushReport;
    pullEvents?: AdsPullProgress[];
  };
  /** What `library_search` answers (default: nothing found). */
  passages?: PassageResults;
  /** The model servers `setup_local_servers` finds (default: none). */
  localServers?: LocalServer[];
  /** Replaces `setup_check`'s answer (default: it answers and lists no models); throw an AppError to fail it. */
  setupCheck?: (args: Record<string, unknown>) => EndpointCheck;
  /** What `about` answers (default: `ABOUT`). */
  about?: About;
  /** The licence texts `license_text` answers, by id (default: `LICENSES`). */
  licenses?: Record<string, string>;
  /**
   * The MCP servers `mcp_servers` starts with (default: none, no problem, `MCP_CONFIG_PATH`).
   * `mcp_add`, `mcp_remove` and `mcp_set_enabled` change them as the app does: an added
   * server runs with no tools, a disabled one has none, an enabled one runs with its first ones.
   */
  mcp?: McpView_Serialize;
};

export const MCP_CONFIG_PATH = "/home/astro/.local/share/asterism/mcp.json";

/** The public sites, as `app_status` reports them by default. */
export const LINK_BASES = {
  ads: "https://ui.adsabs.harvard.edu",
  arxiv: "https://arxiv.org",
  doi: "https://doi.org",
  simbad: "https://simbad.cds.unistra.fr/simbad",
};

/** `about`'s default answer: a part, a crate and an npm package, with their licence texts. */
export const ABOUT: About = {
  version: "0.1.0",
  parts: { pdfEngine: "pdfium (/opt/asterism/libpdfium.so)", pdfFallback: false, embeddings: "local:all-MiniLM-L6-v2-int8 (/opt/asterism/minilm)", embeddingsFallback: false },
  noticesPath: "/opt/asterism/licenses.json",
  noticesProblem: null,
  components: [
    { kind: "part", name: "pdfium", version: "7350", license: "BSD-3-Clause", url: "https://pdfium.googlesource.com/pdfium", texts: ["pdfium-license"] },
    { kind: "crate", name: "serde", version: "1.0.228", license: "MIT OR Apache-2.0", url: "https://github.com/serde-rs/serde", texts: ["mit-serde", "apache-2.0"] },
    { kind: "crate", name: "tokio", version: "1.48.0", license: "MIT", url: "https://tokio.rs", texts: ["mit-tokio"] },
    { kind: "npm", name: "react", version: "19.3.1", license: "MIT", url: "https://react.dev", texts: ["mit-react"] },
  ],
};

export const LICENSES: Record<string, string> = {
  "pdfium-license": "Copyright 2014 The PDFium Authors\nRedistribution and use in source and binary forms…",
  "mit-serde": "MIT License\nCopyright (c) 2014 Erick Tryzelaar and David Tolnay",
  "apache-2.0": "Apache License\nVersion 2.0, January 2004",
  "mit-tokio": "MIT License\nCopyright (c) Tokio Contributors",
  "mit-react": "MIT License\nCopyright (c) Meta Platforms, Inc. and affiliates.",
};

/** A target as Sesame would resolve `name` (`query`) to `main` at (ra, dec) in degrees. */
export function resolvedTarget(query: string, main = query, raDeg: number | null = 0, decDeg: number | null = 0): ResolvedTarget_Serialize {
  return {
    query,
    name: main,
    raDeg,
    decDeg,
    raSexagesimal: "00:00:00.00",
    decSexagesimal: "+00:00:00.0",
    objectType: null,
    objectTypeLabel: null,
    morphology: null,
    redshift: null,
    velocityKms: null,
    aliases: [],
    resolver: "Simbad",
    resolvers: [],
    referenceCount: null,
  };
}

/** A fake backend over `mockIPC`: records every call and exposes the live channels. */
export function mockBackend(options: BackendOptions = {}) {
  const calls: Call[] = [];
  const feeds: ChannelFeed[] = [];
  let cancelImport: (() => void) | null = null;
  let status: AppStatus = {
    model: "test-model",
    modelConfigured: true,
    thinkingSupported: true,
    dataDir: "/home/astro/.local/share/asterism",
    links: LINK_BASES,
    adsQuota: null,
    adsQuotaLow: false,
    parts: { pdfEngine: "pdfium (/opt/asterism/libpdfium.so)", pdfFallback: false, embeddings: "local:all-MiniLM-L6-v2-int8 (/opt/asterism/minilm)", embeddingsFallback: false },
    ...options.status,
  };

  let mcp: McpView_Serialize = options.mcp ?? { servers: [], problem: null, configPath: MCP_CONFIG_PATH };
  const mcpTools = new Map(mcp.servers.map((server) => [server.name, server.tools]));
  const mcpView = () => structuredClone(mcp);
  const mcpServer = (name: string) => {
    const server = mcp.servers.find((s) => s.name === name);
    if (!server) throw { kind: "notFound", message: `no MCP server named ${name}` } satisfies AppError;
    return server;
  };

  // Commands whose answer waits for a promise (`delay`), once each.
  const holds = new Map<string, Promise<void>>();
  const respond = (cmd: string, payload: unknown): unknown => {
      const args = (payload ?? {}) as Record<string, unknown>;
      switch (cmd) {
        case "app_status":
          return status;
        case "sessions_list":
          return options.sessions ?? [];
        case "session_timeline": {
          const items = options.timelines?.[args.sessionId as string];
          if (!items) throw { kind: "notFound", message: "no such session" } satisfies AppError;
          return items;
        }
        case "session_timeline_tail": {
          const items = options.timelines?.[args.sessionId as string];
          if (!items) throw { kind: "notFound", message: "no such session" } satisfies AppError;
          return { total: items.length, items: items.slice(Math.max(0, items.length - (args.count as number))) };
        }
        case "agent_run":
          feeds.push(new ChannelFeed(args.onEvent as Channel<AgentEvent>));
          return options.agentRun ? options.agentRun(args) : "s1";
                case "agent_cancel":
          return true;
        case "permission_answer":
        case "question_answer":
          return true;
        case "session_rename":
        case "session_delete":
        case "library_collect":
          return null;
        case "session_export":
          return options.dialog ? { path: options.dialog[0], bytes: 1234 } : null;
        case "session_import":
          return options.dialog ? (options.importedSession ?? "s-imported") : null;
        case "dialog_language":
          return null;
        // The opener plugin, and the app's commands that open outside it.
        case "plugin:opener|open_url":
        case "library_open_pdf":
        case "library_show_pdf":
          return null;
        case "link_open":
          return options.confirm ?? true;
        case "session_metrics":
          return options.metrics?.[args.sessionId as string] ?? [];
        case "audit_page": {
          const filter = args.filter as Record<string, string | null>;
          const rows = (options.audit ?? []).filter(
            (row) =>
              (!filter.sessionId || row.sessionId === filter.sessionId) &&
              (!filter.tool || row.tool === filter.tool) &&
              (!filter.decision || row.decision === filter.decision) &&
              (!filter.outcome || row.outcome === filter.outcome),
          );
          const offset = args.offset as number;
          const distinct = (key: "tool" | "decision" | "outcome") => [...new Set((options.audit ?? []).map((row) => row[key]))].sort();
          return {
            entries: rows.slice(offset, offset + (args.limit as number)),
            total: rows.length,
            tools: distinct("tool"),
            decisions: distinct("decision"),
            outcomes: distinct("outcome"),
          };
        }
        case "library_list":
          return options.papers ?? [];
        case "library_collections":
          return [{ name: "TRGB", papers: 1 }];
        case "library_figures":
          return options.figures ?? [];
        case "library_paper": {
          const paper = (options.papers ?? []).find((p) => p.id === args.paperId);
          if (!paper) throw { kind: "notFound", message: "That paper is not in the library." } satisfies AppError;
          return { paper, abstractText: "We measure H0.", journal: "ApJ", notes: options.notes ?? [] };
        }
        case "library_import":
        case "library_import_paths": {
          const answered = cmd === "library_import" ? options.dialog != null : (options.confirm ?? true);
          if (!answered) return null;
          const channel = args.onProgress as Channel<ImportEvent>;
          const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
          (options.importEvents ?? []).forEach((message, index) => internals.runCallback(channel.id, { index, message }));
          const summary = { imported: 1, linked: 0, duplicates: 0, metadataOnly: 0, skipped: 0, failed: 0, embedded: 12, indexError: null, stopped: false, done: 1, total: 1 };
          if (!options.importUntilCancelled) return summary;
          const files = (options.importEvents ?? []).filter((event) => event.kind === "file");
          const last = files[files.length - 1];
          return new Promise((resolve) => {
            cancelImport = () => resolve({ ...summary, embedded: null, stopped: true, done: last?.done ?? 0, total: last?.total ?? 0 });
          });
        }
        case "library_background_embedding":
          return options.backgroundEmbedding?.() ?? null;
        case "library_import_cancel": {
          const running = cancelImport !== null;
          cancelImport?.();
          cancelImport = null;
          return running;
        }
        case "library_objects":
          if (options.objectsError) throw options.objectsError;
          return options.objects ?? [];
        case "library_objects_near": {
          const near = { name: args.name as string, radiusArcmin: args.radiusArcmin as number };
          if (!(near.radiusArcmin > 0 && near.radiusArcmin <= 600)) {
            throw { kind: "invalidInput", message: "the radius is above 0 and at most 600 arcmin" } satisfies AppError;
          }
          if (options.objectsNear) return options.objectsNear(near);
          return { center: resolvedTarget(near.name), radiusArcmin: near.radiusArcmin, objects: [] } satisfies NearbyObjects;
        }
        case "library_search":
          return options.passages ?? { hits: [], note: null };
        case "news_today":
          if (options.news) return options.news(args.refresh as boolean);
          return { categories: ["astro-ph.GA"], since: "2026-12-04", fetchedAt: "2026-12-05T08:00:00Z", fromCache: false, notice: null, submissions: 0, comparedBy: "shared words", items: [] } satisfies NewsList_Serialize;
        case "paper_links":
          if (!options.paperLinks) throw { kind: "service", message: "the citation graph comes from ADS, and no ADS_API_TOKEN is set" } satisfies AppError;
          return options.paperLinks(args.id as string, args.link as string);
        case "ads_libraries":
          if (!options.ads?.libraries) throw { kind: "service", message: "ADS libraries need an ADS token, and no ADS_API_TOKEN is set" } satisfies AppError;
          return options.ads.libraries();
        case "ads_pull": {
          const channel = args.onProgress as Channel<AdsPullProgress>;
          const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
          (options.ads?.pullEvents ?? []).forEach((message, index) => internals.runCallback(channel.id, { index, message }));
          if (!options.ads?.pull) throw { kind: "service", message: "no pull answer in this test" } satisfies AppError;
          return options.ads.pull(args.library as string, args.download as boolean);
        }
        case "ads_push": {
          if (!options.ads?.push) throw { kind: "service", message: "no push answer in this test" } satisfies AppError;
          const { collection, to, create, removeMissing } = args as { collection: string; to: string; create: boolean; removeMissing: boolean };
          return options.ads.push({ collection, to, create, removeMissing });
        }
        case "paper_add":
          return { paperId: `added-${String(args.id)}`, title: `Paper ${String(args.id)}`, alreadyPresent: false };
        case "library_export_bib":
          return options.dialog ? { entries: (options.papers ?? []).length, path: options.dialog[0], notes: [] } : null;
        case "note_add":
          return { id: "n1", ...(args.note as object) };
        case "settings_get":
          if (!options.settings) throw new Error("no settings in this test");
          return options.settings;
        case "settings_save": {
          if (options.settingsSave) return options.settingsSave(args);
          if (!options.settings) throw new Error("no settings in this test");
          const values = args.values as { name: string; value: string }[];
          const workspace = values.find((value) => value.name === "ASTERISM_WORKSPACE");
          if (workspace?.value) throw { kind: "invalidInput", message: "The workspace folder is chosen in a folder dialog" } satisfies AppError;
          // As in the app, a saved model configures one (a new object: the UI keeps the old).
          const model = values.find((value) => value.name === "LLM_MODEL")?.value;
          if (model) status = { ...status, model, modelConfigured: true };
          return workspace ? { ...options.settings, workspace: null } : options.settings;
        }
        case "settings_choose_workspace": {
          if (!options.settings) throw new Error("no settings in this test");
          const folder = options.dialog?.[0];
          if (folder === undefined) return null;
          if (folder === "/") throw { kind: "invalidInput", message: "Not saved: the root of the filesystem cannot be the workspace." } satisfies AppError;
          return { ...options.settings, workspace: folder };
        }
        case "setup_local_servers":
          return options.localServers ?? [];
        case "setup_check":
          if (options.setupCheck) return options.setupCheck(args);
          return { url: args.baseUrl as string, ok: true, verdict: "answers (HTTP 200, 12 ms)", models: [] } satisfies EndpointCheck;
        case "about":
          return options.about ?? ABOUT;
        case "license_text": {
          const text = (options.licenses ?? LICENSES)[args.id as string];
          if (text === undefined) throw { kind: "notFound", message: `no licence text ${String(args.id)}` } satisfies AppError;
          return text;
        }
        case "mcp_servers":
          return mcpView();
        case "mcp_add": {
          const name = args.name as string;
          if (!(options.confirm ?? true)) throw { kind: "invalidInput", message: `${name} was not added.` } satisfies AppError;
          const command = args.command as string | null;
          const endpoint = command ? [command, ...(args.args as string[])].join(" ") : (args.url as string);
          const server: McpServerView_Serialize = { name, endpoint, enabled: true, state: "running", why: null, tools: [] };
          mcpTools.set(name, []);
          const servers = mcp.servers.filter((s) => s.name !== name);
          mcp = { ...mcp, servers: [...servers, server].sort((a, b) => a.name.localeCompare(b.name)) };
          return mcpView();
        }
        case "mcp_remove":
          mcpServer(args.name as string);
          mcp = { ...mcp, servers: mcp.servers.filter((s) => s.name !== args.name) };
          return mcpView();
        case "mcp_set_enabled": {
          const name = args.name as string;
          const enabled = args.enabled as boolean;
          const server = mcpServer(name);
          const next: McpServerView_Serialize = enabled
            ? { ...server, enabled, state: "running", why: null, tools: mcpTools.get(name) ?? [] }
            : { ...server, enabled, state: "disabled", why: null, tools: [] };
          mcp = { ...mcp, servers: mcp.servers.map((s) => (s.name === name ? next : s)) };
          return mcpView();
        }
        default:
          throw new Error(`unexpected command ${cmd}`);
      }
  };
  // `convertFileSrc` as on Linux: `pdf://localhost/…`, `figure://localhost/…`.
  mockConvertFileSrc("linux");
  mockIPC(
    (cmd, payload) => {
      calls.push({ cmd, args: (payload ?? {}) as Record<string, unknown> });
      const hold = holds.get(cmd);
      if (!hold) return respond(cmd, payload);
      holds.delete(cmd);
      return hold.then(() => respond(cmd, payload));
    },
    { shouldMockEvents: true },
  );

  return {
    calls,
    feeds,
    callsTo: (cmd: string) => calls.filter((call) => call.cmd === cmd),
    /** The next call of `cmd` is answered once `until` resolves. */
    delay: (cmd: string, until: Promise<void>) => holds.set(cmd, until),
    lastFeed: () => {
      const feed = feeds[feeds.length - 1];
      if (!feed) throw new Error("agent_run was not called");
      return feed;
    },
  };
}

const usage = { promptTokens: 10, completionTokens: 5, reasoningTokens: 0 };

/** Event builders for a run of session `s1`. */
export const ev = {
  started: (question: string, sessionId = "s1"): AgentEvent => ({
    type: "RunStarted",
    runId: "r1",
    sessionId,
    question,
    model: "test-model",
    startedAt: "2026-12-02T20:00:00Z",
  }),
  thinking: (delta: string, step = 1): AgentEvent => ({ type: "Thinking", delta, step, agentName: "main" }),
  text: (delta: string, step = 2): AgentEvent => ({ type: "TextDelta", delta, step, agentName: "main" }),
  finished: (reason: "completed" | "failed" | "cancelled" = "completed", sessionId = "s1"): AgentEvent => ({
    type: "RunFinished",
    sessionId,
    reason,
    usage,
    steps: 2,
    finishedAt: "2026-12-02T20:00:05Z",
  }),
};
