import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { PermissionDecision, PermissionGrant } from "../bindings";
import type { PermissionRequestEvent } from "../agent/useResearchAgent";

type Props = {
  request: PermissionRequestEvent;
  /** `rule`: the picked grant's rule with "this session"/"always", else `null`. */
  onAnswer: (requestId: string, decision: PermissionDecision, reason: string | null, rule: string | null) => void;
};

/**
 * Asks the user whether a tool call may run, with its full arguments. "This session" and
 * "always" grant one of the request's grants (narrowest first, the first picked); with
 * none, the call may only be allowed once (a write that could run code later).
 */
export function PermissionCard({ request, onAnswer }: Props) {
  const { t } = useTranslation();
  const [reason, setReason] = useState("");
  const grants: PermissionGrant[] = request.grants ?? [];
  const [rule, setRule] = useState<string | null>(grants[0]?.rule ?? null);
  const picked = grants.find((grant) => grant.rule === rule) ?? grants[0];
  const describeGrant = (grant: PermissionGrant) => t(`permission.grants.${grant.kind}`, { text: grant.text });
  const answer = (decision: PermissionDecision) => {
    const granting = decision === "allowSession" || decision === "allowAlways";
    onAnswer(request.requestId, decision, decision === "deny" ? reason.trim() || null : null, granting ? (picked?.rule ?? null) : null);
  };
  return (
    <section className="permission-card" data-testid="permission-card" data-request-id={request.requestId} aria-label={t("permission.label", { tool: request.tool })}>
      <p>
        <strong>{t("permission.allowTool", { tool: request.tool })}</strong> <span className="muted">{request.reason}</span>
      </p>
      <pre className="output">{JSON.stringify(request.arguments, null, 2)}</pre>
      {grants.length > 1 && (
        <fieldset className="permission-grants" data-testid="permission-grants">
          <legend>{t("permission.grantChoice")}</legend>
          {grants.map((grant) => (
            <label key={grant.rule}>
              <input
                type="radio"
                name={`grant-${request.requestId}`}
                value={grant.rule}
                data-testid={`permission-grant-${grant.kind}`}
                checked={grant.rule === picked?.rule}
                onChange={() => setRule(grant.rule)}
              />{" "}
              {describeGrant(grant)}
            </label>
          ))}
        </fieldset>
      )}
      {picked ? (
        <p className="muted" data-testid="permission-grant-text">
          {t("permission.grantScope", { grant: describeGrant(picked) })}
        </p>
      ) : (
        <p className="muted" data-testid="permission-once-only">
          {t("permission.onceOnly")}
        </p>
      )}
      <div className="permission-actions">
        <button type="button" data-testid="permission-allow-once" onClick={() => answer("allowOnce")}>{t("permission.once")}</button>
        {picked && (
          <>
            <button type="button" data-testid="permission-allow-session" onClick={() => answer("allowSession")}>{t("permission.session")}</button>
            <button type="button" data-testid="permission-allow-always" onClick={() => answer("allowAlways")}>{t("permission.always")}</button>
          </>
        )}
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
