import { useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type Link, type Neighbours } from "../bindings";
import { call, describeError } from "../app/toasts";
import { RemotePaper } from "./RemotePapers";

/** How many citing or cited papers one click lists. */
const SHOWN = 25;

/**
 * A library paper's "Cited by" and "References" from ADS, asked only when the user opens
 * one (each is an ADS request); every entry can be opened, added or followed further.
 */
export function PaperGraph({ paperId, canAsk }: { paperId: string; canAsk: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<Link | null>(null);
  const [answers, setAnswers] = useState<Partial<Record<Link, Neighbours>>>({});
  const [error, setError] = useState<string | null>(null);

  const show = async (link: Link) => {
    if (open === link) {
      setOpen(null);
      return;
    }
    setOpen(link);
    setError(null);
    if (answers[link]) return;
    try {
      const found = await call(commands.paperLinks(paperId, link, SHOWN));
      setAnswers((known) => ({ ...known, [link]: found }));
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  if (!canAsk) return null;
  const answer = open ? answers[open] : undefined;
  return (
    <div className="paper-graph" data-testid="paper-graph">
      <div className="toolbar">
        {(["citations", "references"] as const).map((link) => (
          <button
            key={link}
            type="button"
            className="secondary"
            aria-pressed={open === link}
            data-testid={`graph-${link}`}
            onClick={() => void show(link)}
          >
            {answers[link] ? t(`graph.${link}Count`, { count: answers[link]!.numFound }) : t(`graph.${link}`)}
          </button>
        ))}
      </div>
      {open && error && <p className="warn">{error}</p>}
      {answer && (
        <>
          <p className="muted" data-testid="graph-summary">
            {t("graph.summary", { shown: answer.papers.length, count: answer.numFound, inLibrary: answer.papers.filter((p) => p.local.inLibrary).length })}
          </p>
          <ul className="plain">
            {answer.papers.map((paper) => (
              <RemotePaper key={paper.bibcode ?? paper.title} paper={paper}>
                {paper.bibcode && <FollowFurther bibcode={paper.bibcode} />}
              </RemotePaper>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** "Follow": the same two lists for a paper of a list, opened in place. */
function FollowFurther({ bibcode }: { bibcode: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return open ? (
    <div className="follow-further">
      <PaperGraph paperId={bibcode} canAsk />
    </div>
  ) : (
    <button type="button" className="link-button" data-testid="graph-follow" onClick={() => setOpen(true)}>
      {t("graph.follow")}
    </button>
  );
}
