import { describe, expect, it } from "vitest";
import type { AgentEvent, TimelineItem } from "../bindings";
import fixture from "./fold.fixture.json";
import { applyEvent, foldEvents } from "./fold";

const events = fixture.events as AgentEvent[];
const items = fixture.items as TimelineItem[];

describe("timeline fold", () => {
  it("matches the Rust fold on the shared fixture", () => {
    expect(foldEvents(events)).toEqual(items);
  });

  it("does not mutate its input", () => {
    const before = foldEvents(events.slice(0, 2));
    const snapshot = structuredClone(before);
    applyEvent(before, events[2]);
    expect(before).toEqual(snapshot);
  });

  it("starts a new item when the step or agent changes", () => {
    const thinking = (step: number, agentName: string): AgentEvent => ({
      type: "Thinking",
      delta: "x",
      step,
      agentName,
    });
    const folded = foldEvents([thinking(1, "main"), thinking(2, "main"), thinking(2, "sub")]);
    expect(folded.map((item) => item.id)).toEqual(["item-0", "item-1", "item-2"]);
  });

  it("ignores events without a visual form", () => {
    const start = foldEvents(events.slice(0, 1));
    const ignored: AgentEvent = {
      type: "Usage",
      step: 1,
      usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 },
      model: "m",
      latencyMs: 3,
    };
    expect(applyEvent(start, ignored)).toBe(start);
  });
});
