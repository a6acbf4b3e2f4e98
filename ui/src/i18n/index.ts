import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import en from "./en.json";
import zh from "./zh.json";

export const LANGUAGES = [
  { code: "en", label: "English" },
  { code: "zh", label: "简体中文" },
] as const;
export type Language = (typeof LANGUAGES)[number]["code"];

const STORAGE_KEY = "asterism.language";

/** The saved choice, else the system's language when it is Chinese, else English. */
export function initialLanguage(): Language {
  const saved = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (saved === "en" || saved === "zh") return saved;
  return globalThis.navigator?.language?.toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function setLanguage(language: Language) {
  globalThis.localStorage?.setItem(STORAGE_KEY, language);
  void i18next.changeLanguage(language);
  document.documentElement.lang = language === "zh" ? "zh-CN" : "en";
}

void i18next.use(initReactI18next).init({
  resources: { en: { translation: en }, zh: { translation: zh } },
  lng: initialLanguage(),
  fallbackLng: "en",
  interpolation: { escapeValue: false },
  returnNull: false,
});

export default i18next;
