import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ComponentType } from "react";
import { useTranslation } from "react-i18next";
import { useResearchAgent } from "./agent/useResearchAgent";
import { commands } from "./bindings";
import { NEARBY_RADIUS_ARCMIN, NavigationProvider, type LibraryRequest, type Navigation } from "./app/navigation";
import { applyTheme, savedTheme, type Theme } from "./app/theme";
import { ToastProvider } from "./app/toasts";
import { GearIcon, LibraryIcon, ListIcon, MetricsIcon, MoonIcon, SparkleIcon, SunIcon, SunriseIcon, ZhongIcon } from "./components/icons";
import { ResearchAgentPanel } from "./components/ResearchAgentPanel";
import { LinksProvider } from "./links/Links";
import { setLanguage, type Language } from "./i18n";

// Panels other than the agent load on first use: a smaller bundle starts faster.
const AuditLogViewer = lazy(() => import("./panels/AuditLogViewer").then((m) => ({ default: m.AuditLogViewer })));
const LibraryView = lazy(() => import("./panels/LibraryView").then((m) => ({ default: m.LibraryView })));
const NewsView = lazy(() => import("./panels/NewsView").then((m) => ({ default: m.NewsView })));
const AgentMetricsPanel = lazy(() => import("./panels/AgentMetricsPanel").then((m) => ({ default: m.AgentMetricsPanel })));
const SettingsPanel = lazy(() => import("./panels/SettingsPanel").then((m) => ({ default: m.SettingsPanel })));

export const VIEWS = ["agent", "library", "news", "metrics", "audit", "settings"] as const;
export type View = (typeof VIEWS)[number];
const ICONS: Record<View, ComponentType> = {
  agent: SparkleIcon,
  library: LibraryIcon,
  news: SunriseIcon,
  metrics: MetricsIcon,
  audit: ListIcon,
  settings: GearIcon,
};

export function App() {
  return (
    <ToastProvider>
      <Shell />
    </ToastProvider>
  );
}

/** The navigation rail and the panels. The agent panel stays mounted so a run goes on
 * while the user looks at the library. */
function Shell() {
  const { t, i18n } = useTranslation();
  const agent = useResearchAgent();
  const [view, setViewState] = useState<View>("agent");
  const [theme, setTheme] = useState<Theme>(savedTheme);
  // What the Library should show when it opens at another panel's request (a cone search).
  const [libraryRequest, setLibraryRequest] = useState<LibraryRequest | null>(null);
  const requests = useRef(0);

  // Opened from the rail, a key or a link, a panel shows its usual start.
  const setView = useCallback((name: View) => {
    setLibraryRequest(null);
    setViewState(name);
  }, []);
  const navigation = useMemo<Navigation>(
    () => ({
      openLibraryNear: (name: string) => {
        requests.current += 1;
        setLibraryRequest({ id: requests.current, near: { name, radiusArcmin: NEARBY_RADIUS_ARCMIN } });
        setViewState("library");
      },
    }),
    [],
  );

  useEffect(() => applyTheme(theme), [theme]);

  // The app opens the native dialogs itself; they speak the UI's language.
  useEffect(() => {
    commands.dialogLanguage(i18n.language === "zh" ? "zh" : "en").catch(() => {});
  }, [i18n.language]);

  // Keyboard: Ctrl/⌘+1…6 panels, Ctrl/⌘+N new session, Esc cancels the run.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey;
      if (mod && /^[1-6]$/.test(event.key)) {
        event.preventDefault();
        setView(VIEWS[Number(event.key) - 1]!);
      } else if (mod && event.key.toLowerCase() === "n" && !agent.running) {
        event.preventDefault();
        setView("agent");
        agent.newSession();
      } else if (event.key === "Escape" && agent.running && !event.defaultPrevented) {
        void agent.cancel();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [agent, setView]);

  return (
    <LinksProvider bases={agent.status?.links ?? null}>
      <NavigationProvider value={navigation}>
        <div className="app">
          <nav className="rail" aria-label={t("nav.label")}>
            <div className="brand" title="Asterism">
              <SparkleIcon className="brand-mark" />
              <span className="brand-name">Asterism</span>
            </div>
            {VIEWS.map((name, index) => {
              const RailIcon = ICONS[name];
              return (
                <button
                  key={name}
                  type="button"
                  className="rail-button"
                  data-testid={`nav-${name}`}
                  aria-current={view === name ? "page" : undefined}
                  title={`${t(`nav.${name}`)} (Ctrl+${index + 1})`}
                  onClick={() => setView(name)}
                >
                  <RailIcon />
                  <span className="rail-label">{t(`nav.${name}`)}</span>
                </button>
              );
            })}
            <span className="spacer" />
            <button
              type="button"
              className="rail-button small"
              data-testid="toggle-language"
              title={t("settings.language")}
              onClick={() => setLanguage((i18n.language === "zh" ? "en" : "zh") as Language)}
            >
              {/* "中" is drawn: without a CJK font the character is an empty box. */}
              {i18n.language === "zh" ? "EN" : <ZhongIcon role="img" aria-hidden={false} aria-label="中" />}
            </button>
            <button
              type="button"
              className="rail-button small"
              data-testid="toggle-theme"
              title={t("settings.theme")}
              aria-label={t("settings.theme")}
              onClick={() => setTheme(theme === "dark" ? "light" : "dark")}
            >
              {theme === "dark" ? <SunIcon /> : <MoonIcon />}
            </button>
          </nav>
          <div className="view" hidden={view !== "agent"}>
            <ResearchAgentPanel agent={agent} onOpenSettings={() => setView("settings")} />
          </div>
          <Suspense fallback={<div className="panel muted">{t("common.loading")}</div>}>
            {view === "library" && <LibraryView request={libraryRequest} />}
            {view === "news" && <NewsView />}
            {view === "metrics" && <AgentMetricsPanel sessions={agent.sessions} sessionId={agent.sessionId} />}
            {view === "audit" && <AuditLogViewer sessions={agent.sessions} />}
            {view === "settings" && <SettingsPanel theme={theme} onTheme={setTheme} onSaved={() => void agent.refreshStatus()} />}
          </Suspense>
        </div>
      </NavigationProvider>
    </LinksProvider>
  );
}
