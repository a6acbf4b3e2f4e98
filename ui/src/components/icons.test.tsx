import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { TimelineItem } from "../bindings";
import { mockBackend } from "../test/backend";
import { TimelineItemView } from "./TimelineItemView";

/** Arrows, technical and geometric shapes, dingbats, misc. symbols, emoji: glyphs a font may lack. */
const SYMBOL = /[\u2190-\u2BFF\u{1F000}-\u{1FAFF}]/u;

function textNodes(root: Node): string[] {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: string[] = [];
  while (walker.nextNode()) texts.push(walker.currentNode.nodeValue ?? "");
  return texts.filter((text) => text.trim() !== "");
}

describe("icons are SVG, not font glyphs", () => {
  it("the navigation rail draws its icons and the theme and language toggles as SVG, with no symbol characters", async () => {
    mockBackend();
    const user = userEvent.setup();
    render(<App />);
    const rail = screen.getByRole("navigation", { name: "Panels" });
    for (const name of ["agent", "library", "news", "metrics", "audit", "settings"]) {
      const button = within(rail).getByTestId(`nav-${name}`);
      expect(button.querySelector("svg")).not.toBeNull();
      expect(button.querySelector("svg")).toHaveAttribute("aria-hidden", "true");
    }
    expect(rail.querySelector(".brand svg")).not.toBeNull();
    const theme = screen.getByTestId("toggle-theme");
    expect(theme.querySelector("svg")).not.toBeNull();
    expect(screen.getByRole("button", { name: "Theme" })).toBe(theme);
    // 中 is drawn too (no CJK font, no character), and still names the button.
    expect(screen.getByRole("button", { name: "中" })).toBe(screen.getByTestId("toggle-language"));
    expect(screen.getByTestId("toggle-language").querySelector("svg")).not.toBeNull();

    const railTexts = textNodes(rail);
    expect(railTexts).toContain("Library");
    expect(railTexts.filter((text) => SYMBOL.test(text))).toEqual([]);
    // In the English UI every character the rail writes is ASCII, in any font.
    expect(railTexts.filter((text) => /[^\x20-\x7e]/.test(text))).toEqual([]);

    // The other theme's icon is drawn as well.
    await user.click(theme);
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(theme.querySelector("svg")).not.toBeNull();
    expect(textNodes(rail).filter((text) => SYMBOL.test(text))).toEqual([]);
    await user.click(theme);
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe("light"));
  });

  it("a tool call's gear and a todo list's marks are SVG, the marks still named by status", () => {
    const call: TimelineItem = { kind: "tool-call", id: "c1", toolCallId: "call_1", name: "search_papers", arguments: { q: "TRGB" }, step: 1, agentName: "main" };
    const todos: TimelineItem = {
      kind: "todos",
      id: "t1",
      agentName: "main",
      todos: [
        { taskId: "1", content: "Search", status: "completed", blockedBy: [] },
        { taskId: "2", content: "Read", status: "in_progress", blockedBy: [] },
        { taskId: "3", content: "Write", status: "pending", blockedBy: [] },
      ],
    };
    const { container } = render(
      <>
        <TimelineItemView item={call} live={false} />
        <TimelineItemView item={todos} live={false} />
      </>,
    );
    expect(container.querySelector(".tool-call svg.tool-icon")).not.toBeNull();
    const list = screen.getByTestId("todo-list");
    for (const status of ["completed", "in progress", "pending"]) {
      expect(within(list).getByRole("img", { name: status }).querySelector("svg")).not.toBeNull();
    }
    expect(within(list).getAllByRole("listitem").map((item) => item.textContent?.trim())).toEqual(["Search", "Read", "Write"]);
    expect(textNodes(container).filter((text) => SYMBOL.test(text))).toEqual([]);
  });
});
