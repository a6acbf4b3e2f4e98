import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { commands, type PaperRecord } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { PaperLinks } from "../links/Links";

/** The identifier ADS or arXiv knows a paper by, to add it with. */
export function remoteId(paper: PaperRecord): string | null {
  return paper.bibcode ?? paper.arxivId ?? paper.doi ?? null;
}

/** "Bouma, L. G.; Curtis, J. L. et al." */
export function authorsLine(authors: string[], shown = 3): string {
  const first = authors.slice(0, shown).join("; ");
  return authors.length > shown ? `${first} et al.` : first;
}

/**
 * A paper that is not (or not necessarily) in the library: title, authors, year, links
 * to ADS and arXiv, and "Add to library" (metadata and PDF), or the mark that it is in.
 */
export function RemotePaper({ paper, children }: { paper: PaperRecord; children?: ReactNode }) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [state, setState] = useState<"idle" | "adding" | "added">(paper.local.inLibrary ? "added" : "idle");
  const id = remoteId(paper);

  const add = async () => {
    if (!id) return;
    setState("adding");
    try {
      const added = await call(commands.paperAdd(id));
      setState("added");
      toasts.info(t(added.alreadyPresent ? "remote.alreadyThere" : "remote.added", { title: added.title }));
    } catch (error) {
      setState("idle");
      toasts.error(describeError(error));
    }
  };

  return (
    <li className="remote-paper" data-testid="remote-paper">
      <div className="remote-title" data-testid="remote-title">
        {paper.title}
      </div>
      <div className="muted">
        {authorsLine(paper.authors)} {paper.year ? `(${paper.year})` : ""} {paper.categories.length > 0 && `· ${paper.categories.join(", ")}`}
      </div>
      {children}
      <div className="remote-actions">
        <PaperLinks ids={paper} />
        {state === "added" ? (
          <span className="badge" data-testid="in-library">
            {t("remote.inLibrary")}
          </span>
        ) : (
          id && (
            <button type="button" className="secondary" data-testid="add-paper" disabled={state === "adding"} onClick={() => void add()}>
              {state === "adding" ? t("remote.adding") : t("remote.add")}
            </button>
          )
        )}
      </div>
    </li>
  );
}
