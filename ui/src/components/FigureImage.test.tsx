import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import { mockBackend } from "../test/backend";
import { RagSources, type Source } from "./RagSources";
import { ToolResultView } from "./ToolResultView";

const source = (n: number, section: string | null): Source => ({
  n,
  paperId: "p1",
  title: "Gammapy",
  shortRef: "Donath 2023",
  bibcode: null,
  arxivId: null,
  doi: null,
  page: 9,
  section,
  quotes: [],
  verdict: null,
});

describe("figures beside their captions", () => {
  it("a cited caption shows its figure from the paper's PDF; other passages show none", () => {
    mockBackend();
    render(<RagSources sources={[source(1, "Figure 7"), source(2, "3.2 Data reduction"), source(3, "Table A.1")]} />);
    const [figure, prose, table] = screen.getAllByTestId("rag-source");
    const image = within(figure!).getByRole("img", { name: "Figure 7" });
    expect(image).toHaveAttribute("src", "figure://localhost/p1%2FFigure%207");
    expect(within(prose!).queryByTestId("caption-figure")).not.toBeInTheDocument();
    expect(within(table!).getByRole("img")).toHaveAttribute("src", "figure://localhost/p1%2FTable%20A.1");
  });

  it("a figure the shell cannot give (no PDF, no region) leaves no broken image", () => {
    mockBackend();
    render(<RagSources sources={[source(1, "Figure 7")]} />);
    fireEvent.error(screen.getByRole("img", { name: "Figure 7" }));
    expect(screen.queryByTestId("caption-figure")).not.toBeInTheDocument();
    expect(screen.getByTestId("rag-source")).toHaveTextContent("Donath 2023");
  });

  it("a caption found by a passage search shows its figure", async () => {
    mockBackend({
      passages: {
        note: null,
        hits: [
          {
            paperId: "p2", title: "celerite", authors: ["Foreman-Mackey, D."], year: 2017,
            page: 9, section: "Figure 1", pages: null,
            text: "Figure 1. A pictorial representation of the sparse extended matrix.",
            snippet: "", marks: [], score: 0.03,
          },
        ],
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    await user.type(await screen.findByTestId("library-search"), "extended matrix");
    await user.click(screen.getByTestId("library-search-passages"));
    const hit = await screen.findByTestId("passage-hit");
    expect(within(hit).getByRole("img", { name: "Figure 1" })).toHaveAttribute("src", "figure://localhost/p2%2FFigure%201");
  });
});

describe("view_figure in the timeline", () => {
  it("shows the figure the model was shown", () => {
    mockBackend();
    render(
      <ToolResultView
        name="view_figure"
        output="Figure 1 of “celerite” (p. 9), as seen in the image: a banded matrix."
        isError={false}
        metadata={{ paperId: "p2", label: "Figure 1", kind: "figure", page: 9 }}
        durationMs={1200}
      />,
    );
    expect(screen.getByRole("img", { name: "Figure 1" })).toHaveAttribute("src", "figure://localhost/p2%2FFigure%201");
  });
});
