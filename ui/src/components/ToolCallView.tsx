import { useTranslation } from "react-i18next";
import type { JsonValue } from "../bindings";
import { GearIcon } from "./icons";

/** A tool call: the tool's name and its arguments as indented JSON. */
export function ToolCallView({ name, args }: { name: string; args: JsonValue }) {
  const { t } = useTranslation();
  return (
    <div className="tool-call">
      <div className="tool-label">
        <GearIcon className="tool-icon" />{" "}
        {t("tool.calling")} <code className="tool-name">{name}</code>
      </div>
      <pre className="json" aria-label={t("tool.argumentsOf", { name })}>
        {JSON.stringify(args, null, 2)}
      </pre>
    </div>
  );
}
