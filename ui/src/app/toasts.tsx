import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";

type Toast = { id: number; kind: "error" | "info"; message: string };
type Toasts = { error: (message: string) => void; info: (message: string) => void };

const ToastContext = createContext<Toasts>({ error: () => {}, info: () => {} });

/** Errors and confirmations of the panels, bottom right, dismissable; info fades. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((toast) => toast.id !== id)), []);
  const push = useCallback(
    (kind: Toast["kind"], message: string) => {
      const id = Date.now() + Math.random();
      setToasts((all) => [...all.slice(-3), { id, kind, message }]);
      if (kind === "info") setTimeout(() => dismiss(id), 4000);
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
