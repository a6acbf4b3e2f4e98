export type Theme = "system" | "light" | "dark";
const KEY = "asterism.theme";
const DARK_QUERY = "(prefers-color-scheme: dark)";

export function savedTheme(): Theme {
  const value = globalThis.localStorage?.getItem(KEY);
  return value === "light" || value === "dark" ? value : "system";
}

/** Sets <html data-theme> to "light" or "dark" (the CSS knows only those two); "system"
 * follows prefers-color-scheme, also when it changes. Returns a function that stops
 * following it. */
export function applyTheme(theme: Theme): () => void {
  globalThis.localStorage?.setItem(KEY, theme);
  const root = document.documentElement;
  if (theme !== "system") {
    root.dataset.theme = theme;
    return () => {};
  }
  const query = globalThis.matchMedia?.(DARK_QUERY);
  const follow = () => {
    root.dataset.theme = query?.matches ? "dark" : "light";
  };
  follow();
  query?.addEventListener("change", follow);
  return () => query?.removeEventListener("change", follow);
}
