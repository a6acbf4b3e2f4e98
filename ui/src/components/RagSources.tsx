import { useTranslation } from "react-i18next";
import type { JsonValue } from "../bindings";
import { PaperLinks } from "../links/Links";
import { FigureImage, isCaption } from "./FigureImage";

/** A passage a rag_search answer cites (the fields of `Evidence` the card shows). */
export type Source = {
  n: number;
  paperId: string;
  title: string;
  shortRef: string;
  bibcode: string | null;
  arxivId: string | null;
  doi: string | null;
  page: number | null;
  section: string | null;
  /** The passage's words that support each claim citing it, with their page. */
  quotes: { text: string; page: number | null }[];
  /** The model's relevance score (0–10) and summary, when it scored the passages. */
  verdict: { score: number; summary: string } | null;
};

type Obj = Record<string, JsonValue>;
const isObj = (value: JsonValue | undefined): value is Obj => !!value && typeof value === "object" && !Array.isArray(value);

/** The quotes each passage number backs a claim with (`claims[].support[]` of a `RagAnswer`). */
function quotesByPassage(claims: JsonValue | undefined): Map<number, Source["quotes"]> {
  const quotes = new Map<number, Source["quotes"]>();
  for (const claim of Array.isArray(claims) ? claims : []) {
    if (!isObj(claim) || !Array.isArray(claim.support)) continue;
    for (const support of claim.support) {
      if (!isObj(support) || typeof support.n !== "number" || typeof support.quote !== "string") continue;
      const page = typeof support.page === "number" ? support.page : null;
      quotes.set(support.n, [...(quotes.get(support.n) ?? []), { text: support.quote, page }]);
    }
  }
  return quotes;
}

/** The passages a rag_search answer cites, or null when its metadata names none. */
export function asSources(metadata: JsonValue): Source[] | null {
  if (!isObj(metadata)) return null;
  const evidence = metadata.evidence;
  if (!Array.isArray(evidence)) return null;
  const quotes = quotesByPassage(metadata.claims);
  const str = (value: JsonValue | undefined) => (typeof value === "string" ? value : null);
  const num = (value: JsonValue | undefined) => (typeof value === "number" ? value : null);
  const sources = evidence.flatMap((item): Source[] => {
    if (!item || typeof item !== "object" || Array.isArray(item) || item.cited !== true) return [];
    const paperId = str(item.paperId);
    const n = num(item.n);
    if (!paperId || n === null) return [];
    const verdict = isObj(item.verdict) && typeof item.verdict.score === "number" ? { score: item.verdict.score, summary: str(item.verdict.summary) ?? "" } : null;
    return [{ n, paperId, title: str(item.title) ?? "", shortRef: str(item.shortRef) ?? "", bibcode: str(item.bibcode), arxivId: str(item.arxivId), doi: str(item.doi), page: num(item.page), section: str(item.section), quotes: quotes.get(n) ?? [], verdict }];
  });
  return sources.length > 0 ? sources : null;
}

/** The sources of a library answer: each cited paper with its links and its stored PDF. */
export function RagSources({ sources }: { sources: Source[] }) {
  const { t } = useTranslation();
  return (
    <section className="rag-sources" data-testid="rag-sources" aria-label={t("links.sources")}>
      <h3>{t("links.sources")}</h3>
      <ol>
        {sources.map((source) => (
          <li key={source.n} value={source.n} data-testid="rag-source">
            <span className="source-ref" data-testid="rag-source-ref" title={quoteTitle(source.quotes, t)}>
              {source.shortRef}
            </span> <span className="paper-title">{source.title}</span>
            {source.page !== null && <span className="muted"> · {t("library.page", { page: source.page })}</span>}
            {source.section && <span className="muted"> · §{source.section}</span>}{" "}
            <PaperLinks ids={source} file={{ paperId: source.paperId }} />
            {isCaption(source.section) && <FigureImage paperId={source.paperId} label={source.section} />}
            {source.verdict && (
              <p className="muted source-verdict" data-testid="rag-source-verdict">
                {t("links.relevance", { score: source.verdict.score })} {source.verdict.summary}
              </p>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The hover text of a source: each quoted span, with its page. */
function quoteTitle(quotes: Source["quotes"], t: (key: string, options?: Record<string, unknown>) => string) {
  if (quotes.length === 0) return undefined;
  return quotes.map((quote) => (quote.page === null ? `“${quote.text}”` : `${t("library.page", { page: quote.page })}: “${quote.text}”`)).join("\n\n");
}
