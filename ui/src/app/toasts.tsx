import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";

type Toast = { id: number; kind: "error" | "info"; message: string; at: number };

/** Toasts raised within this long of each other belong to one action and stack; a later one replaces them. */
const SAME_ACTION_MS = 1000;
/** How long a toast stays unless dismissed: an error longer, to be read. */
const LIFETIME_MS = { info: 4000, error: 10000 };
type Toasts = { error: (message: string) => void; info: (message: string) => void };

const ToastContext = createContext<Toasts>({ error: () => {}, info: () => {} });

/**
 * Errors and confirmations of the panels, bottom right: dismissable, gone by themselves
 * (info after 4 s, errors after 10 s), and replaced by the next action's.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((toast) => toast.id !== id)), []);
  const push = useCallback(
    (kind: Toast["kind"], message: string) => {
      const at = Date.now();
      const id = at + Math.random();
      // What an earlier action said goes: the screen shows what the latest one did.
      setToasts((all) => [...all.filter((toast) => at - toast.at < SAME_ACTION_MS).slice(-3), { id, kind, message, at }]);
      setTimeout(() => dismiss(id), LIFETIME_MS[kind]);
    },
    [dismiss],
  );
  const value = useMemo(() => ({ error: (m: string) => push("error", m), info: (m: string) => push("info", m) }), [push]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" aria-live="assertive">
        {toasts.map((toast) => (
          <div
            key={toast.id}
            className={`toast toast-${toast.kind}`}
            role={toast.kind === "error" ? "alert" : "status"}
            data-testid={toast.kind === "error" ? "error-toast" : "info-toast"}
          >
            <span>{toast.message}</span>
            <button type="button" className="link-button" onClick={() => dismiss(toast.id)}>
              {t("common.dismiss")}
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToasts(): Toasts {
  return useContext(ToastContext);
}

/** Turns whatever a command rejected with (an AppError or anything) into a sentence. */
export function describeError(error: unknown): string {
  if (error && typeof error === "object" && "message" in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}

/** Unwraps a typed command result, throwing its AppError. */
export async function call<T>(result: Promise<{ status: "ok"; data: T } | { status: "error"; error: unknown }>): Promise<T> {
  const answer = await result;
  if (answer.status === "ok") return answer.data;
  throw answer.error;
}
