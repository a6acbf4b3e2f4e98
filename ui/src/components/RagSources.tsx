import { useTranslation } from "react-i18next";
import type { JsonValue } from "../bindings";
import { PaperLinks } from "../links/Links";

/** A passage a rag_search answer cites (the fields of `Evidence` the card shows). */
export type Source = {
  n: number;
  paperId: string;
  title: string;
  shortRef: string;
  bibcode: string | null;
  arxivId: string | null;
  page: number | null;
  section: string | null;
};

/** The passages a rag_search answer cites, or null when its metadata names none. */
export function asSources(metadata: JsonValue): Source[] | null {
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const evidence = (metadata as Record<string, JsonValue>).evidence;
  if (!Array.isArray(evidence)) return null;
  const str = (value: JsonValue | undefined) => (typeof value === "string" ? value : null);
  const num = (value: JsonValue | undefined) => (typeof value === "number" ? value : null);
  const sources = evidence.flatMap((item): Source[] => {
    if (!item || typeof item !== "object" || Array.isArray(item) || item.cited !== true) return [];
    const paperId = str(item.paperId);
    const n = num(item.n);
    if (!paperId || n === null) return [];
    return [{ n, paperId, title: str(item.title) ?? "", shortRef: str(item.shortRef) ?? "", bibcode: str(item.bibcode), arxivId: str(item.arxivId), page: num(item.page), section: str(item.section) }];
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
            <span className="source-ref">{source.shortRef}</span> <span className="paper-title">{source.title}</span>
            {source.page !== null && <span className="muted"> · {t("library.page", { page: source.page })}</span>}
            {source.section && <span className="muted"> · §{source.section}</span>}{" "}
            <PaperLinks ids={source} file={{ paperId: source.paperId }} />
          </li>
        ))}
      </ol>
    </section>
  );
}
