import { useTranslation } from "react-i18next";
import type { ImportedFile } from "../bindings";

/** A file of an import worth a line of its own: not imported, or imported with a warning. */
export function noteworthy(file: ImportedFile): boolean {
  return file.outcome === "failed" || file.outcome === "skipped" || Boolean(file.message);
}

/** What the user can do about a file, by what happened to it. */
function hintKey(file: ImportedFile): string {
  const reason = (file.message ?? "").toLowerCase();
  if (file.outcome === "skipped") return "library.results.hintSkipped";
  if (reason.includes("encrypt") || reason.includes("password")) return "library.results.hintEncrypted";
  if (reason.includes("scanned") || reason.includes("no text")) return "library.results.hintScanned";
  if (file.outcome === "failed") return "library.results.hintFailed";
  return "";
}

/**
 * What happened to each file of the last import that needs the user: the file, the
 * reason, what to do, and Retry for a file that failed. Stays until dismissed.
 */
export function ImportResults({
  files,
  onRetry,
  onDismiss,
}: {
  files: ImportedFile[];
  onRetry: (path: string) => void;
  onDismiss: () => void;
}) {
  const { t } = useTranslation();
  if (files.length === 0) return null;
  return (
    <section className="import-results" data-testid="import-results" aria-label={t("library.results.title")}>
      <header className="toolbar">
        <h3>{t("library.results.title")}</h3>
        <button type="button" className="link-button" onClick={onDismiss}>
          {t("common.dismiss")}
        </button>
      </header>
      <ul className="plain">
        {files.map((file) => {
          const hint = hintKey(file);
          return (
            <li key={file.path} className={`import-result outcome-${file.outcome}`} data-testid="import-result">
              <span className="badge">{t(`library.results.outcome.${file.outcome}`, { defaultValue: file.outcome })}</span>{" "}
              <strong title={file.path}>{file.path.split(/[\\/]/).pop()}</strong>
              {file.message && <span className="muted"> · {file.message}</span>}
              {hint && <div className="hint">{t(hint)}</div>}
              {file.outcome === "failed" && (
                <button type="button" className="secondary" data-testid="import-retry" onClick={() => onRetry(file.path)}>
                  {t("library.results.retry")}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
