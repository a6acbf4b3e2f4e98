import { useEffect, useRef, useState, type FormEvent } from "react";
import { Trans, useTranslation } from "react-i18next";
import { commands, type McpServerView, type McpView } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { AlertIcon, CheckIcon } from "../components/icons";

/**
 * A command line split into words at whitespace; "double quotes" keep whitespace inside
 * one word (and are dropped, as in a shell: `--dir="My Papers"` is `--dir=My Papers`).
 * No escapes. `null` when a quote is not closed.
 */
export function splitCommandLine(line: string): string[] | null {
  const words: string[] = [];
  let word = "";
  let started = false;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && /\s/.test(ch)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += ch;
      started = true;
    }
  }
  if (quoted) return null;
  if (started) words.push(word);
  return words;
}

/** As the app checks it: the agent calls the tools `mcp__NAME__TOOL`. */
const NAME = /^[A-Za-z0-9_-]{1,32}$/;
const validName = (name: string) => NAME.test(name) && !name.includes("__");

type Kind = "stdio" | "url";
/** What `pending` holds while a server is being added. */
const ADDING = "\u0000add";

/**
 * The MCP servers of `mcp.json` (shared with `asterism mcp`): each with its state and
 * tools, turned on and off, removed; and a form to add one (the app confirms that in a
 * native box, so a declined add comes back as an error).
 */
export function McpSection() {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [view, setView] = useState<McpView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  // A list a change answered is newer than one a slow first load answers later.
  const changes = useRef(0);

  const load = () => {
    const at = changes.current;
    setLoadError(null);
    let alive = true;
    call(commands.mcpServers())
      .then((next) => alive && at === changes.current && setView(next))
      .catch((error) => {
        if (!alive) return;
        setLoadError(describeError(error));
        toasts.error(describeError(error));
      });
    return () => {
      alive = false;
    };
  };
  useEffect(() => load(), [toasts]);

  /** Runs one change; its answer replaces the list. True when it went through. */
  const change = async (key: string, run: () => ReturnType<typeof commands.mcpServers>): Promise<boolean> => {
    setPending(key);
    try {
      const next = await call(run());
      changes.current += 1;
      setView(next);
      setLoadError(null);
      return true;
    } catch (error) {
      toasts.error(describeError(error));
      return false;
    } finally {
      setPending(null);
    }
  };

  const setEnabled = (server: McpServerView, enabled: boolean) => void change(server.name, () => commands.mcpSetEnabled(server.name, enabled));
  const remove = async (name: string) => {
    setConfirming(null);
    if (await change(name, () => commands.mcpRemove(name))) toasts.info(t("mcp.removed", { name }));
  };
  const toggleTools = (name: string) => {
    const next = new Set(open);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setOpen(next);
  };

  return (
    <fieldset className="mcp" data-testid="mcp-section">
      <legend>{t("mcp.title")}</legend>
      <p className="muted" data-testid="mcp-asks">
        <Trans i18nKey="mcp.asks" components={{ code: <code /> }} />
      </p>
      {view ? (
        <>
          <p className="muted" data-testid="mcp-config">
            <Trans i18nKey="mcp.where" values={{ path: view.configPath }} components={{ code: <code />, path: <code className="path" /> }} />
          </p>
          {view.problem && (
            <p className="warn" role="alert" data-testid="mcp-problem">
              <AlertIcon /> {t("mcp.problem", { problem: view.problem })}
            </p>
          )}
          {view.servers.length === 0 ? (
            <p className="muted" data-testid="mcp-empty">
              {t("mcp.none")}
            </p>
          ) : (
            <ul className="mcp-servers">
              {view.servers.map((server) => (
                <ServerRow
                  key={server.name}
                  server={server}
                  busy={pending !== null}
                  working={pending === server.name}
                  confirming={confirming === server.name}
                  toolsOpen={open.has(server.name)}
                  onToggleTools={() => toggleTools(server.name)}
                  onEnabled={(enabled) => setEnabled(server, enabled)}
                  onAskRemove={() => setConfirming(server.name)}
                  onCancelRemove={() => setConfirming(null)}
                  onRemove={() => void remove(server.name)}
                />
              ))}
            </ul>
          )}
        </>
      ) : loadError ? (
        <p className="warn" data-testid="mcp-load-error">
          {t("mcp.loadFailed", { error: loadError })}{" "}
          <button type="button" className="link-button" onClick={() => load()}>
            {t("mcp.retry")}
          </button>
        </p>
      ) : (
        <p className="muted" role="status" data-testid="mcp-loading">
          {t("mcp.loading")}
        </p>
      )}
      <AddServer
        existing={view?.servers.map((server) => server.name) ?? []}
        busy={pending !== null}
        adding={pending === ADDING}
        onAdd={async (name, command, args, url) => {
          const added = await change(ADDING, () => commands.mcpAdd(name, command, args, url));
          if (added) toasts.info(t("mcp.added", { name }));
          return added;
        }}
      />
    </fieldset>
  );
}

type RowProps = {
  server: McpServerView;
  busy: boolean;
  working: boolean;
  confirming: boolean;
  toolsOpen: boolean;
  onToggleTools: () => void;
  onEnabled: (enabled: boolean) => void;
  onAskRemove: () => void;
  onCancelRemove: () => void;
  onRemove: () => void;
};

/** One server: name, state, endpoint, the switch, removal (asked inline), its tools. */
function ServerRow({ server, busy, working, confirming, toolsOpen, onToggleTools, onEnabled, onAskRemove, onCancelRemove, onRemove }: RowProps) {
  const { t } = useTranslation();
  const toolsId = `mcp-tools-${server.name}`;
  return (
    <li className="mcp-server" data-testid="mcp-server" data-name={server.name}>
      <div className="mcp-server-head">
        <strong className="mcp-name" data-testid="mcp-name">
          {server.name}
        </strong>
        <span className={`badge mcp-state mcp-state-${server.state}`} data-testid="mcp-state">
          {server.state === "running" && <CheckIcon />}
          {server.state === "failed" && <AlertIcon />}
          {t(`mcp.states.${server.state}`, server.state)}
        </span>
        {working && (
          <span className="muted" role="status" data-testid="mcp-working">
            {t("mcp.working")}
          </span>
        )}
        <span className="mcp-actions">
          <label className="mcp-toggle">
            <input
              type="checkbox"
              role="switch"
              data-testid="mcp-enabled"
              checked={server.enabled}
              disabled={busy}
              onChange={(event) => onEnabled(event.target.checked)}
            />{" "}
            {t("mcp.enabled")}
          </label>
          {confirming ? (
            <span className="mcp-confirm" role="group" aria-label={t("mcp.removeAsk", { name: server.name })}>
              <strong>{t("mcp.removeAsk", { name: server.name })}</strong>
              <button type="button" className="link-button danger" data-testid="mcp-remove-yes" disabled={busy} onClick={onRemove}>
                {t("mcp.removeYes")}
              </button>
              <button type="button" className="link-button" data-testid="mcp-remove-no" onClick={onCancelRemove}>
                {t("common.cancel")}
              </button>
            </span>
          ) : (
            <button type="button" className="link-button danger" data-testid="mcp-remove" disabled={busy} onClick={onAskRemove}>
              {t("mcp.remove")}
            </button>
          )}
        </span>
      </div>
      <code className="mcp-endpoint" data-testid="mcp-endpoint">
        {server.endpoint}
      </code>
      {server.why && (
        <p className="warn mcp-why" data-testid="mcp-why">
          {t("mcp.why", { why: server.why })}
        </p>
      )}
      {server.tools.length > 0 ? (
        <>
          <button type="button" className="link-button" data-testid="mcp-tools-toggle" aria-expanded={toolsOpen} aria-controls={toolsId} onClick={onToggleTools}>
            {t("mcp.tools", { count: server.tools.length })}
          </button>
          {toolsOpen && (
            <ul className="mcp-tools" id={toolsId} data-testid="mcp-tools">
              {server.tools.map((tool) => (
                <li key={tool.name} data-testid="mcp-tool">
                  <code>{tool.name}</code>
                  {tool.description && <span className="muted"> — {tool.description}</span>}
                </li>
              ))}
            </ul>
          )}
        </>
      ) : (
        server.state === "running" && (
          <p className="muted mcp-no-tools" data-testid="mcp-no-tools">
            {t("mcp.noTools")}
          </p>
        )
      )}
    </li>
  );
}

type AddProps = {
  existing: string[];
  busy: boolean;
  adding: boolean;
  onAdd: (name: string, command: string | null, args: string[], url: string | null) => Promise<boolean>;
};

/** The form: a name, and a program with its arguments or a URL. */
function AddServer({ existing, busy, adding, onAdd }: AddProps) {
  const { t } = useTranslation();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("stdio");
  const [commandLine, setCommandLine] = useState("");
  const [url, setUrl] = useState("");

  const trimmed = name.trim();
  const words = splitCommandLine(commandLine);
  const nameProblem = trimmed !== "" && !validName(trimmed);
  const ready = validName(trimmed) && (kind === "stdio" ? (words?.length ?? 0) > 0 && words![0] !== "" : url.trim() !== "");

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready || busy) return;
    const added = kind === "stdio" ? await onAdd(trimmed, words![0]!, words!.slice(1), null) : await onAdd(trimmed, null, [], url.trim());
    if (added) {
      setName("");
      setCommandLine("");
      setUrl("");
    }
  };

  return (
    <form className="mcp-add" data-testid="mcp-add" noValidate onSubmit={(event) => void submit(event)}>
      <h2 className="about-heading">{t("mcp.add")}</h2>
      <div className="setting">
        <label htmlFor="mcp-add-name">{t("mcp.name")}</label>
        <input id="mcp-add-name" data-testid="mcp-add-name" autoComplete="off" spellCheck={false} value={name} onChange={(event) => setName(event.target.value)} />
        <small className={nameProblem ? "warn" : "muted"} data-testid="mcp-add-name-help">
          {nameProblem ? t("mcp.nameInvalid") : existing.includes(trimmed) ? t("mcp.replaces", { name: trimmed }) : t("mcp.nameHelp")}
        </small>
      </div>
      <div className="setting">
        <span id="mcp-add-kind">{t("mcp.kind")}</span>
        <span className="mcp-kinds" role="radiogroup" aria-labelledby="mcp-add-kind">
          {(["stdio", "url"] as const).map((choice) => (
            <label key={choice}>
              <input type="radio" name="mcp-kind" data-testid={`mcp-kind-${choice}`} value={choice} checked={kind === choice} onChange={() => setKind(choice)} /> {t(`mcp.kinds.${choice}`)}
            </label>
          ))}
        </span>
      </div>
      {kind === "stdio" ? (
        <div className="setting">
          <label htmlFor="mcp-add-command">{t("mcp.commandLine")}</label>
          <input
            id="mcp-add-command"
            className="mono"
            data-testid="mcp-add-command"
            autoComplete="off"
            spellCheck={false}
            placeholder={'npx -y @modelcontextprotocol/server-filesystem "/home/me/My Papers"'}
            value={commandLine}
            onChange={(event) => setCommandLine(event.target.value)}
          />
          <small className={words === null ? "warn" : "muted"} data-testid="mcp-add-command-help">
            {words === null ? t("mcp.unclosedQuote") : t("mcp.commandHelp")}
          </small>
        </div>
      ) : (
        <div className="setting">
          <label htmlFor="mcp-add-url">{t("mcp.address")}</label>
          <input
            id="mcp-add-url"
            className="mono"
            type="url"
            data-testid="mcp-add-url"
            autoComplete="off"
            spellCheck={false}
            placeholder="http://localhost:8000/mcp"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
          />
        </div>
      )}
      <div className="toolbar">
        <button type="submit" className="primary" data-testid="mcp-add-submit" disabled={!ready || busy}>
          {adding ? t("mcp.adding") : t("mcp.addButton")}
        </button>
        <small className="muted">{t("mcp.confirmHint")}</small>
      </div>
    </form>
  );
}
