import type { JsonValue } from "../bindings";
import { TargetCard, asTarget } from "./TargetCard";

type Props = {
  name: string;
  output: string;
  isError: boolean;
  metadata: JsonValue;
  durationMs: number | null;
};

function formatDuration(ms: number | null): string {
  if (ms === null) return "–";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A tool's result: a card for structured results it knows, then the raw output. */
export function ToolResultView({ name, output, isError, metadata, durationMs }: Props) {
  const target = name === "query_target" && !isError ? asTarget(metadata) : null;
  return (
    <div className={isError ? "tool-result is-error" : "tool-result"}>
      <div className="tool-label">
        {isError ? (
          <strong className="error-badge">Tool failed</strong>
        ) : (
          <span className="ok-badge">Result</span>
        )}{" "}
        of <code className="tool-name">{name}</code>{" "}
        <span className="muted">· {formatDuration(durationMs)}</span>
      </div>
      {target && <TargetCard target={target} />}
      {target ? (
        <details className="raw-output">
          <summary>Tool output</summary>
          <pre className="output">{output}</pre>
        </details>
      ) : (
        <pre className="output">{output}</pre>
      )}
    </div>
  );
}
