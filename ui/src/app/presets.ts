/**
 * Endpoint presets: base URL, a suggested model, whether thinking applies. Shared by the
 * Settings panel and the first-run setup card (a module of its own, so the agent panel
 * does not pull the lazily loaded Settings panel into the main bundle).
 */
export const PRESETS = [
  { id: "dashscope", label: "DashScope / Qwen", baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1", model: "qwen3-max", thinking: true },
  { id: "deepseek", label: "DeepSeek", baseUrl: "https://api.deepseek.com/v1", model: "deepseek-chat", thinking: false },
  { id: "openai", label: "OpenAI", baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini", thinking: false },
  { id: "ollama", label: "Ollama", baseUrl: "http://localhost:11434/v1", model: "qwen3:8b", thinking: false },
  { id: "custom", label: "Custom", baseUrl: "", model: "", thinking: false },
] as const;

export type Preset = (typeof PRESETS)[number];

/** The preset whose base URL this is ("custom" when none). */
export function presetOf(baseUrl: string): Preset {
  const url = baseUrl.trim().replace(/\/+$/, "");
  return PRESETS.find((p) => p.id !== "custom" && p.baseUrl === url) ?? PRESETS[PRESETS.length - 1]!;
}

/** Whether the URL points at this computer (no key needed, none is asked for). */
export function isLoopback(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl.trim()).hostname.replace(/^\[|\]$/g, "").toLowerCase();
    return host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(host) || host === "::1";
  } catch {
    return false;
  }
}
