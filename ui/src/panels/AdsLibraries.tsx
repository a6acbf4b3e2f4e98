import { Channel } from "@tauri-apps/api/core";
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type AdsLibrary, type AdsPullProgress, type AdsPulled_Serialize, type AdsPushReport } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";

type Props = {
  /** The library's collections, for the push form. */
  collections: { name: string }[];
  /** A pull or push changed the library's papers or collections. */
  onChanged: () => void;
};

/** What the last pull or push said, kept on screen (the same facts the CLI prints). */
type Outcome = { kind: "pull"; pulled: AdsPulled_Serialize } | { kind: "push"; pushed: AdsPushReport; collection: string };

/**
 * Library → ADS libraries: the user's ADS libraries and those shared with them; pull one
 * into a collection (with its PDFs when asked), push a collection to one. Shared ADS
 * libraries are how a group shares a reading list; Asterism keeps no sync of its own.
 */
export function AdsLibraries({ collections, onChanged }: Props) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [libraries, setLibraries] = useState<AdsLibrary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [progress, setProgress] = useState<AdsPullProgress | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [collection, setCollection] = useState("");
  const [target, setTarget] = useState("");
  const [create, setCreate] = useState(false);
  const [removeMissing, setRemoveMissing] = useState(false);

  const load = useCallback(async () => {
    setError(null);
    try {
      setLibraries(await call(commands.adsLibraries()));
    } catch (failure) {
      setLibraries(null);
      setError(describeError(failure));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const pull = async (library: AdsLibrary, download: boolean) => {
    if (busy) return;
    setBusy(library.id);
    setProgress(null);
    const channel = new Channel<AdsPullProgress>();
    channel.onmessage = setProgress;
    try {
      const pulled = await call(commands.adsPull(library.id, download, channel));
      setOutcome({ kind: "pull", pulled });
      onChanged();
    } catch (failure) {
      toasts.error(describeError(failure));
    } finally {
      setBusy(null);
      setProgress(null);
      void load();
    }
  };

  const push = async () => {
    if (busy || !collection || !target.trim()) return;
    setBusy("push");
    try {
      const pushed = await call(commands.adsPush(collection, target.trim(), create, removeMissing));
      setOutcome({ kind: "push", pushed, collection });
    } catch (failure) {
      toasts.error(describeError(failure));
    } finally {
      setBusy(null);
      void load();
    }
  };

  return (
    <div className="ads-libraries" data-testid="ads-libraries">
      <p className="muted">{t("ads.intro")}</p>
      {error && (
        <p className="error-text" role="alert" data-testid="ads-error">
          {error}
        </p>
      )}
      {libraries && libraries.length === 0 && <p className="muted">{t("ads.none")}</p>}
      {libraries && libraries.length > 0 && (
        <table className="data-table" data-testid="ads-table">
          <thead>
            <tr>
              <th>{t("ads.name")}</th>
              <th>{t("ads.papers")}</th>
              <th>{t("ads.permission")}</th>
              <th>{t("ads.modified")}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {libraries.map((library) => (
              <tr key={library.id} data-testid="ads-row">
                <td>
                  {library.name}
                  {library.permission !== "owner" && <span className="muted"> · {t("ads.sharedBy", { owner: library.owner })}</span>}
                </td>
                <td>{library.numDocuments}</td>
                <td>{library.permission}</td>
                <td>{library.dateLastModified.slice(0, 10)}</td>
                <td className="actions">
                  <button type="button" className="secondary" disabled={busy !== null} onClick={() => void pull(library, false)} data-testid="ads-pull">
                    {busy === library.id ? t("ads.pulling") : t("ads.pull")}
                  </button>
                  <button type="button" className="secondary" disabled={busy !== null} onClick={() => void pull(library, true)} data-testid="ads-pull-pdfs">
                    {t("ads.pullWithPdfs")}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {progress && (
        <p className="muted" data-testid="ads-progress">
          {t("ads.downloading", { done: progress.done + 1, total: progress.total, bibcode: progress.bibcode })}
        </p>
      )}
      <form
        className="filters ads-push"
        onSubmit={(event) => {
          event.preventDefault();
          void push();
        }}
      >
        <select aria-label={t("ads.pushCollection")} data-testid="ads-push-collection" value={collection} onChange={(event) => setCollection(event.target.value)}>
          <option value="">{t("ads.pushCollection")}</option>
          {collections.map((item) => (
            <option key={item.name} value={item.name}>
              {item.name}
            </option>
          ))}
        </select>
        <input
          list="ads-writable"
          aria-label={t("ads.pushTo")}
          placeholder={t("ads.pushTo")}
          data-testid="ads-push-to"
          value={target}
          onChange={(event) => setTarget(event.target.value)}
        />
        <datalist id="ads-writable">
          {(libraries ?? [])
            .filter((library) => library.permission !== "read")
            .map((library) => (
              <option key={library.id} value={library.name} />
            ))}
        </datalist>
        <label>
          <input type="checkbox" checked={create} onChange={(event) => setCreate(event.target.checked)} data-testid="ads-push-create" /> {t("ads.create")}
        </label>
        <label>
          <input type="checkbox" checked={removeMissing} onChange={(event) => setRemoveMissing(event.target.checked)} /> {t("ads.removeMissing")}
        </label>
        <button type="submit" disabled={busy !== null || !collection || !target.trim()} data-testid="ads-push">
          {busy === "push" ? t("ads.pushing") : t("ads.push")}
        </button>
      </form>
      {outcome && <OutcomeText outcome={outcome} />}
    </div>
  );
}

function OutcomeText({ outcome }: { outcome: Outcome }) {
  const { t } = useTranslation();
  if (outcome.kind === "push") {
    const { pushed, collection } = outcome;
    return (
      <div className="ads-outcome" data-testid="ads-outcome">
        <p>{t(pushed.created ? "ads.pushedCreated" : "ads.pushed", { collection, library: pushed.libraryName, added: pushed.added, already: pushed.already, removed: pushed.removed })}</p>
        {pushed.invalid.length > 0 && <p className="muted">{t("ads.invalid", { bibcodes: pushed.invalid.join(", ") })}</p>}
        {pushed.skipped.length > 0 && (
          <>
            <p className="muted">{t("ads.skipped", { count: pushed.skipped.length })}</p>
            <ul>
              {pushed.skipped.map(([id, title]) => (
                <li key={id}>{title || id}</li>
              ))}
            </ul>
          </>
        )}
      </div>
    );
  }
  const { report, downloads } = outcome.pulled;
  const failed = downloads.filter((download) => download.error);
  return (
    <div className="ads-outcome" data-testid="ads-outcome">
      {report.unchanged ? (
        <p>{t("ads.unchanged", { library: report.library.name, collection: report.collection })}</p>
      ) : (
        <p>
          {t("ads.pulled", {
            library: report.library.name,
            collection: report.collection,
            papers: report.bibcodes.length,
            joined: report.joined,
            created: report.created,
            left: report.left.length,
          })}
        </p>
      )}
      {report.renamedFrom && <p className="muted">{t("ads.renamed", { from: report.renamedFrom, to: report.collection })}</p>}
      {report.left.length > 0 && <p className="muted">{t("ads.left", { bibcodes: report.left.join(", ") })}</p>}
      {report.replaced.map(([old, canonical]) => (
        <p key={old} className="muted">
          {t("ads.replaced", { old, canonical })}
        </p>
      ))}
      {downloads.length > 0 && <p>{t("ads.downloaded", { got: downloads.length - failed.length, total: downloads.length })}</p>}
      {failed.length > 0 && (
        <ul className="muted">
          {failed.map((download) => (
            <li key={download.bibcode}>
              {download.bibcode}: {download.error}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
