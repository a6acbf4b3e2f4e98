import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type LocalParts, type SettingField, type SettingsView } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { LANGUAGES, setLanguage, type Language } from "../i18n";
import { type Theme } from "../app/theme";
import { PRESETS, presetOf } from "../app/presets";
import { AboutSection, PartsList } from "./AboutSection";
import { McpSection } from "./McpSection";

export { PRESETS };

const MAIN = ["LLM_BASE_URL", "LLM_MODEL", "FALLBACK_MODEL", "LLM_API_KEY", "ENABLE_THINKING", "ADS_API_TOKEN", "EMBEDDINGS", "LOCAL_EMBEDDING_MODEL", "EMBEDDING_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_API_KEY", "ASTERISM_MAX_STEPS", "MEMORY_EXTRACTION"];
/** The agent's workspace folder: chosen in a native folder dialog only, never typed. */
const WORKSPACE = "ASTERISM_WORKSPACE";
const CHOICES: Record<string, string[]> = {
  EMBEDDINGS: ["auto", "local", "remote", "none"],
  LOCAL_EMBEDDING_MODEL: ["bge-small", "minilm"],
  ENABLE_THINKING: ["false", "true"],
  MEMORY_EXTRACTION: ["false", "true"],
};

type Props = { theme: Theme; onTheme: (theme: Theme) => void; onSaved: () => void };

/** Provider, keys (masked; stored in the system keyring), library and appearance. */
export function SettingsPanel({ theme, onTheme, onSaved }: Props) {
  const { t, i18n } = useTranslation();
  const toasts = useToasts();
  const [view, setView] = useState<SettingsView | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [parts, setParts] = useState<LocalParts | null>(null);

  const load = (next: SettingsView) => {
    setView(next);
    setValues(Object.fromEntries(next.fields.filter((f) => !f.secret).map((f) => [f.name, f.value])));
    setSecrets({});
  };
  useEffect(() => {
    call(commands.settingsGet())
      .then(load)
      .catch((error) => toasts.error(describeError(error)));
    call(commands.appStatus())
      .then((status) => setParts(status.parts))
      .catch((error) => toasts.error(describeError(error)));
  }, [toasts]);

  if (!view) return <section className="panel" data-testid="settings-panel" />;
  const fields = new Map(view.fields.map((field) => [field.name, field]));
  const advanced = view.fields.filter((field) => !MAIN.includes(field.name) && field.name !== WORKSPACE);
  const workspaceField = fields.get(WORKSPACE);

  const applyPreset = (id: string) => {
    const preset = PRESETS.find((p) => p.id === id);
    if (!preset || preset.id === "custom") return;
    setValues({ ...values, LLM_BASE_URL: preset.baseUrl, LLM_MODEL: preset.model, ENABLE_THINKING: String(preset.thinking) });
  };
  const preset = presetOf(values.LLM_BASE_URL ?? "").id;

  const submit = async () => {
    setSaving(true);
    try {
      const changed = view.fields
        .filter((field) => !field.secret && (values[field.name] ?? "") !== field.value)
        .map((field) => ({ name: field.name, value: values[field.name] ?? "" }));
      const keys = Object.entries(secrets).map(([name, value]) => ({ name, value }));
      load(await call(commands.settingsSave(changed, keys)));
      toasts.info(t("settings.saved"));
      onSaved();
    } catch (error) {
      toasts.error(describeError(error));
    } finally {
      setSaving(false);
    }
  };

  // The workspace changes at once (not with Save): the app opens the folder dialog and
  // saves the choice; typed values elsewhere on the page are kept.
  const changeWorkspace = async (change: () => ReturnType<typeof commands.settingsChooseWorkspace>) => {
    setSaving(true);
    try {
      const next = await call(change());
      if (next) {
        setView(next);
        toasts.info(next.workspace ? t("settings.workspaceSet", { folder: next.workspace }) : t("settings.workspaceCleared"));
        onSaved();
      }
    } catch (error) {
      toasts.error(describeError(error));
    } finally {
      setSaving(false);
    }
  };

  const input = (field: SettingField | undefined) => {
    if (!field) return null;
    const id = `setting-${field.name}`;
    const label = t(`settings.fields.${field.name}`, field.name);
    let control;
    if (field.secret) {
      const removing = secrets[field.name] === "";
      control = (
        <span className="secret-field">
          <input
            id={id}
            type="password"
            autoComplete="off"
            data-testid={id}
            placeholder={removing ? t("settings.willRemove") : field.value ? t("settings.secretSet", { masked: field.value, where: field.source }) : t("settings.secretUnset")}
            value={secrets[field.name] ?? ""}
            onChange={(event) => setSecrets({ ...secrets, [field.name]: event.target.value })}
          />
          {field.value && (
            <button type="button" className="link-button" onClick={() => setSecrets({ ...secrets, [field.name]: "" })}>
              {t("settings.remove")}
            </button>
          )}
        </span>
      );
    } else if (CHOICES[field.name]) {
      control = (
        <select id={id} data-testid={id} value={values[field.name] ?? ""} onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}>
          {CHOICES[field.name]!.map((choice) => (
            <option key={choice} value={choice}>
              {t(`settings.choices.${choice}`, choice)}
            </option>
          ))}
        </select>
      );
    } else {
      control = (
        <input id={id} data-testid={id} value={values[field.name] ?? ""} placeholder={field.defaultValue} onChange={(event) => setValues({ ...values, [field.name]: event.target.value })} />
      );
    }
    return (
      <div className="setting" key={field.name}>
        <label htmlFor={id}>{label}</label>
        {control}
        <small className="muted">
          {field.description}
          {field.overridden && <strong className="warn"> {t("settings.overridden", { source: field.source })}</strong>}
        </small>
      </div>
    );
  };

  return (
    <section className="panel settings-panel" data-testid="settings-panel" aria-label={t("settings.title")}>
      <header className="panel-header">
        <h1>{t("settings.title")}</h1>
        <span className="muted">{view.dataDir}</span>
      </header>
      {parts && <PartsList parts={parts} testIdPrefix="part" />}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <fieldset>
          <legend>{t("settings.model")}</legend>
          <div className="setting">
            <label htmlFor="preset">{t("settings.preset")}</label>
            <select id="preset" data-testid="setting-preset" value={preset} onChange={(event) => applyPreset(event.target.value)}>
              {PRESETS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id === "custom" ? t("settings.custom") : p.label}
                </option>
              ))}
            </select>
          </div>
          {["LLM_BASE_URL", "LLM_MODEL", "FALLBACK_MODEL", "LLM_API_KEY", "ENABLE_THINKING", "ASTERISM_MAX_STEPS"].map((name) => input(fields.get(name)))}
        </fieldset>
        <fieldset>
          <legend>{t("settings.services")}</legend>
          {input(fields.get("ADS_API_TOKEN"))}
        </fieldset>
        <fieldset>
          <legend>{t("settings.library")}</legend>
          {["EMBEDDINGS", "EMBEDDING_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_API_KEY", "MEMORY_EXTRACTION"].map((name) => input(fields.get(name)))}
        </fieldset>
        <details>
          <summary>{t("settings.advanced")}</summary>
          {advanced.map((field) => input(field))}
        </details>
        <div className="toolbar">
          <button type="submit" className="primary" data-testid="settings-save" disabled={saving}>
            {saving ? t("common.saving") : t("settings.save")}
          </button>
        </div>
      </form>
      <fieldset data-testid="workspace-setting">
        <legend>{t("settings.agent")}</legend>
        <div className="setting">
          <span>{t("settings.workspace")}</span>
          <span className="workspace-field">
            <span data-testid="workspace-folder">{view.workspace ? <code>{view.workspace}</code> : <span className="muted">{t("settings.workspaceNone")}</span>}</span>
            <button type="button" className="secondary" data-testid="workspace-choose" disabled={saving} onClick={() => void changeWorkspace(() => commands.settingsChooseWorkspace())}>
              {t("settings.chooseWorkspace")}
            </button>
            {view.workspace && (
              <button
                type="button"
                className="link-button"
                data-testid="workspace-clear"
                disabled={saving}
                onClick={() => void changeWorkspace(() => commands.settingsSave([{ name: WORKSPACE, value: "" }], []))}
              >
                {t("settings.clearWorkspace")}
              </button>
            )}
          </span>
          <small className="muted">
            {t("settings.workspaceHelp")}
            {view.workspaceProblem && <strong className="warn" data-testid="workspace-problem"> {t("settings.workspaceProblem", { problem: view.workspaceProblem })}</strong>}
            {workspaceField?.overridden && <strong className="warn"> {t("settings.overridden", { source: workspaceField.source })}</strong>}
          </small>
        </div>
      </fieldset>
      <fieldset>
        <legend>{t("settings.appearance")}</legend>
        <div className="setting">
          <label htmlFor="language">{t("settings.language")}</label>
          <select id="language" data-testid="language-select" value={i18n.language} onChange={(event) => setLanguage(event.target.value as Language)}>
            {LANGUAGES.map((language) => (
              <option key={language.code} value={language.code}>
                {language.label}
              </option>
            ))}
          </select>
        </div>
        <div className="setting">
          <label htmlFor="theme">{t("settings.theme")}</label>
          <select id="theme" data-testid="theme-select" value={theme} onChange={(event) => onTheme(event.target.value as Theme)}>
            {(["system", "light", "dark"] as const).map((choice) => (
              <option key={choice} value={choice}>
                {t(`settings.themes.${choice}`)}
              </option>
            ))}
          </select>
        </div>
        <p className="muted">{t("shortcuts.list")}</p>
      </fieldset>
      <McpSection />
      <AboutSection />
    </section>
  );
}
