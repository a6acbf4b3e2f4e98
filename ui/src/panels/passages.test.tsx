import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import { mockBackend } from "../test/backend";

describe("library passage search", () => {
  it("shows each hit's best sentence with the query's words highlighted, on the snippet's page", async () => {
    const snippet = "Figure 3 shows the phase-folded transit of Kepler 1627b, binned to 20 minutes.";
    const backend = mockBackend({
      passages: {
        note: null,
        hits: [
          {
            paperId: "p1", title: "A 30 Myr Mini-Neptune", authors: ["Bouma, L. G."], year: 2021,
            page: 4, section: "Figure 3", pages: { first: 3, last: 4 },
            text: `We used all seventeen quarters. ${snippet}`,
            snippet, marks: [{ start: 19, end: 31 }, { start: 32, end: 39 }], score: 0.03,
          },
        ],
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    await user.type(await screen.findByTestId("library-search"), "folded transit");
    await user.click(screen.getByTestId("library-search-passages"));
    const hit = await screen.findByTestId("passage-hit");
    expect(backend.callsTo("library_search")[0]?.args.query).toBe("folded transit");
    const marks = within(hit).getAllByRole("mark").map((mark) => mark.textContent);
    expect(marks).toEqual(["phase-folded", "transit"]);
    expect(within(hit).getByTestId("passage-snippet")).toHaveTextContent(snippet);
    expect(hit).toHaveTextContent("p. 4 (passage pp. 3–4)");
  });
});
