import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import { commands, type NewsItem, type NewsList, type Reason } from "../bindings";
import { call, describeError } from "../app/toasts";
import { RemotePaper } from "./RemotePapers";

/** A reason in words: "Close to “…”", "By … (you follow)", "Names Kepler-1627 (in your library)". */
export function reasonText(reason: Reason, t: TFunction): string {
  switch (reason.kind) {
    case "topic":
      return t("news.topic", { titles: reason.papers.map((paper) => `“${paper.title}”`).join(", ") });
    case "author":
      return reason.followed ? t("news.followed", { name: reason.name }) : t("news.frequent", { name: reason.name, count: reason.libraryPapers ?? 0 });
    case "object":
      return reason.separationArcmin == null
        ? t("news.object", { name: reason.name })
        : t("news.nearby", { name: reason.name, object: reason.libraryObject, arcmin: reason.separationArcmin.toFixed(1) });
  }
}

/**
 * Today's arXiv submissions of the chosen categories, best first for this library, each
 * with why; fetched once a day (while the view is open), asked again on Refresh.
 */
export function NewsView() {
  const { t } = useTranslation();
  const [news, setNews] = useState<NewsList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(async (refresh: boolean) => {
    setLoading(true);
    setError(null);
    try {
      setNews(await call(commands.newsToday(refresh)));
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setLoading(false);
    }
  }, []);

  // Asked when the view opens and every hour while it stays open: the engine asks arXiv
  // only for a new day's list, so an open view refreshes once a day and never otherwise.
  useEffect(() => {
    void load(false);
    const hourly = window.setInterval(() => void load(false), 60 * 60 * 1000);
    return () => window.clearInterval(hourly);
  }, [load]);

  return (
    <section className="panel news" aria-label={t("news.title")} data-testid="news-view">
      <header className="toolbar">
        <h1>{t("news.title")}</h1>
        <button type="button" className="secondary" data-testid="news-refresh" disabled={loading} onClick={() => void load(true)}>
          {t("news.refresh")}
        </button>
      </header>
      {loading && !news && <p className="muted">{t("news.loading")}</p>}
      {error && (
        <p className="warn" data-testid="news-error">
          {error}
        </p>
      )}
      {news && (
        <>
          <p className="muted" data-testid="news-summary">
            {t("news.summary", { count: news.submissions ?? 0, categories: news.categories.join(", "), since: news.since, shown: news.items.length })}{" "}
            {news.fromCache ? t("news.cached", { at: news.fetchedAt }) : ""}
          </p>
          {news.notice && (
            <p className="warn" data-testid="news-notice">
              {news.notice}
            </p>
          )}
          <ol className="plain news-list">
            {news.items.map((item) => (
              <NewsEntry key={item.arxivId ?? item.title} item={item} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function NewsEntry({ item }: { item: NewsItem }) {
  const { t } = useTranslation();
  return (
    <RemotePaper paper={item}>
      <div className="news-why" data-testid="news-why">
        <span className="badge score" title={t("news.scoreHelp")}>
          {(item.score ?? 0).toFixed(2)}
        </span>{" "}
        {item.reasons.length === 0 ? <span className="muted">{t("news.noReason")}</span> : item.reasons.map((reason) => reasonText(reason, t)).join(" · ")}
      </div>
    </RemotePaper>
  );
}
