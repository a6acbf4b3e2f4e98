import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { AdsLibrary, AdsPulled_Serialize } from "../bindings";
import { mockBackend } from "../test/backend";

const library = (name: string, id: string, permission: string, numDocuments: number): AdsLibrary => ({
  id, name, description: "", numDocuments, permission, public: false,
  dateCreated: "2026-09-01T12:00:00", dateLastModified: "2026-11-30T10:00:00.000001",
  owner: permission === "owner" ? "astronomer" : "collaborator", numUsers: 2,
});

const libraries = () => [library("Distance ladder", "hHGU1Ef-TpacAhicI3J8kQ", "owner", 8), library("Group reading", "Os2mtOH-RNiNyBWdSj0m2A", "read", 2)];

const pulled = (download: boolean): AdsPulled_Serialize => ({
  report: {
    library: libraries()[0]!, collection: "Distance ladder", unchanged: false, created: 7, joined: 8,
    left: ["1995Geo....23..967E"], replaced: [["2012arXiv1202.3665F", "2013PASP..125..306F"]], notFound: [],
    renamedFrom: null, bibcodes: Array.from({ length: 8 }, (_, i) => `b${i}`),
  },
  downloads: download ? [{ bibcode: "2013PASP..125..306F", error: null }, { bibcode: "1995Sci...267...77R", error: "no open PDF" }] : [],
});

async function openAds() {
  const user = userEvent.setup();
  render(<App />);
  await user.click(screen.getByTestId("nav-library"));
  await user.click(await screen.findByTestId("library-tab-ads"));
  return user;
}

describe("Library → ADS libraries", () => {
  it("lists the libraries, pulls one with its PDFs showing progress, and says what changed", async () => {
    const backend = mockBackend({
      ads: { libraries, pull: (_, download) => pulled(download), pullEvents: [{ done: 0, total: 2, bibcode: "2013PASP..125..306F" }] },
    });
    const user = await openAds();
    const rows = await screen.findAllByTestId("ads-row");
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringContaining("Distance ladder"),
      expect.stringContaining("shared by collaborator"),
    ]);
    await user.click(within(rows[0]!).getByTestId("ads-pull-pdfs"));
    const outcome = await screen.findByTestId("ads-outcome");
    expect(outcome).toHaveTextContent("Pulled \"Distance ladder\" (8 papers) into collection \"Distance ladder\": 8 added to the collection, 7 new to the library (metadata only), 1 left it.");
    expect(outcome).toHaveTextContent("2012arXiv1202.3665F is now 2013PASP..125..306F");
    expect(outcome).toHaveTextContent("PDFs: 1 of 2 downloaded");
    expect(outcome).toHaveTextContent("1995Sci...267...77R: no open PDF");
    expect(backend.callsTo("ads_pull")[0]?.args).toMatchObject({ library: "hHGU1Ef-TpacAhicI3J8kQ", download: true });
    // The library's papers and collections are read again after the pull.
    await waitFor(() => expect(backend.callsTo("library_list").length).toBeGreaterThan(1));
  });

  it("pushes a collection, listing the papers skipped for want of a bibcode, and shows a refusal", async () => {
    const backend = mockBackend({
      ads: {
        libraries,
        push: ({ to }) => {
          if (to === "Group reading") throw { kind: "service", message: "you may only read the ADS library \"Group reading\" (permission: read); ask its owner for write access" };
          return { libraryId: "AsterismFake0000000003", libraryName: to, created: true, added: 3, removed: 0, already: 0, invalid: [], skipped: [["p9", "Our draft"]] };
        },
      },
    });
    const user = await openAds();
    await screen.findAllByTestId("ads-row");
    await user.selectOptions(screen.getByTestId("ads-push-collection"), "TRGB");
    await user.type(screen.getByTestId("ads-push-to"), "Group reading");
    await user.click(screen.getByTestId("ads-push"));
    expect(await screen.findByText(/you may only read the ADS library/)).toBeInTheDocument();

    await user.clear(screen.getByTestId("ads-push-to"));
    await user.type(screen.getByTestId("ads-push-to"), "Mine");
    await user.click(screen.getByTestId("ads-push-create"));
    await user.click(screen.getByTestId("ads-push"));
    const outcome = await screen.findByTestId("ads-outcome");
    expect(outcome).toHaveTextContent("Created ADS library \"Mine\" from \"TRGB\": 3 added.");
    expect(outcome).toHaveTextContent("Our draft");
    expect(backend.callsTo("ads_push").map((call) => call.args)).toEqual([
      { collection: "TRGB", to: "Group reading", create: false, removeMissing: false },
      { collection: "TRGB", to: "Mine", create: true, removeMissing: false },
    ]);
  });

  it("says what is missing when no ADS token is set", async () => {
    mockBackend();
    await openAds();
    expect(await screen.findByTestId("ads-error")).toHaveTextContent("no ADS_API_TOKEN is set");
  });
});
