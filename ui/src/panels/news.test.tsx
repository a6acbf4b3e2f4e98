import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { LibraryPaper, NewsList_Serialize, PaperRecord_Serialize } from "../bindings";
import { mockBackend } from "../test/backend";

const record = (title: string, ids: Partial<PaperRecord_Serialize>, inLibrary = false): PaperRecord_Serialize => ({
  bibcode: null, arxivId: null, arxivVersion: 1, doi: null, title, authors: ["Sanchez, M.", "Watanabe, K.", "Natarajan, P.", "Doe, J."],
  affiliations: [], year: 2026, journal: null, volume: null, page: null, abstract: null, keywords: [], categories: ["astro-ph.EP"],
  citationCount: null, published: null, sources: ["arxiv"], local: { inLibrary, downloaded: inLibrary, parsed: false }, ...ids,
});

const news = (refresh: boolean): NewsList_Serialize => ({
  categories: ["astro-ph.EP", "astro-ph.SR"],
  since: "2026-12-04",
  fetchedAt: "2026-12-05T07:00:00Z",
  fromCache: !refresh,
  notice: refresh ? "cannot reach arXiv: connection refused; showing the list fetched at 2026-12-05T07:00:00Z" : null,
  submissions: 120,
  comparedBy: "shared words",
  items: [
    {
      ...record("The young mini-Neptune Kepler-1627 Ab", { arxivId: "2612.01234" }),
      score: 0.8,
      reasons: [
        { kind: "topic", closeness: 0.9, papers: [{ id: "p1", title: "A 30 Million Year Old Mini-Neptune" }] },
        { kind: "object", name: "Kepler-1627", libraryObject: "Kepler-1627", separationArcmin: null },
      ],
    },
    {
      ...record("Flares in TESS images", { arxivId: "2612.01377" }, true),
      score: 0.45,
      reasons: [{ kind: "author", name: "Daniel Foreman-Mackey", followed: true, libraryPapers: 1 }],
    },
    { ...record("Nanoflares", { arxivId: "2612.01301" }), score: 0, reasons: [] },
  ],
});

describe("the New view", () => {
  it("lists today's submissions best first with their reasons, adds one to the library, and refreshes", async () => {
    const backend = mockBackend({ news });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-news"));
    const entries = await screen.findAllByTestId("remote-paper");
    expect(entries.map((entry) => within(entry).getByTestId("remote-title").textContent)).toEqual([
      "The young mini-Neptune Kepler-1627 Ab",
      "Flares in TESS images",
      "Nanoflares",
    ]);
    expect(screen.getByTestId("news-summary")).toHaveTextContent("120 submissions in astro-ph.EP, astro-ph.SR since 2026-12-04");
    const [first, second, third] = entries as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(first).getByTestId("news-why")).toHaveTextContent("0.80 Close to “A 30 Million Year Old Mini-Neptune” · Names Kepler-1627 (in your library)");
    expect(within(first).getByText("Sanchez, M.; Watanabe, K.; Natarajan, P. et al.", { exact: false })).toBeInTheDocument();
    expect(within(second).getByTestId("news-why")).toHaveTextContent("By Daniel Foreman-Mackey (you follow)");
    expect(within(second).getByTestId("in-library")).toBeInTheDocument();
    expect(within(third).getByTestId("news-why")).toHaveTextContent("Nothing in common with your library");
    expect(within(first).getByTestId("link-arxiv")).toBeInTheDocument();

    await user.click(within(first).getByTestId("add-paper"));
    await waitFor(() => expect(within(first).getByTestId("in-library")).toBeInTheDocument());
    expect(backend.calls.find((call) => call.cmd === "paper_add")?.args).toEqual({ id: "2612.01234" });
    expect(backend.calls.filter((call) => call.cmd === "news_today").map((call) => call.args.refresh)).toEqual([false]);

    await user.click(screen.getByTestId("news-refresh"));
    expect(await screen.findByTestId("news-notice")).toHaveTextContent("cannot reach arXiv");
    expect(backend.calls.filter((call) => call.cmd === "news_today").map((call) => call.args.refresh)).toEqual([false, true]);
  });

  it("says why there is no list when arXiv cannot be reached and nothing is cached", async () => {
    mockBackend({
      news: () => {
        throw { kind: "service", message: "cannot reach arXiv: connection refused; no earlier list is cached" };
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-news"));
    expect(await screen.findByTestId("news-error")).toHaveTextContent("no earlier list is cached");
  });
});

const libraryPaper: LibraryPaper = {
  id: "p1", title: "The maser disk of M 106", authors: ["Humphreys, E. M. L."], year: 2013, bibcode: "2013ApJ...775...13H",
  arxivId: null, doi: null, status: "parsed", identifyNote: null, files: [], collections: [], tags: [], chunks: 10, addedAt: "2026-12-01T10:00:00Z",
};

describe("a paper's citations and references", () => {
  it("are asked of ADS only when opened, with counts and library marks, and can be added", async () => {
    const backend = mockBackend({
      papers: [libraryPaper],
      paperLinks: (id, link) => ({
        bibcode: "2013ApJ...775...13H",
        link: link as "citations" | "references",
        numFound: link === "citations" ? 312 : 58,
        papers:
          link === "citations"
            ? [record("A Cepheid distance to NGC 4258", { bibcode: "2019ApJ...876...85R" }, true), record("Water masers again", { bibcode: "2024ApJ...900....1Z" })]
            : [record("The Hipparcos catalogue", { bibcode: "1997A&A...323L..49P" })],
      }),
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    await user.click(await screen.findByText("The maser disk of M 106"));
    const graph = await screen.findByTestId("paper-graph");
    expect(backend.calls.some((call) => call.cmd === "paper_links")).toBe(false);

    await user.click(within(graph).getByTestId("graph-citations"));
    expect(await within(graph).findByText("Cited by 312")).toBeInTheDocument();
    expect(within(graph).getByTestId("graph-summary")).toHaveTextContent("2 of 312 shown; 1 in your library");
    const cited = within(graph).getAllByTestId("remote-paper");
    expect(within(cited[0]!).getByTestId("in-library")).toBeInTheDocument();
    expect(within(cited[1]!).getByTestId("link-ads")).toBeInTheDocument();
    await user.click(within(cited[1]!).getByTestId("add-paper"));
    await waitFor(() => expect(within(cited[1]!).getByTestId("in-library")).toBeInTheDocument());
    expect(backend.calls.find((call) => call.cmd === "paper_add")?.args).toEqual({ id: "2024ApJ...900....1Z" });

    // Followed further: the same lists for a citing paper, asked by its bibcode.
    await user.click(within(cited[1]!).getByTestId("graph-follow"));
    await user.click(within(cited[1]!).getByTestId("graph-citations"));
    expect(await within(cited[1]!).findByText("Cited by 312")).toBeInTheDocument();
    expect(backend.calls.filter((call) => call.cmd === "paper_links").at(-1)?.args).toEqual({ id: "2024ApJ...900....1Z", link: "citations", limit: 25 });

    await user.click(within(graph).getAllByTestId("graph-references")[0]!);
    expect(await within(graph).findByText("References 58")).toBeInTheDocument();
    expect(within(graph).getByText("The Hipparcos catalogue")).toBeInTheDocument();
    expect(backend.calls.filter((call) => call.cmd === "paper_links").map((call) => call.args)).toEqual([
      { id: "p1", link: "citations", limit: 25 },
      { id: "2024ApJ...900....1Z", link: "citations", limit: 25 },
      { id: "p1", link: "references", limit: 25 },
    ]);
  });

  it("say why when ADS is not configured", async () => {
    mockBackend({ papers: [libraryPaper] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("nav-library"));
    await user.click(await screen.findByText("The maser disk of M 106"));
    await user.click(await screen.findByTestId("graph-references"));
    expect(await screen.findByText(/no ADS_API_TOKEN is set/)).toBeInTheDocument();
  });
});
