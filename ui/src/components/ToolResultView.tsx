import { useTranslation } from "react-i18next";
import type { JsonValue } from "../bindings";
import { PaperCards, asPapers } from "./PaperCards";
import { RagSources, asSources } from "./RagSources";
import { FigureImage } from "./FigureImage";
import { TargetCard, asTarget } from "./TargetCard";

type Props = {
  name: string;
  output: string;
  isError: boolean;
  metadata: JsonValue;
  durationMs: number | null;
};

export function formatDuration(ms: number | null): string {
  if (ms === null) return "–";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A tool's result: a card for structured results it knows, then the raw output. */
export function ToolResultView({ name, output, isError, metadata, durationMs }: Props) {
  const { t } = useTranslation();
  const target = name === "query_target" && !isError ? asTarget(metadata) : null;
  const papers = name === "search_papers" && !isError ? asPapers(metadata) : null;
  const sources = name === "rag_search" && !isError ? asSources(metadata) : null;
  const figure = name === "view_figure" && !isError ? asFigure(metadata) : null;
  const card = target ? <TargetCard target={target} /> : papers ? <PaperCards papers={papers} /> : null;
  return (
    <div className={isError ? "tool-result is-error" : "tool-result"}>
      <div className="tool-label">
        {isError ? (
          <strong className="error-badge">{t("tool.failed")}</strong>
        ) : (
          <span className="ok-badge">{t("tool.result")}</span>
        )}{" "}
        <code className="tool-name">{name}</code> <span className="muted">· {formatDuration(durationMs)}</span>
      </div>
      {card}
      {card ? (
        <details className="raw-output">
          <summary>{t("tool.output")}</summary>
          <pre className="output">{output}</pre>
        </details>
      ) : (
        <pre className="output">{output}</pre>
      )}
      {sources && <RagSources sources={sources} />}
      {figure && <FigureImage paperId={figure.paperId} label={figure.label} />}
    </div>
  );
}

/** The figure a view_figure call showed the model (its metadata's paper and label). */
function asFigure(metadata: JsonValue): { paperId: string; label: string } | null {
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const { paperId, label } = metadata;
  return typeof paperId === "string" && typeof label === "string" ? { paperId, label } : null;
}
