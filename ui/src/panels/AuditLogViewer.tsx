import { Fragment, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type AuditFilter, type AuditPage, type JsonValue, type SessionSummary } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";

export const PAGE_SIZE = 50;
const SECRET_KEY = /(api[_-]?key|token|secret|password|authorization|bearer)/i;

/** The arguments as shown: anything under a secret-looking key masked (the log is already
 * redacted when written; this is a second guard for rows from older versions). */
export function redact(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, JsonValue>).map(([key, inner]) => [
        key,
        SECRET_KEY.test(key) && typeof inner === "string" && inner !== "[REDACTED]" ? "[REDACTED]" : redact(inner),
      ]),
    );
  }
  return value;
}

const EMPTY: AuditFilter = { sessionId: null, tool: null, decision: null, outcome: null };

/** Every tool call with its permission decision and outcome: paged, filterable. */
export function AuditLogViewer({ sessions }: { sessions: SessionSummary[] }) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [filter, setFilter] = useState<AuditFilter>(EMPTY);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<AuditPage | null>(null);
  const [open, setOpen] = useState<number | null>(null);

  useEffect(() => {
    let alive = true;
    call(commands.auditPage(filter, offset, PAGE_SIZE))
      .then((result) => alive && setPage(result))
      .catch((error) => alive && toasts.error(describeError(error)));
    return () => {
      alive = false;
    };
  }, [filter, offset, toasts]);

  const choose = (key: keyof AuditFilter) => (event: React.ChangeEvent<HTMLSelectElement>) => {
    setOffset(0);
    setFilter({ ...filter, [key]: event.target.value || null });
  };
  const total = page?.total ?? 0;
  const titles = new Map(sessions.map((session) => [session.id, session.title]));

  return (
    <section className="panel audit-log" data-testid="audit-log" aria-label={t("audit.title")}>
      <header className="panel-header">
        <h1>{t("audit.title")}</h1>
        <div className="filters">
          <select aria-label={t("audit.session")} data-testid="audit-filter-session" value={filter.sessionId ?? ""} onChange={choose("sessionId")}>
            <option value="">{t("audit.allSessions")}</option>
            {sessions.map((session) => (
              <option key={session.id} value={session.id}>
                {session.title || session.id}
              </option>
            ))}
          </select>
          {(["tool", "decision", "outcome"] as const).map((key) => (
            <select key={key} aria-label={t(`audit.${key}`)} data-testid={`audit-filter-${key}`} value={filter[key] ?? ""} onChange={choose(key)}>
              <option value="">{t(`audit.all.${key}`)}</option>
              {(key === "tool" ? page?.tools : key === "decision" ? page?.decisions : page?.outcomes)?.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          ))}
        </div>
      </header>
      {page && page.entries.length === 0 ? (
        <p className="empty muted">{t("audit.empty")}</p>
      ) : (
        <table className="data-table">
          <thead>
            <tr>
              <th>{t("audit.time")}</th>
              <th>{t("audit.session")}</th>
              <th>{t("audit.tool")}</th>
              <th>{t("audit.decision")}</th>
              <th>{t("audit.outcome")}</th>
              <th className="num">{t("audit.duration")}</th>
            </tr>
          </thead>
          <tbody>
            {page?.entries.map((entry) => (
              <Fragment key={entry.id}>
                <tr
                  data-testid="audit-row"
                  className={`clickable outcome-${entry.outcome}`}
                  aria-expanded={open === entry.id}
                  onClick={() => setOpen(open === entry.id ? null : entry.id)}
                >
                  <td>{new Date(entry.createdAt).toLocaleString()}</td>
                  <td className="ellipsis" title={entry.sessionId}>
                    {titles.get(entry.sessionId) ?? entry.sessionId}
                    {entry.agentName !== "main" && <span className="badge">{entry.agentName}</span>}
                  </td>
                  <td>
                    <code>{entry.tool}</code>
                  </td>
                  <td>{entry.decision}</td>
                  <td>{entry.outcome}</td>
                  <td className="num">{Math.round(entry.durationMs ?? 0)} ms</td>
                </tr>
                {open === entry.id && (
                  <tr className="audit-details">
                    <td colSpan={6}>
                      <pre className="json" data-testid="audit-arguments">
                        {JSON.stringify(redact(entry.arguments), null, 2)}
                      </pre>
                      {entry.error && <p className="error-text">{entry.error}</p>}
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      <footer className="pager">
        <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
          {t("audit.newer")}
        </button>
        <span data-testid="audit-range">
          {total === 0 ? "0" : `${offset + 1}–${Math.min(offset + PAGE_SIZE, total)}`} / {total}
        </span>
        <button type="button" className="secondary" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
          {t("audit.older")}
        </button>
      </footer>
    </section>
  );
}
