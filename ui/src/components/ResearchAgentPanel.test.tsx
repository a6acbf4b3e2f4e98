import { Channel } from "@tauri-apps/api/core";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { AgentEvent, SessionSummary, TimelineItem } from "../bindings";
import { App } from "../App";
import { ev, mockBackend } from "../test/backend";

const ngc4258 = {
  query: "NGC 4258",
  name: "M 106",
  raDeg: 184.7400833,
  decDeg: 47.3037222,
  raSexagesimal: "12:18:57.62",
  decSexagesimal: "+47:18:13.4",
  objectType: "LIN",
  objectTypeLabel: "LINER-type active galaxy nucleus",
  morphology: "SAB(s)bc",
  redshift: 0.00149,
  velocityKms: 448,
  aliases: ["M 106", "NGC 4258", "UGC 7353", "PGC 39600", "MCG+08-23-011", "IRAS 12164+4735"],
  resolver: "Simbad",
};

const toolCall: AgentEvent = {
  type: "ToolCall",
  id: "e1",
  toolCallId: "call_1",
  name: "query_target",
  arguments: { name: "NGC 4258" },
  step: 1,
  agentName: "main",
};

const toolResult: AgentEvent = {
  type: "ToolResult",
  id: "e2",
  toolCallId: "call_1",
  name: "query_target",
  output: "M 106 (LIN) at RA 12:18:57.62, Dec +47:18:13.4 (Simbad)",
  isError: false,
  metadata: ngc4258,
  step: 1,
  durationMs: 240,
  agentName: "main",
};

const sessions: SessionSummary[] = [
  {
    id: "s-old",
    title: "Where is M 31?",
    createdAt: "2026-11-30T09:00:00Z",
    updatedAt: "2026-11-30T09:05:00Z",
    messageCount: 4,
    model: "test-model",
    summary: null,
  },
];

const m31Timeline: TimelineItem[] = [
  { kind: "user", id: "item-0", text: "Where is M 31?" },
  { kind: "text", id: "item-1", step: 1, agentName: "main", text: "M 31 is at 00:42:44.3 +41:16:09." },
];

const items = () => screen.queryAllByTestId("timeline-item");
const kinds = () => items().map((item) => item.dataset.kind);

async function ask(question: string) {
  const user = userEvent.setup();
  await user.type(screen.getByTestId("question-input"), question);
  await user.click(screen.getByTestId("send-button"));
  return user;
}

describe("ResearchAgentPanel", () => {
  it("streams a run into the timeline: thinking, tool call, target card, answer", async () => {
    const backend = mockBackend();
    render(<App />);
    await ask("Where is NGC 4258?");

    await waitFor(() => expect(backend.callsTo("agent_run")).toHaveLength(1));
    const { args } = backend.callsTo("agent_run")[0];
    expect(args).toMatchObject({ question: "Where is NGC 4258?", sessionId: null, enableThinking: false });
    expect(args.onEvent).toBeInstanceOf(Channel);

    // While running: input and send are disabled, Cancel is offered.
    expect(screen.getByTestId("send-button")).toBeDisabled();
    expect(screen.getByTestId("question-input")).toBeDisabled();
    expect(screen.getByTestId("cancel-button")).toBeInTheDocument();

    const feed = backend.lastFeed();
    await feed.send(ev.started("Where is NGC 4258?"), ev.thinking("Resolve "), ev.thinking("the name."));
    expect(kinds()).toEqual(["user", "thinking"]);
    expect(items()[0]).toHaveTextContent("Where is NGC 4258?");
    expect(items()[1].querySelector("details")).toHaveAttribute("open");

    await feed.send(toolCall, toolResult);
    const call = items()[2];
    expect(call.dataset.kind).toBe("tool-call");
    expect(call).toHaveTextContent("query_target");
    expect(within(call).getByLabelText("Arguments of query_target").textContent).toBe(
      JSON.stringify({ name: "NGC 4258" }, null, 2),
    );
    // The thinking collapsed once something followed it.
    expect(items()[1].querySelector("details")).not.toHaveAttribute("open");

    const card = within(items()[3]).getByTestId("target-card");
    // Titled with the name asked; Sesame's main identifier, morphology and redshift below.
    expect(within(card).getByRole("heading")).toHaveTextContent("NGC 4258");
    expect(within(card).getByTestId("target-main-id")).toHaveTextContent("M 106");
    expect(within(card).getByTestId("target-morphology")).toHaveTextContent("SAB(s)bc");
    expect(within(card).getByTestId("target-redshift")).toHaveTextContent("0.00149 (448 km/s)");
    expect(card).toHaveTextContent("12:18:57.62");
    expect(card).toHaveTextContent("+47:18:13.4");
    expect(card).toHaveTextContent("184.74008°");
    expect(card).toHaveTextContent("47.30372°");
    expect(card).toHaveTextContent("LINER-type active galaxy nucleus");
    expect(card).toHaveTextContent("Simbad");
    expect(card).not.toHaveTextContent("IRAS 12164+4735");
    await userEvent.setup().click(within(card).getByRole("button", { name: "Show all 6" }));
    expect(card).toHaveTextContent("IRAS 12164+4735");

    await feed.send(ev.text("NGC 4258 is M 106, "), ev.text("a LINER galaxy in Canes Venatici."));
    expect(kinds()).toEqual(["user", "thinking", "tool-call", "tool-result", "text"]);
    expect(items()[4]).toHaveTextContent("NGC 4258 is M 106, a LINER galaxy in Canes Venatici.");

    const listCallsBefore = backend.callsTo("sessions_list").length;
    await feed.send(ev.finished());
    expect(screen.queryByTestId("cancel-button")).not.toBeInTheDocument();
    expect(screen.getByTestId("question-input")).toBeEnabled();
    await waitFor(() => expect(backend.callsTo("sessions_list").length).toBe(listCallsBefore + 1));
  });

  it("continues the same session with a follow-up, and New session starts afresh", async () => {
    const backend = mockBackend();
    render(<App />);
    await ask("Where is NGC 4258?");
    await waitFor(() => expect(backend.feeds).toHaveLength(1));
    await backend.lastFeed().send(ev.started("Where is NGC 4258?"), ev.text("M 106."), ev.finished());

    await ask("How far away is it?");
    await waitFor(() => expect(backend.feeds).toHaveLength(2));
    expect(backend.callsTo("agent_run")[1].args.sessionId).toBe("s1");
    await backend.lastFeed().send(ev.started("How far away is it?"), ev.text("7.6 Mpc.", 3), ev.finished());
    expect(kinds()).toEqual(["user", "text", "user", "text"]);

    await userEvent.setup().click(screen.getByTestId("new-session"));
    expect(items()).toHaveLength(0);
    await ask("Where is M 51?");
    await waitFor(() => expect(backend.feeds).toHaveLength(3));
    expect(backend.callsTo("agent_run")[2].args.sessionId).toBeNull();
  });

  it("replays a session from the list and continues it", async () => {
    const backend = mockBackend({ sessions, timelines: { "s-old": m31Timeline } });
    render(<App />);
    const entry = await screen.findByTestId("session-entry");
    expect(entry).toHaveAttribute("data-session-id", "s-old");
    expect(entry).toHaveTextContent("Where is M 31?");

    await userEvent.setup().click(within(entry).getByRole("button"));
    await waitFor(() => expect(kinds()).toEqual(["user", "text"]));
    expect(items()[1]).toHaveTextContent("M 31 is at 00:42:44.3 +41:16:09.");
    expect(backend.callsTo("session_timeline_tail")[0].args).toEqual({ sessionId: "s-old", count: 300 });
    // The tail was the whole session: nothing more to fetch.
    expect(backend.callsTo("session_timeline")).toHaveLength(0);
    expect(backend.callsTo("agent_run")).toHaveLength(0);

    await ask("And its distance?");
    await waitFor(() => expect(backend.callsTo("agent_run")).toHaveLength(1));
    expect(backend.callsTo("agent_run")[0].args.sessionId).toBe("s-old");
  });

  it("opens a long session at its end, then fills in its start; a question waits for it", async () => {
    const long: TimelineItem[] = Array.from({ length: 1000 }, (_, index) =>
      index % 2 === 0
        ? { kind: "user", id: `item-${index}`, text: `Question ${index}` }
        : { kind: "text", id: `item-${index}`, step: 1, agentName: "main", text: `Answer ${index}` },
    );
    const backend = mockBackend({ sessions, timelines: { "s-old": long } });
    // Hold the whole list back until the test lets it go.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    backend.delay("session_timeline", held);
    render(<App />);
    await userEvent.setup().click(within(await screen.findByTestId("session-entry")).getByRole("button"));
    const timeline = screen.getByTestId("timeline");
    await waitFor(() => expect(timeline).toHaveAttribute("data-count", "1000"));
    expect(timeline).toHaveAttribute("data-pending", "700");
    // (What the rows show is checked in the browser test: jsdom lays nothing out.)

    await ask("And the first one?");
    expect(backend.callsTo("agent_run")).toHaveLength(0);
    release();
    await waitFor(() => expect(timeline).toHaveAttribute("data-pending", "0"));
    await waitFor(() => expect(backend.callsTo("agent_run")).toHaveLength(1));
    expect(timeline).toHaveAttribute("data-count", "1000");
  });

  it("renders an Error event as an error item", async () => {
    const backend = mockBackend();
    render(<App />);
    await ask("Where is NGC 4258?");
    await waitFor(() => expect(backend.feeds).toHaveLength(1));
    await backend.lastFeed().send(
      ev.started("Where is NGC 4258?"),
      { type: "Error", kind: "model", message: "The model endpoint answered 502 Bad Gateway", step: 1 },
      ev.finished("failed"),
    );
    expect(kinds()).toEqual(["user", "error"]);
    const error = items()[1];
    expect(within(error).getByRole("alert")).toHaveTextContent("502 Bad Gateway");
    expect(error).toHaveTextContent("model");
    expect(screen.getByTestId("send-button")).toHaveTextContent("Send");
  });

  it("marks failed tool results", async () => {
    const backend = mockBackend();
    render(<App />);
    await ask("Where is Foo 1?");
    await waitFor(() => expect(backend.feeds).toHaveLength(1));
    await backend.lastFeed().send(ev.started("Where is Foo 1?"), toolCall, {
      ...toolResult,
      output: "Sesame found no object named Foo 1",
      isError: true,
      metadata: null,
    });
    const result = items()[2];
    expect(result).toHaveTextContent("Tool failed");
    expect(result).toHaveTextContent("Sesame found no object named Foo 1");
    expect(within(result).queryByTestId("target-card")).not.toBeInTheDocument();
  });

  it("shows a command error and gives the question back", async () => {
    mockBackend({
      agentRun: () => {
        throw { kind: "busy", message: "A run is already in progress" };
      },
    });
    render(<App />);
    await ask("Where is NGC 4258?");
    expect(await screen.findByTestId("error-toast")).toHaveTextContent("A run is already in progress");
    expect(screen.getByTestId("question-input")).toHaveValue("Where is NGC 4258?");
    expect(screen.getByTestId("send-button")).toBeEnabled();
  });

  it("asks for permission with the full arguments and sends the answer", async () => {
    const backend = mockBackend();
    render(<App />);
    const user = userEvent.setup();
    await user.type(await screen.findByTestId("question-input"), "Save the coordinates");
    await user.click(screen.getByTestId("send-button"));
    await waitFor(() => expect(backend.feeds.length).toBe(1));
    await backend.lastFeed().send(
      { type: "RunStarted", runId: "r1", sessionId: "s1", question: "Save the coordinates", model: "test-model", startedAt: "2026-12-02T20:00:00Z" },
      { type: "PermissionRequest", requestId: "perm_1", toolCallId: "call_9", tool: "file_write", arguments: { path: "notes/ngc4258.md", text: "12:18:57.62 +47:18:13.4" }, reason: "file_write changes files or data", grants: [{ kind: "tool", rule: "file_write", text: "file_write" }] },
    );
    const card = await screen.findByTestId("permission-card");
    expect(card).toHaveTextContent("Allow file_write?");
    expect(card).toHaveTextContent("notes/ngc4258.md");
    await user.click(within(card).getByRole("button", { name: "Allow for this session" }));
    await waitFor(() => expect(backend.callsTo("permission_answer")).toHaveLength(1));
    expect(backend.callsTo("permission_answer")[0].args).toEqual({ requestId: "perm_1", decision: "allowSession", reason: null, rule: "file_write" });
    expect(screen.queryByTestId("permission-card")).not.toBeInTheDocument();
  });

  it("lets the user grant a command prefix instead of the exact command", async () => {
    const backend = mockBackend();
    render(<App />);
    const user = await ask("What changed in the repository?");
    await waitFor(() => expect(backend.feeds.length).toBe(1));
    await backend.lastFeed().send({
      type: "PermissionRequest",
      requestId: "perm_3",
      toolCallId: "c3",
      tool: "run_bash",
      arguments: { command: "git status --short" },
      reason: "run_bash runs a shell command",
      grants: [
        { kind: "exact", rule: "run_bash(=git status --short)", text: "git status --short" },
        { kind: "prefix", rule: "run_bash(git status)", text: "git status" },
      ],
    });
    const card = await screen.findByTestId("permission-card");
    // The narrowest grant is picked first, and the card says what it covers.
    expect(within(card).getByTestId("permission-grant-exact")).toBeChecked();
    expect(within(card).getByTestId("permission-grant-text")).toHaveTextContent("this exact command: git status --short");
    await user.click(within(card).getByTestId("permission-grant-prefix"));
    expect(within(card).getByTestId("permission-grant-text")).toHaveTextContent("commands starting with “git status”");
    await user.click(within(card).getByTestId("permission-allow-always"));
    await waitFor(() => expect(backend.callsTo("permission_answer")).toHaveLength(1));
    expect(backend.callsTo("permission_answer")[0].args).toEqual({ requestId: "perm_3", decision: "allowAlways", reason: null, rule: "run_bash(git status)" });
  });

  it("offers only 'once' and 'deny' when the request has no grants", async () => {
    const backend = mockBackend();
    render(<App />);
    const user = await ask("Add a hook");
    await waitFor(() => expect(backend.feeds.length).toBe(1));
    await backend.lastFeed().send({
      type: "PermissionRequest",
      requestId: "perm_4",
      toolCallId: "c4",
      tool: "file_write",
      arguments: { path: ".git/hooks/pre-commit", text: "#!/bin/sh" },
      reason: "a hook runs code later",
      grants: [],
    });
    const card = await screen.findByTestId("permission-card");
    const buttons = within(card).getAllByRole("button").map((button) => button.dataset.testid);
    expect(buttons).toEqual(["permission-allow-once", "permission-deny"]);
    expect(within(card).queryByTestId("permission-grants")).not.toBeInTheDocument();
    expect(within(card).getByTestId("permission-once-only")).toHaveTextContent("only be allowed once");
    await user.click(within(card).getByTestId("permission-allow-once"));
    await waitFor(() => expect(backend.callsTo("permission_answer")).toHaveLength(1));
    expect(backend.callsTo("permission_answer")[0].args).toEqual({ requestId: "perm_4", decision: "allowOnce", reason: null, rule: null });
  });

  it("shows the grant choice in Chinese", async () => {
    const backend = mockBackend();
    render(<App />);
    const user = await ask("git log");
    await user.click(screen.getByTestId("toggle-language"));
    await waitFor(() => expect(backend.feeds.length).toBe(1));
    await backend.lastFeed().send({
      type: "PermissionRequest", requestId: "perm_5", toolCallId: "c5", tool: "run_bash", arguments: { command: "git log -3" }, reason: "",
      grants: [
        { kind: "exact", rule: "run_bash(=git log -3)", text: "git log -3" },
        { kind: "prefix", rule: "run_bash(git log)", text: "git log" },
      ],
    });
    const card = await screen.findByTestId("permission-card");
    expect(within(card).getByTestId("permission-grants")).toHaveTextContent("以“git log”开头的命令");
    expect(within(card).getByTestId("permission-grant-text")).toHaveTextContent("仅此命令：git log -3");
    await user.click(screen.getByTestId("toggle-language"));
  });

  it("exports and imports session bundles through the app's own dialogs", async () => {
    const backend = mockBackend({
      sessions,
      timelines: { "s-old": m31Timeline, "s-imported": m31Timeline },
      dialog: ["/home/astro/m31.asterism.json"],
    });
    render(<App />);
    const user = userEvent.setup();
    await user.click(within(await screen.findByTestId("session-entry")).getByRole("button"));
    await user.click(await screen.findByTestId("session-export"));
    await waitFor(() => expect(backend.callsTo("session_export")).toHaveLength(1));
    // The webview names the session only; the app asks where to write it.
    expect(backend.callsTo("session_export")[0].args).toEqual({ sessionId: "s-old" });
    await user.click(screen.getByTestId("session-import"));
    await waitFor(() => expect(backend.callsTo("session_timeline")).toHaveLength(1));
    expect(backend.callsTo("session_import")[0].args).toEqual({});
    expect(backend.callsTo("session_timeline")[0].args).toEqual({ sessionId: "s-imported" });
    expect(backend.calls.some((call) => call.cmd.startsWith("plugin:dialog"))).toBe(false);
  });

  it("denies with the reason the agent will see", async () => {
    const backend = mockBackend();
    render(<App />);
    const user = userEvent.setup();
    await user.type(await screen.findByTestId("question-input"), "Run it");
    await user.click(screen.getByTestId("send-button"));
    await waitFor(() => expect(backend.feeds.length).toBe(1));
    await backend.lastFeed().send({ type: "PermissionRequest", requestId: "perm_2", toolCallId: "c", tool: "run_bash", arguments: { command: "rm -rf data" }, reason: "run_bash runs a command", grants: [] });
    const card = await screen.findByTestId("permission-card");
    await user.type(within(card).getByLabelText("Reason for denying"), "never delete data");
    await user.click(within(card).getByRole("button", { name: "Deny" }));
    await waitFor(() => expect(backend.callsTo("permission_answer")).toHaveLength(1));
    expect(backend.callsTo("permission_answer")[0].args).toEqual({ requestId: "perm_2", decision: "deny", reason: "never delete data", rule: null });
  });

  it("cancels the running session", async () => {
    const backend = mockBackend();
    render(<App />);
    const user = await ask("Survey the Virgo cluster");
    await waitFor(() => expect(backend.feeds).toHaveLength(1));
    await backend.lastFeed().send(ev.started("Survey the Virgo cluster"));
    await user.click(screen.getByTestId("cancel-button"));
    await waitFor(() => expect(backend.callsTo("agent_cancel")).toHaveLength(1));
    expect(backend.callsTo("agent_cancel")[0].args).toEqual({ sessionId: "s1" });
    await backend.lastFeed().send(ev.finished("cancelled"));
    expect(screen.queryByTestId("cancel-button")).not.toBeInTheDocument();
  });

  it("sends on Enter, not on Shift+Enter, and passes the thinking toggle", async () => {
    const backend = mockBackend();
    render(<App />);
    const user = userEvent.setup();
    const toggle = await screen.findByTestId("thinking-toggle");
    await user.click(toggle);
    const input = screen.getByTestId("question-input");
    await user.type(input, "Line one{Shift>}{Enter}{/Shift}line two");
    expect(backend.callsTo("agent_run")).toHaveLength(0);
    await user.type(input, "{Enter}");
    await waitFor(() => expect(backend.callsTo("agent_run")).toHaveLength(1));
    expect(backend.callsTo("agent_run")[0].args).toMatchObject({
      question: "Line one\nline two",
      enableThinking: true,
    });
    expect(input).toHaveValue("");
  });

  it("explains how to configure a model when none is, while replay still works", async () => {
    mockBackend({
      status: { modelConfigured: false, thinkingSupported: false, model: "" },
      sessions,
      timelines: { "s-old": m31Timeline },
    });
    render(<App />);
    const notice = await screen.findByTestId("config-notice");
    expect(notice).toHaveTextContent("No language model is configured");
    for (const name of ["LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY", ".env"]) {
      expect(notice).toHaveTextContent(name);
    }
    expect(notice).toHaveTextContent("/home/astro/.local/share/asterism");
    expect(screen.queryByTestId("thinking-toggle")).not.toBeInTheDocument();

    await userEvent.setup().click(within(await screen.findByTestId("session-entry")).getByRole("button"));
    await waitFor(() => expect(kinds()).toEqual(["user", "text"]));
  });
});
