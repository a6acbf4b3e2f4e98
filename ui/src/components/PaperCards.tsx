import { useTranslation } from "react-i18next";
import type { JsonValue } from "../bindings";
import { PaperLinks } from "../links/Links";

type Paper = {
  bibcode?: string | null;
  arxivId?: string | null;
  doi?: string | null;
  title: string;
  authors?: string[];
  year?: number | null;
  journal?: string | null;
  citationCount?: number | null;
  local?: string | null;
};

/** The papers of a search_papers result, when its metadata holds them. */
export function asPapers(metadata: JsonValue): Paper[] | null {
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const papers = (metadata as Record<string, JsonValue>).papers;
  if (!Array.isArray(papers)) return null;
  return papers.filter(
    (paper): paper is JsonValue & Paper =>
      !!paper && typeof paper === "object" && !Array.isArray(paper) && typeof (paper as Paper).title === "string",
  );
}

function authorsLine(authors: string[] = []): string {
  if (authors.length === 0) return "";
  if (authors.length <= 3) return authors.join("; ");
  return `${authors[0]} et al.`;
}

/** Search results as cards: title, authors, year, venue, identifiers, citations. */
export function PaperCards({ papers }: { papers: Paper[] }) {
  const { t } = useTranslation();
  if (papers.length === 0) return <p className="muted">{t("papers.none")}</p>;
  return (
    <ol className="paper-cards" data-testid="paper-cards">
      {papers.map((paper, index) => (
        <li key={paper.bibcode ?? paper.arxivId ?? paper.doi ?? index} className="paper-card" data-testid="paper-card">
          <p className="paper-title">{paper.title}</p>
          <p className="paper-meta muted">
            {authorsLine(paper.authors)}
            {paper.year ? ` · ${paper.year}` : ""}
            {paper.journal ? ` · ${paper.journal}` : ""}
          </p>
          <p className="paper-ids">
            {paper.bibcode && <code>{paper.bibcode}</code>}
            {paper.arxivId && <code>arXiv:{paper.arxivId}</code>}
            {paper.doi && <code>doi:{paper.doi}</code>}
            {typeof paper.citationCount === "number" && (
              <span className="muted">{t("papers.citations", { count: paper.citationCount })}</span>
            )}
            {paper.local && paper.local !== "none" && <span className="badge">{t(`papers.local.${paper.local}`, paper.local)}</span>}
          </p>
          <PaperLinks ids={paper} />
        </li>
      ))}
    </ol>
  );
}
