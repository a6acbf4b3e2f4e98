import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { AskUserEvent } from "../agent/useResearchAgent";

type Props = {
  question: AskUserEvent;
  onAnswer: (requestId: string, answer: string) => void;
};

/** The agent asks the user something (ask_user): pick an option or answer in words. */
export function AskUserQuestionCard({ question, onAnswer }: Props) {
  const { t } = useTranslation();
  const [text, setText] = useState("");
  const send = (answer: string) => {
    if (answer.trim()) onAnswer(question.requestId, answer.trim());
  };
  return (
    <section className="ask-card" data-testid="ask-user-card" aria-label={t("ask.label")}>
      <p className="ask-question">
        <strong>{t("ask.title")}</strong> {question.question}
      </p>
      {question.options.length > 0 && (
        <div className="ask-options" role="group" aria-label={t("ask.options")}>
          {question.options.map((option) => (
            <button key={option} type="button" data-testid="ask-user-option" onClick={() => send(option)}>
              {option}
            </button>
          ))}
        </div>
      )}
      <form
        className="ask-free"
        onSubmit={(event) => {
          event.preventDefault();
          send(text);
        }}
      >
        <input
          data-testid="ask-user-input"
          aria-label={t("ask.yourAnswer")}
          placeholder={t("ask.placeholder")}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" className="primary" disabled={!text.trim()} data-testid="ask-user-send">
          {t("ask.send")}
        </button>
      </form>
    </section>
  );
}
