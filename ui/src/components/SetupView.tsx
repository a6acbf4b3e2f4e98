import { useEffect, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { commands, type EndpointCheck, type LocalServer } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { PRESETS, isLoopback, presetOf, type Preset } from "../app/presets";
import { markFirstContent } from "../app/firstContent";
import { ConfigNotice } from "./ConfigNotice";
import { AlertIcon, CheckIcon } from "./icons";

type Save = (baseUrl: string, model: string, key: string) => void;
type Props = { dataDir: string; onOpenSettings?: () => void; onSaved: () => void };

/**
 * First run without a model: a model server found on this computer (no key), or a
 * provider with its key, tested (`setup_check`) and saved like the Settings panel saves.
 */
export function SetupView({ dataDir, onOpenSettings, onSaved }: Props) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [servers, setServers] = useState<LocalServer[]>([]);
  const [saving, setSaving] = useState(false);
  useEffect(markFirstContent, []);

  useEffect(() => {
    let alive = true;
    call(commands.setupLocalServers())
      .then((found) => alive && setServers(found))
      .catch((error) => alive && toasts.error(describeError(error)));
    return () => {
      alive = false;
    };
  }, [toasts]);

  const save: Save = async (baseUrl, model, key) => {
    setSaving(true);
    try {
      const values = [
        { name: "LLM_BASE_URL", value: baseUrl },
        { name: "LLM_MODEL", value: model },
        { name: "ENABLE_THINKING", value: String(presetOf(baseUrl).thinking) },
      ];
      await call(commands.settingsSave(values, key ? [{ name: "LLM_API_KEY", value: key }] : []));
      toasts.info(t("setup.saved", { model }));
      onSaved();
    } catch (error) {
      toasts.error(describeError(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="setup-view" data-testid="setup-view" aria-label={t("setup.title")}>
      <ConfigNotice dataDir={dataDir} onOpenSettings={onOpenSettings} />
      {servers.map((server) => (
        <LocalOffer key={server.baseUrl} server={server} disabled={saving} onUse={(model) => void save(server.baseUrl, model, "")} />
      ))}
      <h2 className="setup-heading">{servers.length > 0 ? t("setup.orProvider") : t("setup.provider")}</h2>
      <ProviderForm saving={saving} onSave={(baseUrl, model, key) => void save(baseUrl, model, key)} />
    </section>
  );
}

/** "Ollama is running on this computer": its models, and one click to use one. */
function LocalOffer({ server, disabled, onUse }: { server: LocalServer; disabled: boolean; onUse: (model: string) => void }) {
  const { t } = useTranslation();
  const suggested = PRESETS.find((p) => p.id === "ollama")!.model;
  const [model, setModel] = useState(server.models.includes(suggested) ? suggested : (server.models[0] ?? ""));
  const id = `setup-local-${server.name}`;
  return (
    <div className="setup-local" data-testid="setup-local">
      <p>
        <CheckIcon className="ok-mark" /> <strong>{t("setup.local", { name: server.name })}</strong> <span className="muted">{server.baseUrl}</span>
      </p>
      {server.models.length > 0 ? (
        <div className="inline-form">
          <label htmlFor={id}>{t("settings.fields.LLM_MODEL")}</label>
          <select id={id} data-testid="setup-local-model" value={model} onChange={(event) => setModel(event.target.value)}>
            {server.models.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <button type="button" className="primary" data-testid="setup-local-use" disabled={disabled || !model} onClick={() => onUse(model)}>
            {t("setup.useIt")}
          </button>
          <small className="muted">{t("setup.noKey")}</small>
        </div>
      ) : (
        <p className="muted" data-testid="setup-local-empty">
          <Trans i18nKey="setup.localEmpty" values={{ model: suggested }} components={{ code: <code /> }} />
        </p>
      )}
    </div>
  );
}

/** A provider preset or any endpoint: base URL, key (not for this computer), model; Test and Save. */
function ProviderForm({ saving, onSave }: { saving: boolean; onSave: Save }) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [baseUrl, setBaseUrl] = useState("");
  const [key, setKey] = useState("");
  const [model, setModel] = useState("");
  const [picked, setPicked] = useState<string | null>(null);
  const [check, setCheck] = useState<EndpointCheck | null>(null);
  const [testing, setTesting] = useState(false);

  const url = baseUrl.trim();
  const local = isLoopback(url);
  // A key typed before switching to a server on this computer is not sent there.
  const typedKey = local ? "" : key.trim();
  const preset = url ? presetOf(url).id : picked;

  const choose = (next: Preset) => {
    setPicked(next.id);
    setBaseUrl(next.baseUrl);
    setModel(next.model);
    setCheck(null);
  };
  const test = async () => {
    setTesting(true);
    try {
      setCheck(await call(commands.setupCheck(url, typedKey || null, model.trim() || null)));
    } catch (error) {
      setCheck(null);
      toasts.error(describeError(error));
    } finally {
      setTesting(false);
    }
  };

  return (
    <form
      className="setup-form"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(url, model.trim(), typedKey);
      }}
    >
      <div className="setup-presets" role="group" aria-label={t("settings.preset")}>
        {PRESETS.map((p) => (
          <button key={p.id} type="button" className="secondary" data-testid={`setup-preset-${p.id}`} aria-pressed={preset === p.id} onClick={() => choose(p)}>
            {p.id === "custom" ? t("settings.custom") : p.label}
          </button>
        ))}
      </div>
      <div className="setting">
        <label htmlFor="setup-base-url">{t("settings.fields.LLM_BASE_URL")}</label>
        <input
          id="setup-base-url"
          data-testid="setup-base-url"
          value={baseUrl}
          placeholder="https://…/v1"
          onChange={(event) => {
            setBaseUrl(event.target.value);
            setCheck(null);
          }}
        />
      </div>
      {local ? (
        <p className="muted setup-note" data-testid="setup-no-key">
          {t("setup.keyLocal")}
        </p>
      ) : (
        <div className="setting">
          <label htmlFor="setup-key">{t("settings.fields.LLM_API_KEY")}</label>
          <input
            id="setup-key"
            data-testid="setup-key"
            type="password"
            autoComplete="off"
            value={key}
            placeholder={t("setup.keyPlaceholder")}
            onChange={(event) => {
              setKey(event.target.value);
              setCheck(null);
            }}
          />
        </div>
      )}
      <div className="setting">
        <label htmlFor="setup-model">{t("settings.fields.LLM_MODEL")}</label>
        <input id="setup-model" data-testid="setup-model" value={model} onChange={(event) => setModel(event.target.value)} />
      </div>
      {check && check.models.length > 0 && (
        <div className="setting">
          <label htmlFor="setup-model-choice">{t("setup.offered", { count: check.models.length })}</label>
          <select id="setup-model-choice" data-testid="setup-model-choice" value={check.models.includes(model.trim()) ? model.trim() : ""} onChange={(event) => setModel(event.target.value)}>
            <option value="" disabled>
              {t("setup.choose")}
            </option>
            {check.models.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      )}
      {check && (
        <p className={`setup-verdict ${check.ok ? "ok" : "problem"}`} data-testid="setup-verdict" role="status">
          {check.ok ? <CheckIcon /> : <AlertIcon />} {t(check.ok ? "setup.ok" : "setup.problem", { url: check.url, verdict: check.verdict })}
        </p>
      )}
      <div className="toolbar">
        <button type="button" className="secondary" data-testid="setup-test" disabled={!url || testing} onClick={() => void test()}>
          {testing ? t("setup.testing") : t("setup.test")}
        </button>
        <button type="submit" className="primary" data-testid="setup-save" disabled={!url || !model.trim() || saving}>
          {saving ? t("common.saving") : t("setup.save")}
        </button>
      </div>
    </form>
  );
}
