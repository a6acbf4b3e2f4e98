import { Trans, useTranslation } from "react-i18next";

/** Shown when no language model is configured: what to set; the library and replay still work. */
export function ConfigNotice({ dataDir, onOpenSettings }: { dataDir: string; onOpenSettings?: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="config-notice" role="note" data-testid="config-notice">
      <strong>{t("config.title")}</strong>{" "}
      <Trans i18nKey="config.body" values={{ dataDir }} components={{ code: <code />, path: <code className="path" /> }} />{" "}
      {onOpenSettings && (
        <button type="button" className="link-button" data-testid="open-settings" onClick={onOpenSettings}>
          {t("config.open")}
        </button>
      )}
    </div>
  );
}
