import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { PermissionDecision } from "../bindings";
import type { PermissionRequestEvent } from "../agent/useResearchAgent";

type Props = {
  request: PermissionRequestEvent;
  onAnswer: (requestId: string, decision: PermissionDecision, reason: string | null) => void;
};

/** Asks the user whether a tool call may run, with its full arguments. */
export function PermissionCard({ request, onAnswer }: Props) {
  const { t } = useTranslation();
  const [reason, setReason] = useState("");
  const answer = (decision: PermissionDecision) => onAnswer(request.requestId, decision, decision === "deny" ? reason.trim() || null : null);
  return (
    <section className="permission-card" data-testid="permission-card" aria-label={t("permission.label", { tool: request.tool })}>
      <p>
        <strong>{t("permission.allowTool", { tool: request.tool })}</strong> <span className="muted">{request.reason}</span>
      </p>
      <pre className="output">{JSON.stringify(request.arguments, null, 2)}</pre>
      <div className="permission-actions">
        <button type="button" data-testid="permission-allow-once" onClick={() => answer("allowOnce")}>{t("permission.once")}</button>
        <button type="button" data-testid="permission-allow-session" onClick={() => answer("allowSession")}>{t("permission.session")}</button>
        <button type="button" data-testid="permission-allow-always" onClick={() => answer("allowAlways")}>{t("permission.always")}</button>
        <input
          aria-label={t("permission.reason")}
          placeholder={t("permission.reasonPlaceholder")}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
        <button type="button" className="secondary" data-testid="permission-deny" onClick={() => answer("deny")}>{t("permission.deny")}</button>
      </div>
    </section>
  );
}
