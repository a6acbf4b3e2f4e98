import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { SessionSummary } from "../bindings";

function formatDate(iso: string, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

type Props = {
  sessions: SessionSummary[];
  currentId: string | null;
  disabled: boolean;
  onOpen: (id: string) => void;
  onRename?: (id: string, title: string) => void;
  onDelete?: (id: string) => void;
  /** Exports a session: the app asks where in a native save dialog. */
  onExport?: (id: string) => void;
};

/** Past sessions, newest as the backend orders them; opening one replays it. */
export function SessionList({ sessions, currentId, disabled, onOpen, onRename, onDelete, onExport }: Props) {
  const { t, i18n } = useTranslation();
  const [editing, setEditing] = useState<string | null>(null);
  const [title, setTitle] = useState("");
  const [confirming, setConfirming] = useState<string | null>(null);

  if (sessions.length === 0) {
    return <p className="muted sessions-empty">{t("sessions.none")}</p>;
  }
  return (
    <ul className="session-list" data-testid="session-list" aria-label={t("sessions.label")}>
      {sessions.map((session) => (
        <li key={session.id} data-testid="session-entry" data-session-id={session.id}>
          {editing === session.id ? (
            <form
              className="session-rename"
              onSubmit={(event) => {
                event.preventDefault();
                if (title.trim()) onRename?.(session.id, title.trim());
                setEditing(null);
              }}
            >
              <input
                autoFocus
                aria-label={t("sessions.newTitle")}
                data-testid="session-title-input"
                value={title}
                onChange={(event) => setTitle(event.target.value)}
                onKeyDown={(event) => event.key === "Escape" && setEditing(null)}
              />
            </form>
          ) : (
            <button
              type="button"
              className="session-button"
              aria-current={session.id === currentId ? "true" : undefined}
              disabled={disabled}
              title={session.summary ?? session.title}
              onClick={() => onOpen(session.id)}
            >
              <span className="session-title">{session.title || t("sessions.untitled")}</span>
              <time className="session-date muted" dateTime={session.updatedAt}>
                {formatDate(session.updatedAt, i18n.language)}
              </time>
            </button>
          )}
          {session.id === currentId && editing !== session.id && (onRename || onDelete || onExport) && (
            <div className="session-actions">
              {onRename && (
                <button
                  type="button"
                  className="link-button"
                  disabled={disabled}
                  onClick={() => {
                    setTitle(session.title);
                    setEditing(session.id);
                  }}
                >
                  {t("sessions.rename")}
                </button>
              )}
              {onExport && (
                <button type="button" className="link-button" data-testid="session-export" onClick={() => onExport(session.id)}>
                  {t("sessions.export")}
                </button>
              )}
              {onDelete &&
                (confirming === session.id ? (
                  <button
                    type="button"
                    className="link-button danger"
                    data-testid="session-delete-confirm"
                    disabled={disabled}
                    onClick={() => {
                      setConfirming(null);
                      onDelete(session.id);
                    }}
                  >
                    {t("sessions.confirmDelete")}
                  </button>
                ) : (
                  <button type="button" className="link-button" disabled={disabled} onClick={() => setConfirming(session.id)}>
                    {t("sessions.delete")}
                  </button>
                ))}
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}
