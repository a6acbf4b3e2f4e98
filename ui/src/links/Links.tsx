import { openUrl } from "@tauri-apps/plugin-opener";
import { createContext, useContext, type MouseEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { commands, type LinkBases } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { knownSite, paperLinks, simbadUrl, webLink, type PaperIds } from "./links";

// The sites links point to; null until the app status has arrived (then no links show).
const LinksContext = createContext<LinkBases | null>(null);

export function LinksProvider({ bases, children }: { bases: LinkBases | null; children: ReactNode }) {
  return <LinksContext.Provider value={bases}>{children}</LinksContext.Provider>;
}

export function useLinkBases(): LinkBases | null {
  return useContext(LinksContext);
}

type IconKind = "external" | "file" | "folder";

/** Small line icons, drawn inline in the text colour. */
export function Icon({ kind }: { kind: IconKind }) {
  const paths: Record<IconKind, ReactNode> = {
    external: (
      <>
        <path d="M9 3h4v4" />
        <path d="M13 3 7.5 8.5" />
        <path d="M11 9.5V13H3V5h3.5" />
      </>
    ),
    file: (
      <>
        <path d="M4 2h5l3 3v9H4z" />
        <path d="M9 2v3h3" />
      </>
    ),
    folder: <path d="M2 4h4l1.5 1.5H14V13H2z" />,
  };
  return (
    <svg className="icon" viewBox="0 0 16 16" width="13" height="13" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {paths[kind]}
    </svg>
  );
}

/** Handles a click on a link: the webview stays where it is; `open` opens it outside. */
function outside(open: () => Promise<unknown>, onError: (message: string) => void) {
  return (event: MouseEvent) => {
    event.preventDefault();
    event.stopPropagation();
    if (event.type === "auxclick" && event.button !== 1) return;
    open().catch((error: unknown) => onError(describeError(error)));
  };
}

/** A page of a known site, opened in the system browser through the opener plugin. */
export function SiteLink({ url, label, testId }: { url: string; label: string; testId?: string }) {
  const toasts = useToasts();
  const open = outside(() => openUrl(url), toasts.error);
  return (
    <a href={url} className="out-link" data-testid={testId} title={url} onClick={open} onAuxClick={open}>
      <Icon kind="external" />
      {label}
    </a>
  );
}

/** A stored PDF: open it in the system's viewer, or show it in its folder. */
export function FileActions({ paperId, sha256 = null }: { paperId: string; sha256?: string | null }) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const run = (action: () => Promise<unknown>) => (event: MouseEvent) => {
    event.stopPropagation();
    action().catch((error: unknown) => toasts.error(describeError(error)));
  };
  return (
    <span className="file-actions">
      <button type="button" className="link-button out-link" data-testid="pdf-open-system" onClick={run(() => call(commands.libraryOpenPdf(paperId, sha256)))}>
        <Icon kind="file" />
        {t("links.openSystem")}
      </button>
      <button type="button" className="link-button out-link" data-testid="pdf-show-folder" onClick={run(() => call(commands.libraryShowPdf(paperId, sha256)))}>
        <Icon kind="folder" />
        {t("links.showFolder")}
      </button>
    </span>
  );
}

/** A paper's links (ADS, arXiv, arXiv PDF, publisher) and, when stored, its PDF's actions. */
export function PaperLinks({ ids, file }: { ids: PaperIds; file?: { paperId: string; sha256?: string | null } | null }) {
  const { t } = useTranslation();
  const bases = useLinkBases();
  const links = bases ? paperLinks(bases, ids) : [];
  if (links.length === 0 && !file) return null;
  return (
    <span className="paper-links" data-testid="paper-links">
      {links.map((link) => (
        <SiteLink key={link.kind} url={link.url} label={t(`links.${link.kind}`)} testId={`link-${link.kind}`} />
      ))}
      {file && <FileActions paperId={file.paperId} sha256={file.sha256} />}
    </span>
  );
}

/** A target's SIMBAD page. */
export function SimbadLink({ name }: { name: string }) {
  const { t } = useTranslation();
  const bases = useLinkBases();
  const url = bases ? simbadUrl(bases, name) : null;
  return url ? <SiteLink url={url} label={t("links.simbad")} testId="link-simbad" /> : null;
}

/**
 * A link in a Markdown answer. A web page of a known site opens at once; any other web
 * page only after the app asks in a native message box (`link_open`); anything else is
 * not a link.
 */
export function MarkdownLink({ href, children }: { href?: string; children?: ReactNode }) {
  const toasts = useToasts();
  const bases = useLinkBases();
  if (!webLink(href)) {
    return (
      <span className="link" title={href}>
        {children}
      </span>
    );
  }
  const open = outside(() => (bases && knownSite(bases, href) ? openUrl(href) : call(commands.linkOpen(href))), toasts.error);
  return (
    <a href={href} className="link" title={href} onClick={open} onAuxClick={open}>
      {children}
    </a>
  );
}
