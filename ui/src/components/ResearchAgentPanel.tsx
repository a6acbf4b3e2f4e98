import { useTranslation } from "react-i18next";
import { type ResearchAgent, useResearchAgent } from "../agent/useResearchAgent";
import { AskUserQuestionCard } from "./AskUserQuestionCard";
import { PermissionCard } from "./PermissionCard";
import { QuestionBox } from "./QuestionBox";
import { SessionList } from "./SessionList";
import { SetupView } from "./SetupView";
import { Timeline } from "./Timeline";
import { LinksProvider } from "../links/Links";

type Props = { agent: ResearchAgent; onOpenSettings?: () => void };

/**
 * The research agent panel: sessions on the left, the conversation in the centre, cards
 * and the composer below. The app passes its agent (kept across panels); without one
 * (tests, anywhere without the app shell) the panel runs its own.
 */
export function ResearchAgentPanel({ agent, onOpenSettings }: Partial<Props>) {
  return agent ? <AgentLayout agent={agent} onOpenSettings={onOpenSettings} /> : <OwnAgent onOpenSettings={onOpenSettings} />;
}

/** The panel with an agent of its own, and the links it names. */
function OwnAgent({ onOpenSettings }: { onOpenSettings?: () => void }) {
  const agent = useResearchAgent();
  return (
    <LinksProvider bases={agent.status?.links ?? null}>
      <AgentLayout agent={agent} onOpenSettings={onOpenSettings} />
    </LinksProvider>
  );
}

function AgentLayout({ agent, onOpenSettings }: Props) {
  const { t } = useTranslation();
  const { status, running } = agent;

  return (
    <div className="layout">
      <aside className="sidebar" aria-label={t("sessions.history")}>
        <button
          type="button"
          className="secondary new-session"
          data-testid="new-session"
          disabled={running}
          title={t("shortcuts.newSession")}
          onClick={agent.newSession}
        >
          + {t("sessions.new")}
        </button>
        <input
          type="search"
          className="session-search"
          data-testid="session-search"
          aria-label={t("sessions.search")}
          placeholder={t("sessions.search")}
          value={agent.sessionQuery}
          onChange={(event) => agent.searchSessions(event.target.value)}
        />
        <h2 className="sidebar-heading">{t("sessions.history")}</h2>
        <SessionList
          sessions={agent.sessions}
          currentId={agent.sessionId}
          disabled={running}
          onOpen={(id) => void agent.openSession(id)}
          onRename={(id, title) => void agent.renameSession(id, title)}
          onDelete={(id) => void agent.deleteSession(id)}
          onExport={(id) => void agent.exportSession(id)}
        />
        <button type="button" className="link-button import-bundle" data-testid="session-import" onClick={() => void agent.importSession()}>
          {t("sessions.import")}
        </button>
      </aside>

      <main className="main">
        <header className="topbar">
          <h1 className="topbar-title">{t("agent.title")}</h1>
          {status && (
            <span className="model muted" title={t("agent.model")}>
              {status.modelConfigured ? status.model : t("agent.noModel")}
            </span>
          )}
        </header>

        {status && !status.modelConfigured && (
          <SetupView dataDir={status.dataDir} onOpenSettings={onOpenSettings} onSaved={() => void agent.refreshStatus()} />
        )}

        <Timeline items={agent.items} before={agent.before} running={running} />

        {agent.questions.map((question) => (
          <AskUserQuestionCard key={question.requestId} question={question} onAnswer={(id, answer) => void agent.answerQuestion(id, answer)} />
        ))}
        {agent.permissions.map((request) => (
          <PermissionCard key={request.requestId} request={request} onAnswer={agent.answerPermission} />
        ))}

        {agent.notice && (
          <div className="toast inline-toast" role="alert" data-testid="error-toast">
            <span>{agent.notice}</span>
            <button type="button" className="link-button" onClick={agent.dismissNotice}>
              {t("common.dismiss")}
            </button>
          </div>
        )}

        <QuestionBox
          running={running}
          canCancel={agent.sessionId !== null}
          thinkingSupported={status?.thinkingSupported ?? false}
          disabled={status !== null && !status.modelConfigured}
          onSend={agent.send}
          onCancel={() => void agent.cancel()}
        />
      </main>
    </div>
  );
}
