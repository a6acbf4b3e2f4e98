import { memo, type ComponentType } from "react";
import { useTranslation } from "react-i18next";
import type { TimelineItem } from "../bindings";
import { BoxIcon, CheckedBoxIcon, PlayIcon } from "./icons";
import { Markdown } from "./Markdown";
import { ThinkingView } from "./ThinkingView";
import { ToolCallView } from "./ToolCallView";
import { ToolResultView } from "./ToolResultView";

/** One timeline entry; `live` is true for the last item of a run still streaming. */
/** Memoised: a virtualised list re-renders its rows as it scrolls; items do not change. */
export const TimelineItemView = memo(function TimelineItemView({ item, live }: { item: TimelineItem; live: boolean }) {
  const { t } = useTranslation();
  // A subagent's own steps sit inside its card's indentation.
  const agent = "agentName" in item && item.kind !== "subagent" ? item.agentName : "main";
  const nested = agent !== "main";
  return (
    <article
      className={`item item-${item.kind}${nested ? " nested" : ""}`}
      data-testid="timeline-item"
      data-kind={item.kind}
      data-agent={agent}
    >
      {nested && <span className="agent-tag">{agent}</span>}
      {renderBody(item, live, t)}
    </article>
  );
});

type T = ReturnType<typeof useTranslation>["t"];

function renderBody(item: TimelineItem, live: boolean, t: T) {
  switch (item.kind) {
    case "user":
      return (
        <>
          <h2 className="visually-hidden">{t("agent.question")}</h2>
          <p className="user-text">{item.text}</p>
        </>
      );
    case "thinking":
      return <ThinkingView text={item.text} live={live} />;
    case "text":
      return (
        <div className="answer">
          <Markdown text={item.text} />
        </div>
      );
    case "tool-call":
      return <ToolCallView name={item.name} args={item.arguments} />;
    case "tool-result":
      return (
        <ToolResultView
          name={item.name}
          output={item.output}
          isError={item.isError}
          metadata={item.metadata}
          durationMs={item.durationMs}
        />
      );
    case "notice":
      if (item.noticeKind === "compaction") {
        return (
          <div role="separator" className="compaction-marker" data-testid="compaction-marker">
            <span>{t("notice.compactionMarker")}</span> <span className="muted">{item.message}</span>
          </div>
        );
      }
      return (
        <div role="status" className="notice-item">
          <span className="notice-kind">{t(`notice.${item.noticeKind}`, item.noticeKind)}</span> {item.message}
        </div>
      );
    case "todos":
      return <TodoListView agentName={item.agentName} todos={item.todos} t={t} />;
    case "subagent":
      return (
        <div className="subagent-item">
          <p>
            <strong>{t("agent.subagent", { name: item.agentName })}</strong>: {item.task}
          </p>
          {item.summary === null ? (
            <p className="subagent-working">{t("agent.working")}</p>
          ) : (
            <p className="subagent-summary">
              {item.summary} <span className="subagent-steps">({t("agent.steps", { count: item.steps ?? 0 })})</span>
            </p>
          )}
        </div>
      );
    case "error":
      return (
        <div role="alert" className="error-item">
          <strong>{t("agent.error", { kind: item.errorKind })}</strong> {item.message}
        </div>
      );
  }
}

interface TodoEntry {
  taskId: string;
  content: string;
  status: string;
  blockedBy: string[];
}

const MARKS: Record<string, ComponentType> = { completed: CheckedBoxIcon, in_progress: PlayIcon, pending: BoxIcon };

/** An agent's plan as todo_write left it. */
function TodoListView({ agentName, todos, t }: { agentName: string; todos: unknown; t: T }) {
  const entries = Array.isArray(todos) ? (todos as TodoEntry[]) : [];
  const done = entries.filter((entry) => entry.status === "completed").length;
  return (
    <div className="todos-item" data-testid="todo-list">
      <p className="todos-title">
        {agentName === "main" ? t("agent.plan") : t("agent.planOf", { name: agentName })}{" "}
        <span className="muted">
          {done}/{entries.length}
        </span>
      </p>
      <ul>
        {entries.map((entry) => {
          const Mark = MARKS[entry.status] ?? BoxIcon;
          return (
            <li key={entry.taskId} data-status={entry.status}>
              <span role="img" aria-label={t(`todo.${entry.status}`, entry.status)}>
                <Mark />
              </span>{" "}
              {entry.content}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
