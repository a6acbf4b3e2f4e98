import type { TimelineItem } from "../bindings";
import { ThinkingView } from "./ThinkingView";
import { ToolCallView } from "./ToolCallView";
import { ToolResultView } from "./ToolResultView";

/** One timeline entry; `live` is true for the last item of a run still streaming. */
export function TimelineItemView({ item, live }: { item: TimelineItem; live: boolean }) {
  return (
    <article className={`item item-${item.kind}`} data-testid="timeline-item" data-kind={item.kind}>
      {renderBody(item, live)}
    </article>
  );
}

function renderBody(item: TimelineItem, live: boolean) {
  switch (item.kind) {
    case "user":
      return (
        <>
          <h2 className="visually-hidden">Question</h2>
          <p className="user-text">{item.text}</p>
        </>
      );
    case "thinking":
      return <ThinkingView text={item.text} live={live} />;
    case "text":
      return (
        <div className="answer">
          {item.text.split(/\n{2,}/).map((paragraph, index) => (
            <p key={index}>{paragraph}</p>
          ))}
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
      return (
        <div role="status" className="notice-item">
          <span className="notice-kind">{item.noticeKind}</span> {item.message}
        </div>
      );
    case "todos":
      return <TodoListView agentName={item.agentName} todos={item.todos} />;
    case "subagent":
      return (
        <div className="subagent-item">
          <p>
            <strong>Subagent {item.agentName}</strong>: {item.task}
          </p>
          {item.summary === null ? (
            <p className="subagent-working">working…</p>
          ) : (
            <p className="subagent-summary">
              {item.summary} <span className="subagent-steps">({item.steps} steps)</span>
            </p>
          )}
        </div>
      );
    case "error":
      return (
        <div role="alert" className="error-item">
          <strong>Error ({item.errorKind}):</strong> {item.message}
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

const MARKS: Record<string, string> = { completed: "☑", in_progress: "▶", pending: "☐" };

/** An agent's plan as todo_write left it. */
function TodoListView({ agentName, todos }: { agentName: string; todos: unknown }) {
  const entries = Array.isArray(todos) ? (todos as TodoEntry[]) : [];
  return (
    <div className="todos-item">
      <p className="todos-title">Plan{agentName === "main" ? "" : ` of ${agentName}`}</p>
      <ul>
        {entries.map((entry) => (
          <li key={entry.taskId} data-status={entry.status}>
            <span aria-label={entry.status}>{MARKS[entry.status] ?? "☐"}</span> {entry.content}
          </li>
        ))}
      </ul>
    </div>
  );
}
