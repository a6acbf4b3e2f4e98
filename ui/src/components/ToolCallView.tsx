import type { JsonValue } from "../bindings";

/** A tool call: the tool's name and its arguments as indented JSON. */
export function ToolCallView({ name, args }: { name: string; args: JsonValue }) {
  return (
    <div className="tool-call">
      <div className="tool-label">
        <span className="tool-icon" aria-hidden="true">
          ⚙
        </span>{" "}
        Calling <code className="tool-name">{name}</code>
      </div>
      <pre className="json" aria-label={`Arguments of ${name}`}>
        {JSON.stringify(args, null, 2)}
      </pre>
    </div>
  );
}
