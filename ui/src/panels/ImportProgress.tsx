import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { EmbeddingProgress } from "../bindings";

/** Where an import is: files done, then passages embedded, each with when it began. */
export type ImportProgressState = {
  files: number;
  total: number;
  last: string;
  started: number;
  embedded: number;
  toEmbed: number;
  embedStarted: number | null;
};

/** Milliseconds left at the pace so far; `null` before the first item is done or after the last. */
export function remaining(started: number, now: number, done: number, total: number): number | null {
  if (done <= 0 || done >= total) return null;
  return ((now - started) / done) * (total - done);
}

/** `m:ss` (or `h:mm:ss` past an hour), rounded up to the second. */
export function clock(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** The import's bar: count, the file at hand, the time left, and Cancel. */
export function ImportProgress({ progress, stopping, onStop }: { progress: ImportProgressState; stopping: boolean; onStop: () => void }) {
  const { t } = useTranslation();
  const embedding = progress.embedStarted !== null;
  const [done, total] = embedding ? [progress.embedded, progress.toEmbed] : [progress.files, progress.total];
  const left = remaining(embedding ? progress.embedStarted! : progress.started, Date.now(), done, total);
  return (
    <div className="import-progress" data-testid="import-progress" role="status">
      <progress max={total || 1} value={done} />
      <span>
        {embedding
          ? t("library.embedding", { done, total })
          : total > 0
            ? t("library.importing", { done, total, file: progress.last })
            : t("library.importStarting")}
        {left !== null && <span className="muted" data-testid="import-eta">{` · ${t("library.eta", { time: clock(left) })}`}</span>}
      </span>
      <button type="button" className="link-button" data-testid="import-cancel" disabled={stopping} onClick={onStop}>
        {stopping ? t("library.stopping") : t("library.cancelImport")}
      </button>
    </div>
  );
}

/**
 * The embedding the app runs in the background after it starts (passages left without a
 * vector, or the whole library after the local model changed): polled every two
 * seconds, shown with its count and time left while it runs, gone when it ends.
 */
export function BackgroundEmbedding({ poll }: { poll: () => Promise<EmbeddingProgress | null> }) {
  const { t } = useTranslation();
  const [state, setState] = useState<{ progress: EmbeddingProgress; first: EmbeddingProgress; since: number } | null>(null);
  useEffect(() => {
    let alive = true;
    const tick = () =>
      poll()
        .then((progress) => {
          if (!alive) return;
          setState((previous) => (progress ? { progress, first: previous?.first ?? progress, since: previous?.since ?? Date.now() } : null));
        })
        .catch(() => {});
    void tick();
    const timer = window.setInterval(tick, 2000);
    return () => {
      alive = false;
      window.clearInterval(timer);
    };
  }, [poll]);
  if (!state) return null;
  const { progress, first, since } = state;
  // The pace is this view's: passages done since it first saw the run.
  const left = remaining(since, Date.now(), progress.done - first.done, progress.total - first.done);
  return (
    <div className="import-progress" data-testid="background-embedding" role="status">
      <progress max={progress.total || 1} value={progress.done} />
      <span>
        {t("library.embeddingBackground", { done: progress.done, total: progress.total })}
        {left !== null && <span className="muted">{` · ${t("library.eta", { time: clock(left) })}`}</span>}
      </span>
    </div>
  );
}
