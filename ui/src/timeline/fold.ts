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
    default:
      return items;
  }
}

/** Folds a whole event sequence, as replay from stored events would. */
export function foldEvents(events: AgentEvent[], start: TimelineItem[] = []): TimelineItem[] {
  return events.reduce(applyEvent, start);
}
