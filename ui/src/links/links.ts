// Every link the UI offers, built in one place from the sites the app reports
// (`AppStatus.links`, from the settings ADS_UI_URL, ARXIV_URL, DOI_URL and SIMBAD_URL).
// A link is offered only where its identifier is well formed; each part of a URL is
// percent-encoded (a bibcode's `&`, a DOI's `<`), except the `/` an old-style arXiv id
// or a DOI keeps.
import type { LinkBases } from "../bindings";

/** What a paper is known by; any of them may be missing. */
export type PaperIds = { bibcode?: string | null; arxivId?: string | null; doi?: string | null };

export type PaperLinkKind = "ads" | "arxiv" | "arxivPdf" | "doi";
export type PaperLink = { kind: PaperLinkKind; url: string };

const NEW_ARXIV = /^\d{4}\.\d{4,5}(v\d+)?$/;
const OLD_ARXIV = /^[a-z]+(-[a-z]+)*(\.[A-Z]{2})?\/\d{7}(v\d+)?$/;

/** The arXiv id without an `arXiv:` prefix, when it is one (2301.01234v2, astro-ph/0601001). */
export function arxivId(text: string | null | undefined): string | null {
  const id = (text ?? "").trim().replace(/^arxiv:/i, "");
  return NEW_ARXIV.test(id) || OLD_ARXIV.test(id) ? id : null;
}

/** The DOI without a `doi:` or resolver prefix, when it is one (10.prefix/suffix). */
export function doiOf(text: string | null | undefined): string | null {
  const doi = (text ?? "").trim().replace(/^(doi:|https?:\/\/(dx\.)?doi\.org\/)/i, "");
  return /^10\.\d{4,9}\/\S+$/.test(doi) ? doi : null;
}

export function adsUrl(bases: LinkBases, bibcode: string | null | undefined): string | null {
  const code = (bibcode ?? "").trim();
  return code && !/\s/.test(code) ? `${bases.ads}/abs/${encodeURIComponent(code)}/abstract` : null;
}

export function arxivAbsUrl(bases: LinkBases, id: string | null | undefined): string | null {
  const clean = arxivId(id);
  return clean ? `${bases.arxiv}/abs/${clean}` : null;
}

export function arxivPdfUrl(bases: LinkBases, id: string | null | undefined): string | null {
  const clean = arxivId(id);
  return clean ? `${bases.arxiv}/pdf/${clean}` : null;
}

export function doiUrl(bases: LinkBases, doi: string | null | undefined): string | null {
  const clean = doiOf(doi);
  return clean ? `${bases.doi}/${encodeURIComponent(clean).replace(/%2F/gi, "/")}` : null;
}

export function simbadUrl(bases: LinkBases, name: string | null | undefined): string | null {
  const clean = (name ?? "").trim();
  return clean ? `${bases.simbad}/sim-id?Ident=${encodeURIComponent(clean)}` : null;
}

/** A paper's links, in the order shown: ADS, arXiv, arXiv PDF, publisher. */
export function paperLinks(bases: LinkBases, ids: PaperIds): PaperLink[] {
  const links: [PaperLinkKind, string | null][] = [
    ["ads", adsUrl(bases, ids.bibcode)],
    ["arxiv", arxivAbsUrl(bases, ids.arxivId)],
    ["arxivPdf", arxivPdfUrl(bases, ids.arxivId)],
    ["doi", doiUrl(bases, ids.doi)],
  ];
  return links.filter((link): link is [PaperLinkKind, string] => link[1] !== null).map(([kind, url]) => ({ kind, url }));
}

/** Whether a URL is a page under one of the sites, which the app opens without asking. */
export function knownSite(bases: LinkBases, url: string): boolean {
  return [bases.ads, bases.arxiv, bases.doi, bases.simbad].some((base) => /^https?:\/\/[^/]/.test(base) && url.startsWith(`${base}/`));
}

/** Whether a Markdown link is a web link the app may offer to open. */
export function webLink(href: string | null | undefined): href is string {
  return typeof href === "string" && /^https?:\/\/[^/\s]/i.test(href.trim());
}
