import { convertFileSrc } from "@tauri-apps/api/core";
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs";
import workerUrl from "pdfjs-dist/legacy/build/pdf.worker.min.mjs?url";
import "pdfjs-dist/web/pdf_viewer.css";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type Note, type NoteRect, type StoredFigure } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

const SCALE = 1.4;

type Selection = { page: number; quote: string; rects: NoteRect[]; x: number; y: number };

type Props = {
  paperId: string;
  title: string;
  notes: Note[];
  onClose: () => void;
  onNoteAdded: () => void;
};

/** Page rectangles of the current text selection, in PDF points (origin top-left). */
function selectionRects(pageEl: HTMLElement): NoteRect[] {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0) return [];
  const box = pageEl.getBoundingClientRect();
  return [...selection.getRangeAt(0).getClientRects()]
    .filter((rect) => rect.width > 1 && rect.height > 1)
    .map((rect) => ({
      x: (rect.left - box.left) / SCALE,
      y: (rect.top - box.top) / SCALE,
      width: rect.width / SCALE,
      height: rect.height / SCALE,
    }));
}

/** Draws one page into its placeholder: the canvas under the highlights, the text layer on top. */
async function drawPage(pdf: pdfjs.PDFDocumentProxy, pageEl: HTMLElement) {
  const page = await pdf.getPage(Number(pageEl.dataset.page));
  const viewport = page.getViewport({ scale: SCALE });
  const canvas = document.createElement("canvas");
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  pageEl.prepend(canvas);
  const context = canvas.getContext("2d");
  if (context) await page.render({ canvasContext: context, canvas, viewport }).promise;
  // Painted (the end-to-end test waits for it before its screenshot).
  if (canvas.isConnected) pageEl.dataset.drawn = "true";
  const text = pageEl.querySelector<HTMLElement>(".textLayer");
  if (!text || !canvas.isConnected) return;
  text.replaceChildren();
  await new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container: text, viewport }).render();
  // As pdf.js's own viewer does: a block after the text keeps a drag selection from
  // jumping to the end of the page in WebKit and Firefox while selecting.
  const end = document.createElement("div");
  end.className = "endOfContent";
  text.append(end);
}

/** The stored PDF (pdf.js, text selectable). Selecting text offers to save it as a highlight note. */
export default function PdfViewer({ paperId, title, notes, onClose, onNoteAdded }: Props) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const pagesRef = useRef<HTMLDivElement>(null);
  const [pages, setPages] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [selection, setSelection] = useState<Selection | null>(null);
  const [comment, setComment] = useState("");
  const [figures, setFigures] = useState<StoredFigure[]>([]);

  // The paper's figures and tables (found when it was parsed), for the header's list.
  useEffect(() => {
    let cancelled = false;
    setFigures([]);
    call(commands.libraryFigures(paperId))
      .then((found) => !cancelled && setFigures(found))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [paperId]);

  /** Scrolls to a figure's page and outlines the figure there. */
  const showFigure = (figure: StoredFigure) => {
    const container = pagesRef.current;
    const pageEl = container?.querySelector<HTMLElement>(`.pdf-page[data-page="${figure.page}"]`);
    if (!container || !pageEl) return;
    container.querySelectorAll(".figure-outline").forEach((el) => el.remove());
    const [left, bottom, right, top] = figure.region.map((value) => value ?? 0) as [number, number, number, number];
    const outline = document.createElement("div");
    outline.className = "figure-outline";
    outline.dataset.testid = "figure-outline";
    outline.title = figure.label;
    for (const [key, value] of [["left", left], ["top", (figure.pageHeight ?? 0) - top], ["width", right - left], ["height", top - bottom]] as const) {
      outline.style.setProperty(key, `${value * SCALE}px`);
    }
    pageEl.append(outline);
    outline.scrollIntoView({ block: "center" });
  };

  // Every page gets its place at once; a page is drawn (canvas and text layer) when it
  // comes near the view and dropped again when it is far away, so a 300-page thesis
  // opens as fast as a letter and does not keep 300 canvases.
  useEffect(() => {
    const container = pagesRef.current;
    if (!container) return;
    let cancelled = false;
    const task = pdfjs.getDocument({ url: convertFileSrc(paperId, "pdf"), isEvalSupported: false });
    const observers: IntersectionObserver[] = [];
    const onMouseUpAnywhere = () => container.querySelectorAll(".textLayer.selecting").forEach((el) => el.classList.remove("selecting"));
    document.addEventListener("mouseup", onMouseUpAnywhere);
    (async () => {
      try {
        const pdf = await task.promise;
        if (cancelled) return;
        const drawn = new Map<HTMLElement, boolean>();
        let queue: Promise<unknown> = Promise.resolve();
        const draw = (pageEl: HTMLElement) => {
          if (drawn.get(pageEl)) return;
          drawn.set(pageEl, true);
          queue = queue.then(() => drawPage(pdf, pageEl)).catch((reason) => {
            if (!cancelled) setError(describeError(reason));
          });
        };
        const near = new IntersectionObserver(
          (entries) => entries.forEach((entry) => entry.isIntersecting && draw(entry.target as HTMLElement)),
          { root: container, rootMargin: "800px 0px" },
        );
        const far = new IntersectionObserver(
          (entries) =>
            entries.forEach((entry) => {
              const pageEl = entry.target as HTMLElement;
              if (entry.isIntersecting || !drawn.get(pageEl)) return;
              drawn.set(pageEl, false);
              pageEl.querySelector("canvas")?.remove();
              delete pageEl.dataset.drawn;
              pageEl.querySelector(".textLayer")?.replaceChildren();
            }),
          { root: container, rootMargin: "4000px 0px" },
        );
        observers.push(near, far);
        // Page sizes first (cheap: nothing is drawn), so the scroll bar is right at once.
        for (let number = 1; number <= pdf.numPages && !cancelled; number++) {
          const viewport = (await pdf.getPage(number)).getViewport({ scale: SCALE });
          const pageEl = document.createElement("div");
          pageEl.className = "pdf-page";
          pageEl.dataset.page = String(number);
          pageEl.style.setProperty("width", `${viewport.width}px`);
          pageEl.style.setProperty("height", `${viewport.height}px`);
          pageEl.style.setProperty("--scale-factor", String(SCALE));
          pageEl.style.setProperty("--user-unit", "1");
          pageEl.style.setProperty("--total-scale-factor", String(SCALE));
          const marks = document.createElement("div");
          marks.className = "highlights";
          const text = document.createElement("div");
          text.className = "textLayer";
          text.addEventListener("mousedown", () => text.classList.add("selecting"));
          pageEl.append(marks, text);
          container.append(pageEl);
          near.observe(pageEl);
          far.observe(pageEl);
        }
        if (!cancelled) setPages(pdf.numPages);
      } catch (reason) {
        if (!cancelled) setError(describeError(reason));
      }
    })();
    return () => {
      cancelled = true;
      observers.forEach((observer) => observer.disconnect());
      document.removeEventListener("mouseup", onMouseUpAnywhere);
      void task.destroy();
      container.replaceChildren();
    };
  }, [paperId]);

  // Highlights of the saved notes, drawn over their pages.
  useEffect(() => {
    const container = pagesRef.current;
    if (!container) return;
    for (const layer of container.querySelectorAll<HTMLElement>(".highlights")) layer.replaceChildren();
    for (const note of notes) {
      if (note.page === null || !Array.isArray(note.rects)) continue;
      const layer = container.querySelector<HTMLElement>(`.pdf-page[data-page="${note.page}"] .highlights`);
      for (const rect of note.rects as NoteRect[]) {
        const mark = document.createElement("div");
        mark.className = "highlight";
        mark.title = note.comment || note.quote || "";
        for (const [key, value] of [["left", rect.x], ["top", rect.y], ["width", rect.width], ["height", rect.height]] as const) {
          mark.style.setProperty(key, `${(value ?? 0) * SCALE}px`);
        }
        layer?.append(mark);
      }
    }
  }, [notes, pages]);

  const onMouseUp = (event: React.MouseEvent) => {
    const pageEl = (event.target as HTMLElement).closest<HTMLElement>(".pdf-page");
    const quote = window.getSelection()?.toString().trim() ?? "";
    if (!pageEl || !quote) return;
    const rects = selectionRects(pageEl);
    setSelection({ page: Number(pageEl.dataset.page), quote, rects, x: event.clientX, y: event.clientY });
  };

  const saveHighlight = async () => {
    if (!selection) return;
    try {
      await call(
        commands.noteAdd({ paperId, page: selection.page, quote: selection.quote, comment, color: "yellow", rects: selection.rects }),
      );
      toasts.info(t("pdf.saved", { page: selection.page }));
      setSelection(null);
      setComment("");
      window.getSelection()?.removeAllRanges();
      onNoteAdded();
    } catch (reason) {
      toasts.error(describeError(reason));
    }
  };

  return (
    <div className="pdf-overlay" role="dialog" aria-label={title} data-testid="pdf-viewer">
      <header className="pdf-header">
        <strong className="ellipsis">{title}</strong>
        <span className="muted">{t("pdf.pages", { count: pages })}</span>
        <span className="muted">{t("pdf.hint")}</span>
        {/* Once every page has its place (a figure is outlined on its page). */}
        {figures.length > 0 && pages > 0 && (
          <details className="pdf-figures" data-testid="pdf-figures">
            <summary>{t("pdf.figures", { count: figures.length })}</summary>
            <div className="pdf-figure-list">
              {figures.map((figure) => (
                <button type="button" key={figure.label} className="link-button" data-testid="pdf-figure" onClick={(event) => {
                    event.currentTarget.closest("details")?.removeAttribute("open");
                    showFigure(figure);
                  }}
                >
                  {figure.label} · {t("library.page", { page: figure.page })}
                </button>
              ))}
            </div>
          </details>
        )}
        <span className="spacer" />
        <button type="button" className="secondary" data-testid="pdf-close" onClick={onClose}>
          {t("common.close")}
        </button>
      </header>
      {error && <p className="error-text">{t("pdf.error", { error })}</p>}
      <div className="pdf-pages" ref={pagesRef} onMouseUp={onMouseUp} />
      {selection && (
        <form
          className="highlight-popover"
          data-testid="highlight-popover"
          ref={(el) => {
            el?.style.setProperty("left", `${Math.min(selection.x, window.innerWidth - 340)}px`);
            el?.style.setProperty("top", `${Math.min(selection.y + 12, window.innerHeight - 140)}px`);
          }}
          onSubmit={(event) => {
            event.preventDefault();
            void saveHighlight();
          }}
        >
          <q>{selection.quote.slice(0, 160)}</q>
          <input autoFocus aria-label={t("pdf.comment")} placeholder={t("pdf.comment")} value={comment} onChange={(event) => setComment(event.target.value)} />
          <div className="toolbar">
            <button type="submit" className="primary" data-testid="save-highlight">
              {t("pdf.save")}
            </button>
            <button type="button" className="secondary" onClick={() => setSelection(null)}>
              {t("common.cancel")}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
