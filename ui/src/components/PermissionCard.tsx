import { useState } from "react";
import type { PermissionDecision } from "../bindings";
import type { PermissionRequestEvent } from "../agent/useResearchAgent";

type Props = {
  request: PermissionRequestEvent;
  onAnswer: (requestId: string, decision: PermissionDecision, reason: string | null) => void;
};

/** Asks the user whether a tool call may run, with its full arguments. */
export function PermissionCard({ request, onAnswer }: Props) {
  const [reason, setReason] = useState("");
  const answer = (decision: PermissionDecision) => onAnswer(request.requestId, decision, decision === "deny" ? reason.trim() || null : null);
  return (
    <section className="permission-card" data-testid="permission-card" aria-label={`Permission for ${request.tool}`}>
      <p>
        <strong>Allow {request.tool}?</strong> <span className="muted">{request.reason}</span>
      </p>
      <pre className="output">{JSON.stringify(request.arguments, null, 2)}</pre>
      <div className="permission-actions">
        <button type="button" onClick={() => answer("allowOnce")}>Allow once</button>
        <button type="button" onClick={() => answer("allowSession")}>Allow for this session</button>
        <button type="button" onClick={() => answer("allowAlways")}>Always allow</button>
        <input
          aria-label="Reason for denying"
          placeholder="Reason (optional, the agent sees it)"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
        <button type="button" className="secondary" onClick={() => answer("deny")}>Deny</button>
      </div>
    </section>
  );
}
