import { useEffect, useState, type KeyboardEvent } from "react";
import { markFirstContent } from "../app/firstContent";
import { useTranslation } from "react-i18next";

type Props = {
  running: boolean;
  canCancel: boolean;
  thinkingSupported: boolean;
  /** No model configured: nothing to send to. */
  disabled?: boolean;
  onSend: (question: string, enableThinking: boolean) => Promise<boolean>;
  onCancel: () => void;
};

/** The composer: Enter (or Ctrl/Cmd+Enter) sends, Shift+Enter starts a new line. */
export function QuestionBox({ running, canCancel, thinkingSupported, disabled = false, onSend, onCancel }: Props) {
  const { t } = useTranslation();
  const [question, setQuestion] = useState("");
  const [thinking, setThinking] = useState(false);
  const empty = question.trim() === "";
  useEffect(markFirstContent, []);

  const submit = async () => {
    if (running || empty || disabled) return;
    const sent = question;
    setQuestion("");
    // Give the text back if the run could not start.
    if (!(await onSend(sent, thinkingSupported && thinking))) setQuestion(sent);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== "Enter" || event.nativeEvent.isComposing) return;
    if (event.shiftKey && !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    void submit();
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label htmlFor="question-input" className="visually-hidden">
        {t("composer.label")}
      </label>
      <textarea
        id="question-input"
        data-testid="question-input"
        rows={3}
        placeholder={disabled ? t("composer.noModel") : t("composer.placeholder")}
        value={question}
        disabled={running || disabled}
        onChange={(event) => setQuestion(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {thinkingSupported && (
          <label className="toggle">
            <input
              type="checkbox"
              data-testid="thinking-toggle"
              checked={thinking}
              disabled={running}
              onChange={(event) => setThinking(event.target.checked)}
            />{" "}
            {t("composer.thinking")}
          </label>
        )}
        <span className="spacer" />
        {running && (
          <button
            type="button"
            className="secondary"
            data-testid="cancel-button"
            disabled={!canCancel}
            onClick={onCancel}
          >
            {t("composer.cancel")}
          </button>
        )}
        <button type="submit" className="primary" data-testid="send-button" disabled={running || empty || disabled}>
          {running ? t("composer.working") : t("composer.send")}
        </button>
      </div>
    </form>
  );
}
