import type { SessionSummary } from "../bindings";

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

type Props = {
  sessions: SessionSummary[];
  currentId: string | null;
  disabled: boolean;
  onOpen: (id: string) => void;
};

/** Past sessions, newest as the backend orders them; opening one replays it. */
export function SessionList({ sessions, currentId, disabled, onOpen }: Props) {
  if (sessions.length === 0) {
    return <p className="muted sessions-empty">No sessions yet.</p>;
  }
  return (
    <ul className="session-list" data-testid="session-list" aria-label="Sessions">
      {sessions.map((session) => (
        <li key={session.id} data-testid="session-entry" data-session-id={session.id}>
          <button
            type="button"
            className="session-button"
            aria-current={session.id === currentId ? "true" : undefined}
            disabled={disabled}
            title={session.summary ?? session.title}
            onClick={() => onOpen(session.id)}
          >
            <span className="session-title">{session.title || "Untitled session"}</span>
            <time className="session-date muted" dateTime={session.updatedAt}>
              {formatDate(session.updatedAt)}
            </time>
          </button>
        </li>
      ))}
    </ul>
  );
}
