import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";

/**
 * The model's reasoning. Open while it streams; collapses once something follows it
 * (the answer or a tool call). The user can reopen it at any time.
 */
export function ThinkingView({ text, live }: { text: string; live: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(live);
  useEffect(() => {
    if (!live) setOpen(false);
  }, [live]);

  return (
    <details
      className="thinking"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>{live ? t("agent.thinkingLive") : t("agent.thinking")}</summary>
      <div className="thinking-text">{text}</div>
    </details>
  );
}
