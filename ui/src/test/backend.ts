import { Channel } from "@tauri-apps/api/core";
import { mockIPC } from "@tauri-apps/api/mocks";
import { act } from "@testing-library/react";
import type { AgentEvent, AppError, AppStatus, SessionSummary, TimelineItem } from "../bindings";

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
};

/** A fake backend over `mockIPC`: records every call and exposes the live channels. */
export function mockBackend(options: BackendOptions = {}) {
  const calls: Call[] = [];
  const feeds: ChannelFeed[] = [];
  const status: AppStatus = {
    model: "test-model",
    modelConfigured: true,
    thinkingSupported: true,
    dataDir: "/home/astro/.local/share/asterism",
    ...options.status,
  };

  mockIPC(
    (cmd, payload) => {
      const args = (payload ?? {}) as Record<string, unknown>;
      calls.push({ cmd, args });
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
        case "agent_run":
          feeds.push(new ChannelFeed(args.onEvent as Channel<AgentEvent>));
          return options.agentRun ? options.agentRun(args) : "s1";
                case "agent_cancel":
          return true;
        case "permission_answer":
          return true;
        default:
          throw new Error(`unexpected command ${cmd}`);
      }
    },
    { shouldMockEvents: true },
  );

  return {
    calls,
    feeds,
    callsTo: (cmd: string) => calls.filter((call) => call.cmd === cmd),
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
