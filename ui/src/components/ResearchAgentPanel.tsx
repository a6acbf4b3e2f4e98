import { useResearchAgent } from "../agent/useResearchAgent";
import { ConfigNotice } from "./ConfigNotice";
import { PermissionCard } from "./PermissionCard";
import { QuestionBox } from "./QuestionBox";
import { SessionList } from "./SessionList";
import { Timeline } from "./Timeline";

/** The research agent: sessions on the left, the conversation in the centre, input below. */
export function ResearchAgentPanel() {
  const agent = useResearchAgent();
  const { status, running } = agent;

  return (
    <div className="layout">
      <aside className="sidebar" aria-label="Session history">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            ✦
          </span>{" "}
          Asterism
        </div>
        <button
          type="button"
          className="secondary new-session"
          data-testid="new-session"
          disabled={running}
          onClick={agent.newSession}
        >
          + New session
        </button>
        <h2 className="sidebar-heading">History</h2>
        <SessionList
          sessions={agent.sessions}
          currentId={agent.sessionId}
          disabled={running}
          onOpen={(id) => void agent.openSession(id)}
        />
      </aside>

      <main className="main">
        <header className="topbar">
          <h1 className="topbar-title">Research agent</h1>
          {status && (
            <span className="model muted" title="Language model">
              {status.modelConfigured ? status.model : "no model"}
            </span>
          )}
        </header>

        {status && !status.modelConfigured && <ConfigNotice dataDir={status.dataDir} />}

                <Timeline items={agent.items} running={running} />

        {agent.permissions.map((request) => (
          <PermissionCard key={request.requestId} request={request} onAnswer={agent.answerPermission} />
        ))}

        {agent.notice && (
          <div className="toast" role="alert" data-testid="error-toast">
            <span>{agent.notice}</span>
            <button type="button" className="link-button" onClick={agent.dismissNotice}>
              Dismiss
            </button>
          </div>
        )}

        <QuestionBox
          running={running}
          canCancel={agent.sessionId !== null}
          thinkingSupported={status?.thinkingSupported ?? false}
          onSend={agent.send}
          onCancel={() => void agent.cancel()}
        />
      </main>
    </div>
  );
}
