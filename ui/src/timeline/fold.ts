import type { AgentEvent, TimelineItem } from "../bindings";

/**
 * Folds one AgentEvent into the timeline, mirroring the Rust `Timeline::apply`
 * (crates/protocol/src/timeline.rs); `fold.test.ts` checks both against a shared fixture.
 *
 * Pure: returns a new array (unchanged items are reused); the input is never mutated.
 */
export function applyEvent(items: TimelineItem[], event: AgentEvent): TimelineItem[] {
  const id = `item-${items.length}`;
  switch (event.type) {
    case "RunStarted":
      return [...items, { kind: "user", id, text: event.question }];
    case "Thinking":
    case "TextDelta": {
      const kind = event.type === "Thinking" ? "thinking" : "text";
      const last = items[items.length - 1];
      if (
        last !== undefined &&
        last.kind === kind &&
        last.step === event.step &&
        last.agentName === event.agentName
      ) {
        return [...items.slice(0, -1), { ...last, text: last.text + event.delta }];
      }
      return [
        ...items,
        { kind, id, step: event.step, agentName: event.agentName, text: event.delta },
      ];
    }
    case "ToolCall":
      return [
        ...items,
        {
          kind: "tool-call",
          id,
          toolCallId: event.toolCallId,
          step: event.step,
          agentName: event.agentName,
          name: event.name,
          arguments: event.arguments,
        },
      ];
    case "ToolResult":
      return [
        ...items,
        {
          kind: "tool-result",
          id,
          toolCallId: event.toolCallId,
          step: event.step,
          agentName: event.agentName,
          name: event.name,
          output: event.output,
          isError: event.isError,
          metadata: event.metadata,
          durationMs: event.durationMs,
        },
      ];
    case "Error":
      return [
        ...items,
        { kind: "error", id, step: event.step, errorKind: event.kind, message: event.message },
      ];
    case "Notice":
      return [
        ...items,
        { kind: "notice", id, step: event.step, noticeKind: event.kind, message: event.message },
      ];
    case "Compacted":
      return [
        ...items,
        {
          kind: "notice",
          id,
          step: event.step,
          noticeKind: "compaction",
          message: `Context compacted (${event.kind}): about ${event.tokensBefore} → ${event.tokensAfter} tokens`,
        },
      ];
    case "TodoUpdated":
      return [...items, { kind: "todos", id, agentName: event.agentName, todos: event.todos }];
    case "SubagentStarted":
      return [
        ...items,
        {
          kind: "subagent",
          id,
          agentName: event.agentName,
          parent: event.parent,
          task: event.task,
          summary: null,
          reason: null,
          steps: 0,
        },
      ];
    case "SubagentFinished": {
      // The latest unfinished item of that subagent.
      for (let index = items.length - 1; index >= 0; index -= 1) {
        const item = items[index];
        if (item.kind === "subagent" && item.summary === null && item.agentName === event.agentName) {
          const finished: TimelineItem = {
            ...item,
            summary: event.summary,
            reason: event.reason,
            steps: event.steps,
          };
          return [...items.slice(0, index), finished, ...items.slice(index + 1)];
        }
      }
      return items;
    }
    default:
      return items;
  }
}

/** Folds a whole event sequence, as replay from stored events would. */
export function foldEvents(events: AgentEvent[], start: TimelineItem[] = []): TimelineItem[] {
  return events.reduce(applyEvent, start);
}
