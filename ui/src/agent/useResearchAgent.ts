import { Channel } from "@tauri-apps/api/core";
import { useCallback, useEffect, useRef, useState } from "react";
import {
  commands,
  type AgentEvent,
  type AppError,
  type AppStatus,
  type PermissionDecision,
  type SessionSummary,
  type TimelineItem,
} from "../bindings";
import { applyEvent } from "../timeline/fold";

/** A permission request as the live run sent it. */
export type PermissionRequestEvent = Extract<AgentEvent, { type: "PermissionRequest" }>;
/** A question of the agent (ask_user) waiting for the user. */
export type AskUserEvent = Extract<AgentEvent, { type: "AskUser" }>;

/** Turns whatever a command rejected with into a sentence for the user. */
function describe(error: AppError | unknown): string {
  if (error && typeof error === "object" && "message" in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}

export type ResearchAgent = {
  status: AppStatus | null;
  sessions: SessionSummary[];
  sessionId: string | null;
  items: TimelineItem[];
  /** Items before `items` still on their way (a long session opens at its end first). */
  before: number;
  running: boolean;
  /** The last failure of a command (not an agent `Error` event, which is a timeline item). */
    notice: string | null;
  dismissNotice: () => void;
  /** Permission requests of the live run waiting for the user. */
  permissions: PermissionRequestEvent[];
  /** `rule` is the picked grant's rule for "this session"/"always" (`null`: the first). */
  answerPermission: (requestId: string, decision: PermissionDecision, reason: string | null, rule: string | null) => Promise<void>;
  /** The agent's questions (ask_user) waiting for an answer. */
  questions: AskUserEvent[];
  answerQuestion: (requestId: string, answer: string) => Promise<void>;
  /** Filters the history by title or summary ("" shows everything). */
  searchSessions: (query: string) => void;
  sessionQuery: string;
  renameSession: (id: string, title: string) => Promise<void>;
  deleteSession: (id: string) => Promise<void>;
  /** Asks where to save (a native dialog, opened by the app); false when cancelled or failed. */
  exportSession: (id: string) => Promise<boolean>;
  /** Asks for a bundle (a native dialog, opened by the app), stores it and opens it. */
  importSession: () => Promise<void>;
  refreshStatus: () => Promise<void>;
  send: (question: string, enableThinking: boolean) => Promise<boolean>;
  cancel: () => Promise<void>;
  openSession: (id: string) => Promise<void>;
  newSession: () => void;
};

/**
 * Resolves once the next frame is on screen: a frame's callbacks run before it is drawn,
 * so the one after them marks the drawing done (and a timer after that, its presentation).
 * A hidden window draws no frames, so a timer resolves it too.
 */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)));
    setTimeout(resolve, 500);
  });
}

/** How many items of a long session are shown before the rest has arrived. */
const TAIL = 300;

/** State and commands of the research panel: one live run at a time, plus replay. */
export function useResearchAgent(): ResearchAgent {
  const [status, setStatus] = useState<AppStatus | null>(null);
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [items, setItems] = useState<TimelineItem[]>([]);
  const [before, setBefore] = useState(0);
  // The rest of a long session being fetched: a new question waits for it.
  const rest = useRef<Promise<void> | null>(null);
  const [running, setRunning] = useState(false);
    const [notice, setNotice] = useState<string | null>(null);
  const [permissions, setPermissions] = useState<PermissionRequestEvent[]>([]);
  const [questions, setQuestions] = useState<AskUserEvent[]>([]);
  const [sessionQuery, setSessionQuery] = useState("");
  const query = useRef("");
  // Bumped whenever the timeline is replaced, so late answers for an older view are dropped.
  const view = useRef(0);

  const refreshSessions = useCallback(async () => {
    try {
      const result = await commands.sessionsList(query.current.trim() || null);
      if (result.status === "ok") setSessions(result.data);
      else setNotice(`Could not load sessions: ${describe(result.error)}`);
    } catch (error) {
      setNotice(`Could not load sessions: ${describe(error)}`);
    }
  }, []);

  const refreshStatus = useCallback(async () => {
    try {
      const result = await commands.appStatus();
      if (result.status === "ok") setStatus(result.data);
    } catch (error) {
      setNotice(describe(error));
    }
  }, []);

  useEffect(() => {
    let alive = true;
    commands
      .appStatus()
      .then((result) => {
        if (!alive) return;
        if (result.status === "ok") setStatus(result.data);
        else setNotice(`Could not read the app status: ${describe(result.error)}`);
      })
      .catch((error: unknown) => alive && setNotice(describe(error)));
    void refreshSessions();
    return () => {
      alive = false;
    };
  }, [refreshSessions]);

  const send = useCallback(
    async (question: string, enableThinking: boolean) => {
      const text = question.trim();
      if (!text || running) return false;
      if (rest.current) await rest.current;
      const run = ++view.current;
      setRunning(true);
      setNotice(null);

      const channel = new Channel<AgentEvent>();
      channel.onmessage = (event) => {
        if (run !== view.current) return;
                setItems((previous) => applyEvent(previous, event));
        if (event.type === "RunStarted") setSessionId(event.sessionId);
        if (event.type === "PermissionRequest") setPermissions((previous) => [...previous, event]);
        if (event.type === "AskUser") setQuestions((previous) => [...previous, event]);
        if (event.type === "ToolResult") {
          setPermissions((previous) => previous.filter((request) => request.toolCallId !== event.toolCallId));
          // An unanswered question timed out: its tool result says so.
          if (event.name === "ask_user") setQuestions([]);
        }
        if (event.type === "RunFinished") {
          setSessionId(event.sessionId);
          setRunning(false);
          setPermissions([]);
          setQuestions([]);
          void refreshSessions();
        }
      };

      try {
        const result = await commands.agentRun(text, sessionId, enableThinking, channel);
        if (run !== view.current) return true;
        if (result.status === "ok") {
          setSessionId(result.data);
          return true;
        }
        setNotice(describe(result.error));
      } catch (error) {
        if (run === view.current) setNotice(describe(error));
      }
      if (run === view.current) setRunning(false);
      return false;
    },
    [running, sessionId, refreshSessions],
  );

  const answerPermission = useCallback(async (requestId: string, decision: PermissionDecision, reason: string | null, rule: string | null) => {
    setPermissions((previous) => previous.filter((request) => request.requestId !== requestId));
    try {
      const result = await commands.permissionAnswer(requestId, decision, reason, rule);
      if (result.status === "error") setNotice(describe(result.error));
      else if (!result.data) setNotice("That permission request had already expired.");
    } catch (error) {
      setNotice(describe(error));
    }
  }, []);

  const answerQuestion = useCallback(async (requestId: string, answer: string) => {
    setQuestions((previous) => previous.filter((question) => question.requestId !== requestId));
    try {
      const result = await commands.questionAnswer(requestId, answer);
      if (result.status === "error") setNotice(describe(result.error));
      else if (!result.data) setNotice("That question had already expired.");
    } catch (error) {
      setNotice(describe(error));
    }
  }, []);

  const searchSessions = useCallback(
    (text: string) => {
      query.current = text;
      setSessionQuery(text);
      void refreshSessions();
    },
    [refreshSessions],
  );

  const renameSession = useCallback(
    async (id: string, title: string) => {
      const result = await commands.sessionRename(id, title);
      if (result.status === "error") setNotice(describe(result.error));
      await refreshSessions();
    },
    [refreshSessions],
  );

  const exportSession = useCallback(async (id: string) => {
    try {
      const result = await commands.sessionExport(id);
      if (result.status === "ok") return result.data !== null;
      setNotice(describe(result.error));
    } catch (error) {
      setNotice(describe(error));
    }
    return false;
  }, []);

  const importSession = useCallback(
    async () => {
      let result;
      try {
        result = await commands.sessionImport();
      } catch (error) {
        setNotice(describe(error));
        return;
      }
      if (result.status === "error") {
        setNotice(describe(result.error));
        return;
      }
      if (result.data === null) return;
      await refreshSessions();
      const imported = result.data;
      const timeline = await commands.sessionTimeline(imported);
      if (timeline.status === "ok" && !running) {
        view.current++;
        setItems(timeline.data);
        setBefore(0);
        setSessionId(imported);
      }
    },
    [refreshSessions, running],
  );

  const cancel = useCallback(async () => {
    if (!sessionId) return;
    try {
      const result = await commands.agentCancel(sessionId);
      if (result.status === "error") setNotice(describe(result.error));
      // Nothing was running on the backend: don't leave the panel stuck.
      else if (!result.data) setRunning(false);
    } catch (error) {
      setNotice(describe(error));
    }
  }, [sessionId]);

  // Switching views mid-run would orphan the live channel, so both wait for the run to end.
  // A long session shows its last TAIL items first, then the whole list replaces them.
  const openSession = useCallback(async (id: string) => {
    if (running) return;
    const request = ++view.current;
    setNotice(null);
    try {
      const result = await commands.sessionTimelineTail(id, TAIL);
      // Lets tests split a replay's time between the command and the render.
      performance.mark("asterism:timeline-loaded");
      if (request !== view.current) return;
      if (result.status !== "ok") {
        setNotice(`Could not open the session: ${describe(result.error)}`);
        return;
      }
      const { total, items: tail } = result.data;
      setItems(tail);
      setBefore(total - tail.length);
      setSessionId(id);
      if (total <= tail.length) return;
      // The start is fetched once the end is on screen: parsing and laying out the whole
      // list any earlier would hold back the first paint.
      const whole = afterPaint()
        .then(() => (request === view.current ? commands.sessionTimeline(id) : null))
        .then((full) => {
          if (!full || request !== view.current) return;
          performance.mark("asterism:timeline-full");
          if (full.status === "ok") setItems(full.data);
          else setNotice(`Could not read the start of the session: ${describe(full.error)}`);
          setBefore(0);
        })
        .catch((error: unknown) => {
          if (request !== view.current) return;
          setNotice(describe(error));
          setBefore(0);
        })
        .finally(() => {
          if (rest.current === whole) rest.current = null;
        });
      rest.current = whole;
    } catch (error) {
      if (request === view.current) setNotice(describe(error));
    }
  }, [running]);

  const newSession = useCallback(() => {
    if (running) return;
    view.current++;
    setItems([]);
    setBefore(0);
    setSessionId(null);
    setNotice(null);
  }, [running]);

  const deleteSession = useCallback(
    async (id: string) => {
      const result = await commands.sessionDelete(id);
      if (result.status === "error") {
        setNotice(describe(result.error));
        return;
      }
      if (id === sessionId) newSession();
      await refreshSessions();
    },
    [sessionId, newSession, refreshSessions],
  );

  return {
    status,
    sessions,
    sessionId,
    items,
    before,
    running,
    notice,
        dismissNotice: () => setNotice(null),
    permissions,
    answerPermission,
    questions,
    answerQuestion,
    searchSessions,
    sessionQuery,
    renameSession,
    deleteSession,
    exportSession,
    importSession,
    refreshStatus,
    send,
    cancel,
    openSession,
    newSession,
  };
}
