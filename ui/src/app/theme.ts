export type Theme = "system" | "light" | "dark";
const KEY = "asterism.theme";

export function savedTheme(): Theme {
  const value = globalThis.localStorage?.getItem(KEY);
  return value === "light" || value === "dark" ? value : "system";
}

/** Applies the theme to <html data-theme>; "system" follows prefers-color-scheme. */
export function applyTheme(theme: Theme) {
  globalThis.localStorage?.setItem(KEY, theme);
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}
