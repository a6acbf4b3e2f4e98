import { Channel } from "@tauri-apps/api/core";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import {
  commands,
  type CollectionInfo,
  type ImportEvent,
  type ImportedFile,
  type ImportPick,
  type ImportSummary,
  type LibraryPaper,
  type PaperDetails,
  type PaperFilter,
  type PassageResults,
} from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { FileActions, PaperLinks } from "../links/Links";
import { FigureImage, isCaption } from "../components/FigureImage";
import type { LibraryRequest } from "../app/navigation";
import { BackgroundEmbedding, ImportProgress, type ImportProgressState } from "./ImportProgress";
import { ImportResults, noteworthy } from "./ImportResults";
import { AdsLibraries } from "./AdsLibraries";
import { LibraryObjects } from "./LibraryObjects";
import { PaperGraph } from "./PaperGraph";

const PdfViewer = lazy(() => import("./PdfViewer"));

/** The app's background embedding, if one runs (see `BackgroundEmbedding`). */
const pollBackgroundEmbedding = () => commands.libraryBackgroundEmbedding();
const NO_FILTER: PaperFilter = { paperId: null, collection: null, yearFrom: null, yearTo: null, author: null };

/** Whether a paper matches the typed text (title, authors, identifiers, tags). */
export function matches(paper: LibraryPaper, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [paper.title, ...paper.authors, paper.bibcode, paper.arxivId, paper.doi, ...paper.tags, ...paper.files.map((f) => f.originalName)]
    .filter((value): value is string => typeof value === "string")
    .some((value) => value.toLowerCase().includes(needle));
}

type Tab = "papers" | "objects" | "ads";

/**
 * The astronomer's papers: import, filter, details, notes, collections, BibTeX, the PDF;
 * and the objects they are about. `request` (another panel's) opens the Objects view
 * with a cone search run.
 */
export function LibraryView({ request = null }: { request?: LibraryRequest | null }) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [tab, setTab] = useState<Tab>(request ? "objects" : "papers");
  // Counts changes of the papers (imports, deletions), after which the objects are read again.
  const [revision, setRevision] = useState(0);
  const [papers, setPapers] = useState<LibraryPaper[]>([]);
  const [collections, setCollections] = useState<CollectionInfo[]>([]);
  const [filter, setFilter] = useState<PaperFilter>(NO_FILTER);
  const [text, setText] = useState("");
  const [passages, setPassages] = useState<PassageResults | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [details, setDetails] = useState<PaperDetails | null>(null);
  const [progress, setProgress] = useState<ImportProgressState | null>(null);
  const [stopping, setStopping] = useState(false);
  // The files of the last import that need the user (failed, skipped, warned).
  const [results, setResults] = useState<ImportedFile[]>([]);
  // An import (or its dialog) is under way: one at a time.
  const [importing, setImporting] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [reading, setReading] = useState(false);
  const [pathText, setPathText] = useState("");

  useEffect(() => {
    if (request) setTab("objects");
  }, [request]);

  const refresh = useCallback(async () => {
    try {
      const [list, groups] = await Promise.all([call(commands.libraryList(filter)), call(commands.libraryCollections())]);
      setPapers(list);
      setCollections(groups);
    } catch (error) {
      toasts.error(describeError(error));
    }
  }, [filter, toasts]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const loadDetails = useCallback(
    async (id: string) => {
      try {
        setDetails(await call(commands.libraryPaper(id)));
      } catch (error) {
        toasts.error(describeError(error));
      }
    },
    [toasts],
  );
  useEffect(() => {
    if (selected) void loadDetails(selected);
    else setDetails(null);
  }, [selected, loadDetails]);

  /**
   * Runs an import command with a progress channel. The app opens the file dialog, or
   * confirms dropped and typed paths in a native message box, so `null` means the user
   * cancelled.
   */
  const runImport = useCallback(
    async (start: (channel: Channel<ImportEvent>) => ReturnType<typeof commands.libraryImport>) => {
      if (importing) return;
      setImporting(true);
      setStopping(false);
      const channel = new Channel<ImportEvent>();
      setResults([]);
      const fresh: ImportProgressState = { files: 0, total: 0, last: "", started: Date.now(), embedded: 0, toEmbed: 0, embedStarted: null };
      setProgress(fresh);
      channel.onmessage = (event) => {
        if (event.kind === "file") {
          if (noteworthy(event)) setResults((all) => [...all.filter((file) => file.path !== event.path), event]);
          setProgress((p) => ({ ...(p ?? fresh), files: event.done, total: event.total, last: event.path.split(/[\\/]/).pop() ?? "" }));
        } else if (event.kind === "embedding") {
          setProgress((p) => ({ ...(p ?? fresh), embedded: event.done, toEmbed: event.total, embedStarted: p?.embedStarted ?? Date.now() }));
        }
      };
      try {
        const summary: ImportSummary | null = await call(start(channel));
        if (summary) {
          // Each file that needs the user is in the results list; the toast is the count.
          toasts.info(t("library.imported", summary));
          if (summary.stopped) toasts.info(t(summary.done < summary.total ? "library.stopped" : "library.stoppedEmbedding", summary));
          if (summary.indexError) toasts.error(summary.indexError);
        }
      } catch (error) {
        toasts.error(describeError(error));
      } finally {
        setImporting(false);
        setProgress(null);
        setRevision((n) => n + 1);
        void refresh();
      }
    },
    [importing, refresh, t, toasts],
  );
  const collection = filter.collection ?? null;
  const importPaths = useCallback(
    async (paths: string[]) => {
      if (paths.length > 0) await runImport((channel) => commands.libraryImportPaths(paths, collection, channel));
    },
    [collection, runImport],
  );

  // Files dropped anywhere on the window while the library is shown are imported.
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let alive = true;
    try {
      getCurrentWebview()
        .onDragDropEvent((event) => {
          if (event.payload.type === "over" || event.payload.type === "enter") setDragging(true);
          else if (event.payload.type === "leave") setDragging(false);
          else if (event.payload.type === "drop") {
            setDragging(false);
            void importPaths(event.payload.paths);
          }
        })
        .then((stop) => (alive ? (unlisten = stop) : stop()))
        .catch(() => {});
    } catch {
      // Outside Tauri (tests without the webview API): no drag and drop.
    }
    return () => {
      alive = false;
      unlisten?.();
    };
  }, [importPaths]);

  const choose = (pick: ImportPick) => runImport((channel) => commands.libraryImport(pick, collection, channel));

  const exportBib = async () => {
    try {
      const result = await call(commands.libraryExportBib(collection));
      if (!result) return;
      toasts.info(t("library.exported", { count: result.entries, path: result.path }));
      for (const note of result.notes) toasts.info(note);
    } catch (error) {
      toasts.error(describeError(error));
    }
  };

  const searchPassages = async () => {
    if (!text.trim()) return setPassages(null);
    try {
      setPassages(await call(commands.librarySearch(text, filter, 20)));
    } catch (error) {
      toasts.error(describeError(error));
    }
  };

  const shown = useMemo(() => papers.filter((paper) => matches(paper, text)), [papers, text]);
  const year = (value: string) => (value.trim() === "" ? null : Number(value));

  return (
    <section className={`panel library-view${dragging ? " dragging" : ""}`} data-testid="library-view" aria-label={t("library.title")}>
      <header className="panel-header">
        <h1>{t("library.title")}</h1>
        <div className="toolbar">
          <button type="button" className="primary" data-testid="library-import" disabled={importing} onClick={() => void choose("files")}>
            {t("library.importFiles")}
          </button>
          <button type="button" className="secondary" data-testid="library-import-folder" disabled={importing} onClick={() => void choose("folder")}>
            {t("library.importFolder")}
          </button>
          <button type="button" className="secondary" data-testid="library-export-bib" onClick={() => void exportBib()}>
            {t("library.exportBib")}
          </button>
        </div>
      </header>
      <form
        className="inline-form path-import"
        onSubmit={(event) => {
          event.preventDefault();
          const paths = pathText.split("\n").map((line) => line.trim()).filter(Boolean);
          setPathText("");
          void importPaths(paths);
        }}
      >
        <input
          data-testid="library-path"
          aria-label={t("library.pathLabel")}
          placeholder={t("library.pathPlaceholder")}
          value={pathText}
          onChange={(event) => setPathText(event.target.value)}
        />
        <button type="submit" className="secondary" data-testid="library-path-import" disabled={!pathText.trim() || importing}>
          {t("library.importPath")}
        </button>
      </form>
      <div className="library-tabs" role="tablist" aria-label={t("library.tabs.label")}>
        {(["papers", "objects", "ads"] as const).map((name) => (
          <button
            key={name}
            type="button"
            role="tab"
            className="library-tab"
            data-testid={`library-tab-${name}`}
            aria-selected={tab === name}
            onClick={() => setTab(name)}
          >
            {t(`library.tabs.${name}`)}
          </button>
        ))}
      </div>
      {/* Hidden, not removed, on the Objects tab: the year fields keep what was typed. */}
      <form
        className="filters"
        hidden={tab !== "papers"}
        onSubmit={(event) => {
          event.preventDefault();
          void searchPassages();
        }}
      >
        <input
          type="search"
          data-testid="library-search"
          aria-label={t("library.search")}
          placeholder={t("library.searchPlaceholder")}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            if (!event.target.value) setPassages(null);
          }}
        />
        <button type="submit" className="secondary" data-testid="library-search-passages">
          {t("library.searchPassages")}
        </button>
        <select aria-label={t("library.collection")} data-testid="library-collection" value={filter.collection ?? ""} onChange={(event) => setFilter({ ...filter, collection: event.target.value || null })}>
          <option value="">{t("library.allCollections")}</option>
          {collections.map((collection) => (
            <option key={collection.name} value={collection.name}>
              {collection.name} ({collection.papers})
            </option>
          ))}
        </select>
        <input className="year" type="number" aria-label={t("library.yearFrom")} placeholder={t("library.yearFrom")} onChange={(event) => setFilter({ ...filter, yearFrom: year(event.target.value) })} />
        <input className="year" type="number" aria-label={t("library.yearTo")} placeholder={t("library.yearTo")} onChange={(event) => setFilter({ ...filter, yearTo: year(event.target.value) })} />
      </form>
      {progress && (
        <ImportProgress
          progress={progress}
          stopping={stopping}
          onStop={() => {
            setStopping(true);
            commands.libraryImportCancel().catch((error) => toasts.error(describeError(error)));
          }}
        />
      )}
      {!progress && <BackgroundEmbedding poll={pollBackgroundEmbedding} />}
      <ImportResults files={results} onRetry={(path) => void importPaths([path])} onDismiss={() => setResults([])} />
      {dragging && <div className="drop-hint">{t("library.dropHint")}</div>}

      <div className="library-body">
        <div className="library-list">
          {tab === "ads" ? (
            <AdsLibraries
              collections={collections}
              onChanged={() => {
                setRevision((n) => n + 1);
                void refresh();
              }}
            />
          ) : tab === "objects" ? (
            <LibraryObjects selected={selected} onSelect={setSelected} request={request} revision={revision} />
          ) : (
            <>
              {passages && (
                <div className="passages" data-testid="passages">
                  {passages.note && <p className="muted">{passages.note}</p>}
                  {passages.hits.length === 0 && <p className="muted">{t("library.noPassages")}</p>}
                  {passages.hits.map((hit, index) => (
                    <div key={index} className="passage-hit" data-testid="passage-hit">
                      <button type="button" className="passage" onClick={() => setSelected(hit.paperId)}>
                        <strong>{hit.title}</strong>{" "}
                        <span className="muted">
                          {hit.page !== null && t("library.page", { page: hit.page })}
                          {hit.pages && ` (${t("library.pages", { first: hit.pages.first, last: hit.pages.last })})`}
                          {hit.section && ` · §${hit.section}`}
                        </span>
                        <span className="passage-text" data-testid="passage-snippet">
                          <Highlighted text={hit.snippet || hit.text.slice(0, 280)} marks={hit.snippet ? hit.marks : []} />
                        </span>
                      </button>
                      <PaperLinks ids={papers.find((paper) => paper.id === hit.paperId) ?? {}} file={{ paperId: hit.paperId }} />
                      {isCaption(hit.section) && <FigureImage paperId={hit.paperId} label={hit.section} />}
                    </div>
                  ))}
                </div>
              )}
              {papers.length === 0 ? (
                <div className="empty muted" data-testid="library-empty">
                  <p>{t("library.empty")}</p>
                </div>
              ) : (
                <table className="data-table" data-testid="library-table">
                  <thead>
                    <tr>
                      <th>{t("library.paperTitle")}</th>
                      <th>{t("library.authors")}</th>
                      <th className="num">{t("library.year")}</th>
                      <th>{t("library.status")}</th>
                      <th className="num">{t("library.passages")}</th>
                      <th>{t("links.title")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((paper) => (
                      <tr
                        key={paper.id}
                        data-testid="library-row"
                        className="clickable"
                        aria-selected={paper.id === selected}
                        onClick={() => setSelected(paper.id === selected ? null : paper.id)}
                      >
                        <td className="title-cell">{paper.title || paper.files[0]?.originalName || paper.id}</td>
                        <td className="ellipsis">{paper.authors.length > 1 ? `${paper.authors[0]} et al.` : (paper.authors[0] ?? "")}</td>
                        <td className="num">{paper.year ?? ""}</td>
                        <td>
                          <span className={`badge status-${paper.status}`}>{t(`library.statuses.${paper.status}`, paper.status)}</span>
                        </td>
                        <td className="num">{paper.chunks}</td>
                        <td className="links-cell">
                          <PaperLinks ids={paper} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </>
          )}
        </div>
        {details && (
          <PaperPanel
            details={details}
            collections={collections}
            onRead={() => setReading(true)}
            onChanged={() => {
              void loadDetails(details.paper.id);
              void refresh();
            }}
            onDeleted={() => {
              setSelected(null);
              setRevision((n) => n + 1);
              void refresh();
            }}
          />
        )}
      </div>
      {reading && details && (
        <Suspense fallback={<div className="pdf-overlay">{t("common.loading")}</div>}>
          <PdfViewer
            paperId={details.paper.id}
            title={details.paper.title}
            notes={details.notes}
            onClose={() => setReading(false)}
            onNoteAdded={() => void loadDetails(details.paper.id)}
          />
        </Suspense>
      )}
    </section>
  );
}

type PanelProps = {
  details: PaperDetails;
  collections: CollectionInfo[];
  onRead: () => void;
  onChanged: () => void;
  onDeleted: () => void;
};

function PaperPanel({ details, collections, onRead, onChanged, onDeleted }: PanelProps) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [collection, setCollection] = useState("");
  const [comment, setComment] = useState("");
  const [confirming, setConfirming] = useState(false);
  const { paper, notes } = details;

  const collect = async () => {
    if (!collection.trim()) return;
    try {
      await call(commands.libraryCollect(paper.id, collection));
      setCollection("");
      onChanged();
    } catch (error) {
      toasts.error(describeError(error));
    }
  };
  const addNote = async () => {
    if (!comment.trim()) return;
    try {
      await call(commands.noteAdd({ paperId: paper.id, page: null, quote: null, comment, color: null, rects: [] }));
      setComment("");
      onChanged();
    } catch (error) {
      toasts.error(describeError(error));
    }
  };
  const remove = async () => {
    try {
      await call(commands.libraryDelete(paper.id, false));
      toasts.info(t("library.deleted", { title: paper.title }));
      onDeleted();
    } catch (error) {
      toasts.error(describeError(error));
    }
  };

  return (
    <aside className="paper-panel" data-testid="paper-details" aria-label={t("library.details")}>
      <h2>{paper.title || paper.id}</h2>
      <p className="muted">{paper.authors.join("; ")}</p>
      <p>
        {paper.year ?? ""} {details.journal && `· ${details.journal}`}
      </p>
      <p className="paper-ids">
        {paper.bibcode && <code>{paper.bibcode}</code>}
        {paper.arxivId && <code>arXiv:{paper.arxivId}</code>}
        {paper.doi && <code>doi:{paper.doi}</code>}
      </p>
      <p>
        <PaperLinks ids={paper} />
      </p>
      {paper.identifyNote && (
        <p className="warn" data-testid="identify-note">
          {t("library.notIdentified", { reason: paper.identifyNote })}
        </p>
      )}
      {details.abstractText && <p className="abstract">{details.abstractText}</p>}
      <PaperGraph key={paper.id} paperId={paper.id} canAsk={Boolean(paper.bibcode || paper.arxivId || paper.doi)} />
      <div className="toolbar">
        {paper.files.length > 0 && (
          <button type="button" className="primary" data-testid="open-pdf" onClick={onRead}>
            {t("library.read")}
          </button>
        )}
        {confirming ? (
          <button type="button" className="secondary danger" data-testid="paper-delete-confirm" onClick={() => void remove()}>
            {t("library.confirmDelete")}
          </button>
        ) : (
          <button type="button" className="secondary" onClick={() => setConfirming(true)}>
            {t("library.delete")}
          </button>
        )}
      </div>
      <h3>{t("library.files")}</h3>
      <ul className="plain">
        {paper.files.map((file) => (
          <li key={file.sha256} className="stored-file" data-testid="stored-file">
            <span className="muted ellipsis" title={file.path}>
              {file.originalName ?? file.path.split(/[\\/]/).pop()} · {((file.sizeBytes ?? 0) / 1e6).toFixed(1)} MB · {file.source}
            </span>
            {file.path.toLowerCase().endsWith(".pdf") && <FileActions paperId={paper.id} sha256={file.sha256} />}
          </li>
        ))}
      </ul>
      <h3>{t("library.collections")}</h3>
      <p>
        {paper.collections.map((name) => (
          <span key={name} className="badge">
            {name}
          </span>
        ))}
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void collect();
        }}
      >
        <input list="collection-names" aria-label={t("library.addToCollection")} placeholder={t("library.addToCollection")} value={collection} onChange={(event) => setCollection(event.target.value)} />
        <datalist id="collection-names">
          {collections.map((c) => (
            <option key={c.name} value={c.name} />
          ))}
        </datalist>
        <button type="submit" className="secondary">
          {t("common.add")}
        </button>
      </form>
      <h3>{t("library.notes")}</h3>
      {notes.length === 0 && <p className="muted">{t("library.noNotes")}</p>}
      <ul className="notes" data-testid="notes-list">
        {notes.map((note) => (
          <li key={note.id} data-testid="note">
            {note.page !== null && <span className="muted">{t("library.page", { page: note.page })} </span>}
            {note.quote && <q>{note.quote}</q>} {note.comment}
          </li>
        ))}
      </ul>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void addNote();
        }}
      >
        <input aria-label={t("library.newNote")} placeholder={t("library.newNote")} value={comment} onChange={(event) => setComment(event.target.value)} />
        <button type="submit" className="secondary">
          {t("common.add")}
        </button>
      </form>
    </aside>
  );
}

/** A snippet with the query's words marked; offsets count code points, as the engine's do. */
export function Highlighted({ text, marks }: { text: string; marks: { start: number; end: number }[] }) {
  const chars = Array.from(text);
  const parts: ReactNode[] = [];
  let at = 0;
  for (const [index, mark] of marks.entries()) {
    if (mark.start < at || mark.end > chars.length || mark.start >= mark.end) continue;
    parts.push(chars.slice(at, mark.start).join(""));
    parts.push(<mark key={index}>{chars.slice(mark.start, mark.end).join("")}</mark>);
    at = mark.end;
  }
  parts.push(chars.slice(at).join(""));
  return <>{parts}</>;
}
