import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { AgentEvent, LibraryPaper } from "../bindings";
import { ResearchAgentPanel } from "../components/ResearchAgentPanel";
import { ev, mockBackend } from "../test/backend";

const OPEN_URL = "plugin:opener|open_url";

function result(id: string, name: string, metadata: unknown, output = ""): AgentEvent[] {
  const base = { toolCallId: `call_${id}`, name, step: 1, agentName: "main" };
  return [
    { type: "ToolCall", id: `c${id}`, arguments: {}, ...base },
    { type: "ToolResult", id: `r${id}`, output, isError: false, metadata: metadata as never, durationMs: 20, ...base },
  ];
}

const papers = {
  papers: [
    { title: "Planck 2015 results. XIII.", bibcode: "2016A&A...594A..13P", arxivId: "1502.01589", doi: "10.1051/0004-6361/201525830", authors: ["Planck Collaboration"], year: 2016 },
    { title: "An old preprint", bibcode: null, arxivId: "astro-ph/0601001v2", doi: null, authors: [], year: 2006 },
  ],
};
const target = { name: "M 106", raDeg: 184.74, decDeg: 47.3, raSexagesimal: "12:18:57.62", decSexagesimal: "+47:18:13.4", objectType: "LIN", objectTypeLabel: null, aliases: [], resolver: "Simbad" };
const rag = {
  question: "What H0 does TRGB give?", answer: "69.8 [1]", answered: true, removedCitations: [], mode: "hybrid", note: null,
  claims: [{ text: "69.8", support: [{ n: 1, quote: "we find H0 = 69.8 ± 0.8", page: 13 }] }],
  evidence: [
    { n: 1, paperId: "p1", title: "CCHP VIII", shortRef: "Freedman 2019", bibcode: "2019ApJ...882...34F", arxivId: "1907.05922", doi: "10.3847/1538-4357/ab2f73", originalName: "f.pdf", page: 12, section: "5", chunkId: 3, quote: "H0 = 69.8", cited: true, verdict: { score: 9, summary: "TRGB gives H0 = 69.8 ± 0.8.", cached: false } },
    { n: 2, paperId: "p2", title: "Uncited", shortRef: "Riess 2022", bibcode: null, arxivId: null, originalName: null, page: null, section: null, chunkId: 4, quote: "", cited: false },
  ],
};

async function run(backend: ReturnType<typeof mockBackend>, ...events: AgentEvent[]) {
  const user = userEvent.setup();
  await user.type(screen.getByTestId("question-input"), "Links please{Enter}");
  await waitFor(() => expect(backend.callsTo("agent_run")).toHaveLength(1));
  await backend.lastFeed().send(ev.started("Links please"), ...events);
}

/** Clicks like a user; false when the page cancelled the click (no navigation). */
const clickWasCancelled = (element: Element) => !fireEvent.click(element);

describe("links out of the app", () => {
  it("a paper card's links open the encoded ADS, arXiv and DOI pages through the opener, never in the webview", async () => {
    const backend = mockBackend();
    render(<ResearchAgentPanel />);
    await waitFor(() => expect(backend.callsTo("app_status")).toHaveLength(1));
    await run(backend, ...result("1", "search_papers", papers));
    const [planck, old] = await screen.findAllByTestId("paper-card");
    const where = window.location.href;

    expect(clickWasCancelled(within(planck!).getByTestId("link-ads"))).toBe(true);
    expect(clickWasCancelled(within(planck!).getByTestId("link-doi"))).toBe(true);
    expect(clickWasCancelled(within(old!).getByTestId("link-arxivPdf"))).toBe(true);
    await waitFor(() => expect(backend.callsTo(OPEN_URL)).toHaveLength(3));
    expect(backend.callsTo(OPEN_URL).map((call) => call.args.url)).toEqual([
      "https://ui.adsabs.harvard.edu/abs/2016A%26A...594A..13P/abstract",
      "https://doi.org/10.1051/0004-6361/201525830",
      "https://arxiv.org/pdf/astro-ph/0601001v2",
    ]);
    expect(window.location.href).toBe(where);
    // Only the links whose identifier exists.
    expect(within(old!).queryByTestId("link-ads")).not.toBeInTheDocument();
    expect(within(old!).queryByTestId("link-doi")).not.toBeInTheDocument();
    expect(within(planck!).getByTestId("link-arxiv")).toHaveAttribute("href", "https://arxiv.org/abs/1502.01589");
  });

  it("a target card links to SIMBAD, and a rag answer's cited sources to their pages and stored PDF", async () => {
    const backend = mockBackend();
    render(<ResearchAgentPanel />);
    await waitFor(() => expect(backend.callsTo("app_status")).toHaveLength(1));
    await run(backend, ...result("1", "query_target", target), ...result("2", "rag_search", rag, "69.8 [1]"));
    await userEvent.setup().click(within(await screen.findByTestId("target-card")).getByTestId("link-simbad"));
    const sources = await screen.findAllByTestId("rag-source");
    expect(sources).toHaveLength(1);
    expect(sources[0]).toHaveTextContent("Freedman 2019");
    expect(within(sources[0]!).getByTestId("rag-source-ref")).toHaveAttribute("title", "p. 13: “we find H0 = 69.8 ± 0.8”");
    // The model's score and summary of the passage, when it scored them.
    expect(within(sources[0]!).getByTestId("rag-source-verdict")).toHaveTextContent("Relevance 9/10: TRGB gives H0 = 69.8 ± 0.8.");
    await userEvent.setup().click(within(sources[0]!).getByTestId("link-ads"));
    await userEvent.setup().click(within(sources[0]!).getByTestId("link-doi"));
    await userEvent.setup().click(within(sources[0]!).getByTestId("pdf-open-system"));
    await userEvent.setup().click(within(sources[0]!).getByTestId("pdf-show-folder"));
    expect(backend.callsTo(OPEN_URL).map((call) => call.args.url)).toEqual([
      "https://simbad.cds.unistra.fr/simbad/sim-id?Ident=M%20106",
      "https://ui.adsabs.harvard.edu/abs/2019ApJ...882...34F/abstract",
      "https://doi.org/10.3847/1538-4357/ab2f73",
    ]);
    expect(backend.callsTo("library_open_pdf")[0]?.args).toEqual({ paperId: "p1", sha256: null });
    expect(backend.callsTo("library_show_pdf")[0]?.args).toEqual({ paperId: "p1", sha256: null });
  });

  it("follows the configured sites", async () => {
    const backend = mockBackend({ status: { links: { ads: "http://127.0.0.1:9/ads-ui", arxiv: "http://127.0.0.1:9/arxiv", doi: "http://127.0.0.1:9/doi", simbad: "http://127.0.0.1:9/simbad" } } });
    render(<ResearchAgentPanel />);
    await waitFor(() => expect(backend.callsTo("app_status")).toHaveLength(1));
    await run(backend, ...result("1", "search_papers", papers));
    const [planck] = await screen.findAllByTestId("paper-card");
    expect(within(planck!).getByTestId("link-ads")).toHaveAttribute("href", "http://127.0.0.1:9/ads-ui/abs/2016A%26A...594A..13P/abstract");
    expect(within(planck!).getByTestId("link-arxivPdf")).toHaveAttribute("href", "http://127.0.0.1:9/arxiv/pdf/1502.01589");
  });

  it("a Markdown link opens outside: a known site at once, any other page through the app's question", async () => {
    const backend = mockBackend();
    render(<ResearchAgentPanel />);
    await waitFor(() => expect(backend.callsTo("app_status")).toHaveLength(1));
    await run(backend, ev.text("See [the paper](https://arxiv.org/abs/1907.05922), [a blog](https://example.org/h0) and [a script](javascript:alert(1))."));
    const paper = await screen.findByRole("link", { name: "the paper" });
    const blog = screen.getByRole("link", { name: "a blog" });
    expect(clickWasCancelled(paper)).toBe(true);
    expect(clickWasCancelled(blog)).toBe(true);
    await waitFor(() => expect(backend.callsTo("link_open")).toHaveLength(1));
    expect(backend.callsTo(OPEN_URL).map((call) => call.args.url)).toEqual(["https://arxiv.org/abs/1907.05922"]);
    expect(backend.callsTo("link_open")[0]?.args).toEqual({ url: "https://example.org/h0" });
    expect(screen.queryByRole("link", { name: "a script" })).not.toBeInTheDocument();
    expect(screen.getByText("a script")).toBeInTheDocument();
  });

  it("the library's list and details link a paper out, and open or show each stored PDF", async () => {
    const paper: LibraryPaper = {
      id: "p1", title: "The Carnegie-Chicago Hubble Program", authors: ["Freedman, W. L."], year: 2019,
      bibcode: "2019ApJ...882...34F", arxivId: "1907.05922", doi: "10.3847/1538-4357/ab2f73", status: "parsed", identifyNote: null,
      files: [{ path: "/data/papers/p1-aaaa.pdf", originalName: "freedman2019.pdf", sha256: "aaaa", sizeBytes: 2_400_000, source: "import" }],
      collections: [], tags: [], chunks: 87, addedAt: "2026-12-01T10:00:00Z",
    };
    const backend = mockBackend({ papers: [paper] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    const row = await screen.findByTestId("library-row");
    // A link in the row opens the page; it does not select the row.
    await user.click(within(row).getByTestId("link-doi"));
    expect(row).toHaveAttribute("aria-selected", "false");
    expect(backend.callsTo(OPEN_URL).at(-1)?.args.url).toBe("https://doi.org/10.3847/1538-4357/ab2f73");
    await user.click(within(row).getByText("The Carnegie-Chicago Hubble Program"));
    const details = await screen.findByTestId("paper-details");
    await user.click(within(details).getByTestId("link-ads"));
    expect(backend.callsTo(OPEN_URL).at(-1)?.args.url).toBe("https://ui.adsabs.harvard.edu/abs/2019ApJ...882...34F/abstract");
    const file = within(details).getByTestId("stored-file");
    await user.click(within(file).getByTestId("pdf-open-system"));
    await user.click(within(file).getByTestId("pdf-show-folder"));
    expect(backend.callsTo("library_open_pdf")[0]?.args).toEqual({ paperId: "p1", sha256: "aaaa" });
    expect(backend.callsTo("library_show_pdf")[0]?.args).toEqual({ paperId: "p1", sha256: "aaaa" });
  });
});
