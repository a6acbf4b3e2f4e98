import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { AppError, LibraryObject_Serialize, LibraryPaper, NearbyObjects, SessionSummary, TimelineItem } from "../bindings";
import { mockBackend, resolvedTarget } from "../test/backend";
import { formatDec, formatDegrees, formatRa, matchesObject } from "./LibraryObjects";

const paper = (id: string, title: string, authors: string[], year: number, bibcode: string): LibraryPaper => ({
  id, title, authors, year, bibcode, arxivId: null, doi: null, status: "parsed", identifyNote: null, files: [], collections: [], tags: [],
  chunks: 10, addedAt: "2026-12-01T10:00:00Z",
});

const papers = [
  paper("p1", "A Cepheid distance to NGC 4258", ["Riess, A. G.", "Macri, L."], 2019, "2019ApJ...876...85R"),
  paper("p2", "The maser disk of M 106", ["Humphreys, E. M. L."], 2013, "2013ApJ...775...13H"),
  paper("p3", "A transient near the Helix", ["Nobody, A."], 2024, "2024MNRAS.999....1N"),
];

const ngc4258: LibraryObject_Serialize = {
  name: "NGC 4258", resolvedName: "M 106", raDeg: 184.739583, decDeg: 47.303972, objectType: "LIN",
  raSexagesimal: "12 18 57.50", decSexagesimal: "+47 18 14.3", objectTypeLabel: "LINER-type Active Galaxy Nucleus",
  morphology: "SAB(s)bc", redshift: 0.00149, velocityKms: 448,
  papers: [
    { id: "p1", title: "A Cepheid distance to NGC 4258", firstAuthor: "Riess, A. G.", year: 2019, foundIn: "keyword" },
    { id: "p2", title: "The maser disk of M 106", firstAuthor: "Humphreys, E. M. L.", year: 2013, foundIn: "abstract" },
  ],
};
const helix: LibraryObject_Serialize = {
  name: "NGC 7293", resolvedName: "NGC  7293", raDeg: 337.410742, decDeg: -20.837119, objectType: "PN",
  raSexagesimal: null, decSexagesimal: null, objectTypeLabel: null, morphology: null, redshift: null, velocityKms: -27,
  papers: [{ id: "p3", title: "A transient near the Helix", firstAuthor: "Nobody, A.", year: 2024, foundIn: "title" }],
};
const candidate: LibraryObject_Serialize = {
  name: "AT 2024abc", resolvedName: null, raDeg: null, decDeg: null, objectType: null,
  raSexagesimal: null, decSexagesimal: null, objectTypeLabel: null, morphology: null, redshift: null, velocityKms: null,
  papers: [{ id: "p3", title: "A transient near the Helix", firstAuthor: null, year: null, foundIn: "abstract" }],
};

const m106 = resolvedTarget("NGC 4258", "M 106", 184.739583, 47.303972);

/** A cone search's answer around M 106, nearest first as the app sends it. */
const nearM106 = (radiusArcmin: number): NearbyObjects => ({
  center: m106,
  radiusArcmin,
  objects: [
    { ...ngc4258, separationArcmin: 0 },
    {
      name: "NGC 4248", resolvedName: "NGC 4248", raDeg: 184.4625, decDeg: 47.4094, objectType: "G", separationArcmin: 12.34,
      raSexagesimal: null, decSexagesimal: null, objectTypeLabel: null, morphology: null, redshift: null, velocityKms: null,
      papers: [{ id: "p2", title: "The maser disk of M 106", firstAuthor: "Humphreys, E. M. L.", year: 2013, foundIn: "abstract" }],
    },
    {
      name: "UGC 7356", resolvedName: null, raDeg: 184.9, decDeg: 46.6, objectType: null, separationArcmin: 44.96,
      raSexagesimal: null, decSexagesimal: null, objectTypeLabel: null, morphology: null, redshift: null, velocityKms: null,
      papers: [{ id: "p1", title: "A Cepheid distance to NGC 4258", firstAuthor: "Riess, A. G.", year: 2019, foundIn: "abstract" }],
    },
  ],
});

async function openObjects() {
  const user = userEvent.setup();
  render(<App />);
  await user.click(screen.getByTestId("nav-library"));
  await user.click(await screen.findByTestId("library-tab-objects"));
  return { user, view: await screen.findByTestId("library-objects") };
}

const names = (items: HTMLElement[]) => items.map((item) => within(item).getByTestId("object-name").textContent);

describe("Library objects", () => {
  it("lists the objects with coordinates, types and paper counts; unresolved ones say so", async () => {
    const backend = mockBackend({ papers, objects: [ngc4258, helix, candidate] });
    const { view } = await openObjects();
    const items = await within(view).findAllByTestId("library-object");
    expect(backend.callsTo("library_objects")).toHaveLength(1);
    expect(names(items)).toEqual(["NGC 4258", "NGC 7293", "AT 2024abc"]);
    expect(within(view).getByTestId("objects-count")).toHaveTextContent("3 objects");

    const [first, second, third] = items as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(first).getByTestId("object-resolved")).toHaveTextContent("Sesame: M 106");
    // Sexagesimal on screen, decimal degrees on hover and on copy.
    const coords = within(first).getByTestId("object-coords");
    expect(coords).toHaveTextContent("12h18m57.50s +47°18′14.3″");
    expect(coords).toHaveAttribute("title", "184.739583 +47.303972");
    const copied = new Map<string, string>();
    const copy = new Event("copy", { bubbles: true, cancelable: true }) as Event & { clipboardData: unknown };
    copy.clipboardData = { setData: (kind: string, text: string) => copied.set(kind, text) };
    coords.dispatchEvent(copy);
    expect(copied.get("text/plain")).toBe("184.739583 +47.303972");
    // The type spelled out (the code on hover), morphology and redshift.
    expect(within(first).getByTestId("object-type")).toHaveTextContent("LINER-type Active Galaxy Nucleus");
    expect(within(first).getByTestId("object-type")).toHaveAttribute("title", "Object type: LIN");
    expect(within(first).getByTestId("object-morphology")).toHaveTextContent("SAB(s)bc");
    expect(within(first).getByTestId("object-redshift")).toHaveTextContent("z = 0.00149");
    expect(within(first).getByTestId("object-count")).toHaveTextContent("2 papers");
    // Sesame's name written with other spacing is the same name: not repeated.
    expect(within(second).queryByTestId("object-resolved")).not.toBeInTheDocument();
    expect(within(second).getByTestId("object-coords")).toHaveTextContent("22h29m38.58s -20°50′13.6″");
    expect(within(second).getByTestId("object-type")).toHaveTextContent("PN");
    expect(within(second).getByTestId("object-redshift")).toHaveTextContent("v = -27 km/s");
    expect(within(second).getByTestId("object-count")).toHaveTextContent("1 paper");
    expect(within(third).getByTestId("object-coords")).toHaveTextContent("not resolved yet");
    expect(within(third).queryByTestId("object-type")).not.toBeInTheDocument();
    // The paper list and its filters belong to the Papers tab.
    expect(screen.queryByTestId("library-table")).not.toBeInTheDocument();
    expect(screen.getByTestId("library-tab-objects")).toHaveAttribute("aria-selected", "true");
  });

  it("filters by name (spaces aside), Sesame's name and type", async () => {
    mockBackend({ papers, objects: [ngc4258, helix, candidate] });
    const { user, view } = await openObjects();
    await within(view).findAllByTestId("library-object");
    const filter = within(view).getByTestId("objects-filter");

    await user.type(filter, "ngc4258");
    expect(names(within(view).getAllByTestId("library-object"))).toEqual(["NGC 4258"]);
    expect(within(view).getByTestId("objects-count")).toHaveTextContent("1 of 3 objects");
    await user.clear(filter);
    await user.type(filter, "m 106");
    expect(names(within(view).getAllByTestId("library-object"))).toEqual(["NGC 4258"]);
    await user.clear(filter);
    await user.type(filter, "pn");
    expect(names(within(view).getAllByTestId("library-object"))).toEqual(["NGC 7293"]);
    await user.clear(filter);
    await user.type(filter, "Andromeda");
    expect(within(view).queryAllByTestId("library-object")).toHaveLength(0);
    expect(within(view).getByTestId("objects-no-match")).toHaveTextContent("No object matches “Andromeda”.");
    await user.clear(filter);
    expect(within(view).getAllByTestId("library-object")).toHaveLength(3);
  });

  it("unfolds an object's papers, and a paper clicked opens in the Library's details", async () => {
    const backend = mockBackend({ papers, objects: [ngc4258, helix, candidate] });
    const { user, view } = await openObjects();
    const [first] = await within(view).findAllByTestId("library-object");
    expect(within(first!).queryAllByTestId("object-paper")).toHaveLength(0);
    const head = within(first!).getByRole("button", { expanded: false });
    await user.click(head);
    expect(head).toHaveAttribute("aria-expanded", "true");
    const lines = within(first!).getAllByTestId("object-paper");
    expect(lines.map((line) => line.textContent)).toEqual([
      "A Cepheid distance to NGC 4258Riess, A. G., 2019 · named in the keywords",
      "The maser disk of M 106Humphreys, E. M. L., 2013 · named in the abstract",
    ]);
    // An unresolved object's paper without author or year still says where the name was.
    await user.click(within(within(view).getAllByTestId("library-object")[2]!).getByRole("button", { expanded: false }));
    expect(within(within(view).getAllByTestId("library-object")[2]!).getByTestId("object-paper")).toHaveTextContent(/^A transient near the Helixnamed in the abstract$/);

    await user.click(lines[1]!);
    const details = await screen.findByTestId("paper-details");
    expect(details).toHaveTextContent("The maser disk of M 106");
    expect(details).toHaveTextContent("2013ApJ...775...13H");
    expect(backend.callsTo("library_paper").at(-1)?.args).toEqual({ paperId: "p2" });
    expect(lines[1]).toHaveAttribute("aria-pressed", "true");
    expect(lines[0]).toHaveAttribute("aria-pressed", "false");

    // The selection is the Library's: the Papers tab shows the same paper selected.
    await user.click(screen.getByTestId("library-tab-papers"));
    const row = within(screen.getByTestId("library-table")).getByText("The maser disk of M 106").closest("tr");
    expect(row).toHaveAttribute("aria-selected", "true");
    expect(screen.getByTestId("paper-details")).toHaveTextContent("The maser disk of M 106");
  });

  it("says so when the library has no objects yet", async () => {
    mockBackend({ papers, objects: [] });
    const { view } = await openObjects();
    expect(await within(view).findByTestId("objects-empty")).toHaveTextContent("No objects yet");
  });

  it("runs a cone search with the name and radius given, and shows the centre and the objects with their separations as returned", async () => {
    const backend = mockBackend({ papers, objects: [ngc4258], objectsNear: ({ radiusArcmin }) => nearM106(radiusArcmin) });
    const { user, view } = await openObjects();
    const radius = within(view).getByTestId("cone-radius");
    expect(radius).toHaveValue(30);
    expect(within(view).getByTestId("cone-search")).toBeDisabled();
    await user.type(within(view).getByTestId("cone-name"), "NGC 4258");
    await user.clear(radius);
    await user.type(radius, "45");
    await user.click(within(view).getByTestId("cone-search"));

    const result = await within(view).findByTestId("cone-result");
    expect(backend.callsTo("library_objects_near").map((call) => call.args)).toEqual([{ name: "NGC 4258", radiusArcmin: 45 }]);
    expect(within(result).getByTestId("cone-center")).toHaveTextContent("within 45′ of M 106 (12h18m57.50s +47°18′14.3″)");
    const nearby = within(result).getAllByTestId("nearby-object");
    expect(names(nearby)).toEqual(["NGC 4258", "NGC 4248", "UGC 7356"]);
    expect(nearby.map((item) => within(item).getByTestId("object-separation").textContent)).toEqual(["0.0′", "12.3′", "45.0′"]);
    expect(within(nearby[2]!).getByTestId("object-coords")).toHaveTextContent("12h19m36.00s +46°36′00.0″");
    // Their papers show at once; one clicked opens in the details.
    expect(within(nearby[0]!).getAllByTestId("object-paper")).toHaveLength(2);
    await user.click(within(nearby[2]!).getByTestId("object-paper"));
    expect(await screen.findByTestId("paper-details")).toHaveTextContent("A Cepheid distance to NGC 4258");
    expect(backend.callsTo("library_paper").at(-1)?.args).toEqual({ paperId: "p1" });
  });

  it("says when nothing lies within the radius", async () => {
    mockBackend({ papers, objects: [ngc4258], objectsNear: ({ radiusArcmin }) => ({ center: resolvedTarget("Vega", "* alf Lyr", 279.2347, 38.7837), radiusArcmin, objects: [] }) });
    const { user, view } = await openObjects();
    await user.type(within(view).getByTestId("cone-name"), "Vega{Enter}");
    const result = await within(view).findByTestId("cone-result");
    expect(within(result).getByTestId("cone-center")).toHaveTextContent("within 30′ of * alf Lyr (18h36m56.33s +38°47′01.3″)");
    expect(within(result).getByTestId("cone-none")).toHaveTextContent("No object of your library lies within 30′ of * alf Lyr.");
  });

  it("shows why a cone search failed, in a toast and inline, and refuses a radius out of range before asking", async () => {
    const backend = mockBackend({
      papers,
      objects: [ngc4258],
      objectsNear: ({ name }) => {
        throw { kind: "service", message: `Sesame does not know “${name}”` } satisfies AppError;
      },
    });
    const { user, view } = await openObjects();
    await user.type(within(view).getByTestId("cone-name"), "Blorp 9{Enter}");
    expect(await screen.findByTestId("error-toast")).toHaveTextContent("Sesame does not know “Blorp 9”");
    expect(within(view).getByTestId("cone-error")).toHaveTextContent("Sesame does not know “Blorp 9”");
    expect(within(view).queryByTestId("cone-result")).not.toBeInTheDocument();
    expect(within(view).getByTestId("cone-search")).toBeEnabled();

    const radius = within(view).getByTestId("cone-radius");
    await user.clear(radius);
    await user.type(radius, "900");
    await user.click(within(view).getByTestId("cone-search"));
    expect(within(view).getByTestId("cone-error")).toHaveTextContent("The radius is above 0 and at most 600 arcmin.");
    expect(backend.callsTo("library_objects_near")).toHaveLength(1);
  });

  it("shows a failure to read the objects in a toast and inline", async () => {
    mockBackend({ papers, objectsError: { kind: "storage", message: "database is locked" } });
    const { view } = await openObjects();
    expect(await within(view).findByTestId("objects-error")).toHaveTextContent("database is locked");
    expect(await screen.findByTestId("error-toast")).toHaveTextContent("database is locked");
    expect(within(view).queryByTestId("objects-empty")).not.toBeInTheDocument();
    // The cone search still works without the list.
    expect(within(view).getByTestId("cone-form")).toBeInTheDocument();
  });
});

describe("formatting and matching", () => {
  it("writes degrees with 4 decimals, a declination signed, and no minus zero", () => {
    expect(formatDegrees(184.739583)).toBe("184.7396°");
    expect(formatDegrees(47.303972, true)).toBe("+47.3040°");
    expect(formatDegrees(-20.837119, true)).toBe("-20.8371°");
    expect(formatDegrees(-0.00001, true)).toBe("+0.0000°");
  });

  it("writes positions in sexagesimal, carrying rounded sixties and with no minus zero", () => {
    expect(formatRa(184.739583)).toBe("12h18m57.50s");
    expect(formatRa(359.9999999)).toBe("00h00m00.00s");
    expect(formatRa(0)).toBe("00h00m00.00s");
    expect(formatDec(47.303972)).toBe("+47°18′14.3″");
    expect(formatDec(-20.837119)).toBe("-20°50′13.6″");
    expect(formatDec(-0.00001)).toBe("+00°00′00.0″");
    expect(formatDec(-89.99999999)).toBe("-90°00′00.0″");
  });

  it("matches names without regard to spaces or case", () => {
    expect(matchesObject(ngc4258, "NGC4258")).toBe(true);
    expect(matchesObject(ngc4258, "m106")).toBe(true);
    expect(matchesObject(ngc4258, "lin")).toBe(true);
    expect(matchesObject(ngc4258, "M 31")).toBe(false);
    expect(matchesObject(candidate, "")).toBe(true);
  });
});

const session: SessionSummary = {
  id: "s1", title: "Where is NGC 4258?", model: "test-model", summary: null,
  createdAt: "2026-12-01T10:00:00Z", updatedAt: "2026-12-01T10:05:00Z", messageCount: 4,
};
const targetTimeline: TimelineItem[] = [
  { kind: "user", id: "item-0", text: "Where is NGC 4258?" },
  { kind: "tool-call", id: "item-1", toolCallId: "call_1", step: 1, agentName: "main", name: "query_target", arguments: { name: "NGC 4258" } },
  {
    kind: "tool-result", id: "item-2", toolCallId: "call_1", step: 1, agentName: "main", name: "query_target",
    output: "M 106 (LIN) at RA 12:18:57.62, Dec +47:18:13.4 (Simbad)", isError: false, durationMs: 240,
    metadata: {
      query: "NGC 4258", name: "M 106", raDeg: 184.7400833, decDeg: 47.3037222, raSexagesimal: "12:18:57.62", decSexagesimal: "+47:18:13.4",
      objectType: "LIN", objectTypeLabel: "LINER-type active galaxy nucleus", aliases: ["NGC 4258"], resolver: "Simbad",
    },
  },
];

describe("A target card's papers nearby", () => {
  it("opens the Library's Objects view with a 30′ cone search around the target already run", async () => {
    const backend = mockBackend({
      papers,
      objects: [ngc4258],
      sessions: [session],
      timelines: { s1: targetTimeline },
      objectsNear: ({ radiusArcmin }) => nearM106(radiusArcmin),
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByText("Where is NGC 4258?"));
    const card = await screen.findByTestId("target-card");
    const button = within(card).getByTestId("target-library-papers");
    expect(button).toHaveTextContent("Papers in your library nearby");
    await user.click(button);

    const view = await screen.findByTestId("library-objects");
    expect(screen.getByTestId("nav-library")).toHaveAttribute("aria-current", "page");
    expect(screen.getByTestId("library-tab-objects")).toHaveAttribute("aria-selected", "true");
    const result = await within(view).findByTestId("cone-result");
    expect(backend.callsTo("library_objects_near").map((call) => call.args)).toEqual([{ name: "M 106", radiusArcmin: 30 }]);
    expect(within(view).getByTestId("cone-name")).toHaveValue("M 106");
    expect(within(view).getByTestId("cone-radius")).toHaveValue(30);
    expect(within(result).getByTestId("cone-center")).toHaveTextContent("within 30′ of M 106 (12h18m57.50s +47°18′14.3″)");
    expect(within(result).getAllByTestId("nearby-object")).toHaveLength(3);

    // Opened again from the rail, the Library starts as usual: no search runs again.
    await user.click(screen.getByTestId("nav-agent"));
    await user.click(screen.getByTestId("nav-library"));
    expect(await screen.findByTestId("library-tab-papers")).toHaveAttribute("aria-selected", "true");
    expect(screen.queryByTestId("library-objects")).not.toBeInTheDocument();
    expect(backend.callsTo("library_objects_near")).toHaveLength(1);
  });

  it("is offered only inside the app, where the Library can open", async () => {
    const { ResearchAgentPanel } = await import("../components/ResearchAgentPanel");
    mockBackend({ sessions: [session], timelines: { s1: targetTimeline } });
    render(<ResearchAgentPanel />);
    await userEvent.setup().click(await screen.findByText("Where is NGC 4258?"));
    const card = await screen.findByTestId("target-card");
    expect(within(card).queryByTestId("target-library-papers")).not.toBeInTheDocument();
  });
});

describe("Library objects in Chinese", () => {
  it("speaks Chinese, from the target card's button to the objects and the cone search", async () => {
    mockBackend({
      papers,
      objects: [ngc4258, candidate],
      sessions: [session],
      timelines: { s1: targetTimeline },
      objectsNear: ({ radiusArcmin }) => nearM106(radiusArcmin),
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("toggle-language"));
    try {
      await user.click(await screen.findByText("Where is NGC 4258?"));
      const button = within(await screen.findByTestId("target-card")).getByTestId("target-library-papers");
      expect(button).toHaveTextContent("文献库中附近天体的论文");
      await user.click(button);
      const view = await screen.findByTestId("library-objects");
      expect(screen.getByTestId("library-tab-objects")).toHaveTextContent("天体");
      expect(screen.getByTestId("library-tab-papers")).toHaveTextContent("论文");
      expect(await within(view).findByTestId("cone-center")).toHaveTextContent("M 106（12h18m57.50s +47°18′14.3″）周围 30′ 以内");
      expect(within(view).getByTestId("cone-search")).toHaveTextContent("搜索附近");
      expect(within(view).getByText("半径（角分）")).toBeInTheDocument();

      const items = await within(view).findAllByTestId("library-object");
      expect(within(items[0]!).getByTestId("object-count")).toHaveTextContent("2 篇论文");
      expect(within(items[1]!).getByTestId("object-coords")).toHaveTextContent("尚未解析");
      expect(within(view).getByTestId("objects-count")).toHaveTextContent("2 个天体");
      await user.click(within(items[0]!).getByRole("button", { expanded: false }));
      expect(within(items[0]!).getAllByTestId("object-paper")[0]).toHaveTextContent("见于关键词");
    } finally {
      await user.click(screen.getByTestId("toggle-language"));
    }
  });
});
