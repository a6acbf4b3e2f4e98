import { describe, expect, it } from "vitest";
import type { LinkBases } from "../bindings";
import { adsUrl, arxivAbsUrl, arxivId, arxivPdfUrl, doiUrl, knownSite, paperLinks, simbadUrl, webLink } from "./links";

const bases: LinkBases = {
  ads: "https://ui.adsabs.harvard.edu",
  arxiv: "https://arxiv.org",
  doi: "https://doi.org",
  simbad: "https://simbad.cds.unistra.fr/simbad",
};
// As a test points the app at loopback servers.
const loopback: LinkBases = {
  ads: "http://127.0.0.1:4321/ads-ui",
  arxiv: "http://127.0.0.1:4321/arxiv",
  doi: "http://127.0.0.1:4321/doi",
  simbad: "http://127.0.0.1:4321/simbad",
};

describe("paper links", () => {
  it("encode a bibcode's & for ADS", () => {
    expect(adsUrl(bases, "2016A&A...594A..13P")).toBe("https://ui.adsabs.harvard.edu/abs/2016A%26A...594A..13P/abstract");
    expect(adsUrl(bases, "2019ApJ...882...34F")).toBe("https://ui.adsabs.harvard.edu/abs/2019ApJ...882...34F/abstract");
    expect(adsUrl(bases, " ")).toBeNull();
    expect(adsUrl(bases, "not a bibcode")).toBeNull();
  });

  it("keep the slash of old-style arXiv ids and their versions", () => {
    expect(arxivAbsUrl(bases, "astro-ph/0601001")).toBe("https://arxiv.org/abs/astro-ph/0601001");
    expect(arxivPdfUrl(bases, "astro-ph/0601001v2")).toBe("https://arxiv.org/pdf/astro-ph/0601001v2");
    expect(arxivAbsUrl(bases, "math.AG/0601001")).toBe("https://arxiv.org/abs/math.AG/0601001");
    expect(arxivAbsUrl(bases, "arXiv:2301.01234v3")).toBe("https://arxiv.org/abs/2301.01234v3");
    expect(arxivPdfUrl(bases, "1907.05922")).toBe("https://arxiv.org/pdf/1907.05922");
    expect(arxivId("0704.0001")).toBe("0704.0001");
    // Nothing that could leave the abstract pages.
    expect(arxivId("../../account")).toBeNull();
    expect(arxivId("2301.01234?x=1")).toBeNull();
    expect(arxivAbsUrl(bases, null)).toBeNull();
  });

  it("encode a DOI's reserved characters but keep its slashes", () => {
    expect(doiUrl(bases, "10.3847/1538-4357/ab2f73")).toBe("https://doi.org/10.3847/1538-4357/ab2f73");
    expect(doiUrl(bases, "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O")).toBe(
      "https://doi.org/10.1002/(SICI)1097-4571(199806)49%3A8%3C693%3A%3AAID-ASI4%3E3.0.CO%3B2-O",
    );
    expect(doiUrl(bases, "doi:10.1051/0004-6361/201525830")).toBe("https://doi.org/10.1051/0004-6361/201525830");
    expect(doiUrl(bases, "https://doi.org/10.1051/0004-6361/201525830")).toBe("https://doi.org/10.1051/0004-6361/201525830");
    expect(doiUrl(bases, "10.1000/a#b?c")).toBe("https://doi.org/10.1000/a%23b%3Fc");
    expect(doiUrl(bases, "not-a-doi")).toBeNull();
  });

  it("name a target on SIMBAD", () => {
    expect(simbadUrl(bases, "M 106")).toBe("https://simbad.cds.unistra.fr/simbad/sim-id?Ident=M%20106");
    expect(simbadUrl(bases, "NAME Sgr A*")).toBe("https://simbad.cds.unistra.fr/simbad/sim-id?Ident=NAME%20Sgr%20A*");
    expect(simbadUrl(bases, "[HB89] 1229+204")).toBe("https://simbad.cds.unistra.fr/simbad/sim-id?Ident=%5BHB89%5D%201229%2B204");
  });

  it("offer each link only where its identifier exists, under the configured sites", () => {
    expect(paperLinks(loopback, { bibcode: "2016A&A...594A..13P", arxivId: null, doi: "10.1051/0004-6361/201525830" })).toEqual([
      { kind: "ads", url: "http://127.0.0.1:4321/ads-ui/abs/2016A%26A...594A..13P/abstract" },
      { kind: "doi", url: "http://127.0.0.1:4321/doi/10.1051/0004-6361/201525830" },
    ]);
    expect(paperLinks(bases, { arxivId: "astro-ph/0601001" }).map((link) => link.kind)).toEqual(["arxiv", "arxivPdf"]);
    expect(paperLinks(bases, {})).toEqual([]);
  });
});

describe("which links open without a question", () => {
  it("only pages under the configured sites", () => {
    expect(knownSite(bases, "https://arxiv.org/abs/1907.05922")).toBe(true);
    expect(knownSite(loopback, "http://127.0.0.1:4321/simbad/sim-id?Ident=M31")).toBe(true);
    expect(knownSite(bases, "https://arxiv.org.evil.example/abs/1")).toBe(false);
    expect(knownSite(bases, "https://example.org/")).toBe(false);
  });

  it("Markdown links are web links or nothing", () => {
    expect(webLink("https://example.org/x")).toBe(true);
    expect(webLink("javascript:alert(1)")).toBe(false);
    expect(webLink("file:///etc/passwd")).toBe(false);
    expect(webLink("#section")).toBe(false);
    expect(webLink(undefined)).toBe(false);
  });
});
