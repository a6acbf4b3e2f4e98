import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type MetricEntry, type SessionSummary } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { BarChart, RowChart } from "./charts";

/** USD per million tokens (input, output) for the cost estimate; editable, kept locally. */
const DEFAULT_PRICES: [RegExp, number, number][] = [
  [/qwen.*max/i, 1.2, 6],
  [/qwen.*plus/i, 0.4, 1.2],
  [/qwen/i, 0.3, 1.2],
  [/deepseek.*reason/i, 0.55, 2.19],
  [/deepseek/i, 0.27, 1.1],
  [/gpt-4o-mini|mini/i, 0.15, 0.6],
  [/gpt-4o|gpt-4\.1/i, 2.5, 10],
  [/llama|mistral|gemma|ollama|:/i, 0, 0],
];
const PRICE_KEY = "asterism.prices";

function defaultPrice(model: string): [number, number] {
  const found = DEFAULT_PRICES.find(([pattern]) => pattern.test(model));
  return found ? [found[1], found[2]] : [1, 4];
}

export type Totals = {
  promptTokens: number;
  completionTokens: number;
  modelCalls: number;
  /** Of `modelCalls`, those a tool made (rag_search writing its answer). */
  toolModelCalls: number;
  modelMs: number;
  toolCalls: number;
  toolMs: number;
  /** Time calls waited for the user's permission (not in `toolMs`). */
  waitMs: number;
};

/** Sums of a session's measurements: every model call (a tool's own too), tools' own time, waiting apart. */
export function totals(entries: MetricEntry[]): Totals {
  const sum: Totals = { promptTokens: 0, completionTokens: 0, modelCalls: 0, toolModelCalls: 0, modelMs: 0, toolCalls: 0, toolMs: 0, waitMs: 0 };
  for (const entry of entries) {
    if (entry.kind === "model") {
      sum.promptTokens += entry.promptTokens;
      sum.completionTokens += entry.completionTokens;
      sum.modelCalls += 1;
      if (entry.via) sum.toolModelCalls += 1;
      sum.modelMs += entry.durationMs ?? 0;
    } else if (entry.kind === "wait") {
      sum.waitMs += entry.durationMs ?? 0;
    } else {
      sum.toolCalls += 1;
      sum.toolMs += entry.durationMs ?? 0;
    }
  }
  return sum;
}

type Props = { sessions: SessionSummary[]; sessionId: string | null };

/** Tokens per step, model latency, tool durations and a cost estimate for one session. */
export function AgentMetricsPanel({ sessions, sessionId }: Props) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [selected, setSelected] = useState<string | null>(sessionId ?? sessions[0]?.id ?? null);
  const [entries, setEntries] = useState<MetricEntry[]>([]);
  const [prices, setPrices] = useState<Record<string, [number, number]>>(() => {
    try {
      return JSON.parse(localStorage.getItem(PRICE_KEY) ?? "{}");
    } catch {
      return {};
    }
  });

  useEffect(() => {
    if (sessionId) setSelected(sessionId);
  }, [sessionId]);
  useEffect(() => {
    if (!selected && sessions[0]) setSelected(sessions[0].id);
  }, [sessions, selected]);

  const [quota, setQuota] = useState<{ text: string; low: boolean } | null>(null);
  useEffect(() => {
    call(commands.appStatus())
      .then((status) => setQuota(status.adsQuota ? { text: status.adsQuota, low: status.adsQuotaLow } : null))
      .catch(() => setQuota(null));
  }, [selected]);

  useEffect(() => {
    if (!selected) return;
    let alive = true;
    call(commands.sessionMetrics(selected))
      .then((rows) => alive && setEntries(rows))
      .catch((error) => alive && toasts.error(describeError(error)));
    return () => {
      alive = false;
    };
  }, [selected, toasts]);

  const model = entries.find((entry) => entry.kind === "model")?.name ?? "";
  const [inPrice, outPrice] = prices[model] ?? defaultPrice(model);
  const sum = useMemo(() => totals(entries), [entries]);
  const cost = (sum.promptTokens * inPrice + sum.completionTokens * outPrice) / 1e6;
  // The agent's own calls, one per step, are charted per step; a tool's calls are in the totals.
  const modelRows = entries.filter((entry) => entry.kind === "model" && !entry.via);
  const label = (entry: MetricEntry, index: number) => (modelRows.length > 1 && entry.step === 0 ? `${index + 1}` : `${entry.step}`);
  const byTool = useMemo(() => {
    const tools = new Map<string, { total: number; count: number }>();
    for (const entry of entries) {
      if (entry.kind !== "tool") continue;
      const row = tools.get(entry.name) ?? { total: 0, count: 0 };
      row.total += entry.durationMs ?? 0;
      row.count += 1;
      tools.set(entry.name, row);
    }
    return [...tools.entries()].sort((a, b) => b[1].total - a[1].total);
  }, [entries]);

  const setPrice = (which: 0 | 1, value: number) => {
    const next = { ...prices, [model]: (which === 0 ? [value, outPrice] : [inPrice, value]) as [number, number] };
    setPrices(next);
    localStorage.setItem(PRICE_KEY, JSON.stringify(next));
  };

  return (
    <section className="panel metrics-panel" data-testid="metrics-panel" aria-label={t("metrics.title")}>
      <header className="panel-header">
        <h1>{t("metrics.title")}</h1>
        <select aria-label={t("metrics.session")} data-testid="metrics-session" value={selected ?? ""} onChange={(event) => setSelected(event.target.value || null)}>
          {sessions.length === 0 && <option value="">{t("sessions.none")}</option>}
          {sessions.map((session) => (
            <option key={session.id} value={session.id}>
              {session.title || t("sessions.untitled")}
            </option>
          ))}
        </select>
      </header>
      <p className={quota?.low ? "warn" : "muted"} data-testid="ads-quota">
        {quota ? t(quota.low ? "metrics.adsQuotaLow" : "metrics.adsQuota", { quota: quota.text }) : t("metrics.adsQuotaUnknown")}
      </p>
      {entries.length === 0 ? (
        <p className="empty muted">{t("metrics.empty")}</p>
      ) : (
        <>
          <dl className="stats" data-testid="metrics-totals">
            <div>
              <dt>{t("metrics.tokensIn")}</dt>
              <dd data-testid="tokens-in">{sum.promptTokens.toLocaleString()}</dd>
            </div>
            <div>
              <dt>{t("metrics.tokensOut")}</dt>
              <dd data-testid="tokens-out">{sum.completionTokens.toLocaleString()}</dd>
            </div>
            <div>
              <dt>{t("metrics.modelCalls")}</dt>
              <dd data-testid="model-calls">
                {sum.modelCalls} · {(sum.modelMs / 1000).toFixed(1)} s
                {sum.toolModelCalls > 0 && <span className="muted"> {t("metrics.inTools", { count: sum.toolModelCalls })}</span>}
              </dd>
            </div>
            <div>
              <dt>{t("metrics.toolCalls")}</dt>
              <dd data-testid="tool-calls">
                {sum.toolCalls} · {(sum.toolMs / 1000).toFixed(1)} s
              </dd>
            </div>
            {sum.waitMs > 0 && (
              <div>
                <dt>{t("metrics.waiting")}</dt>
                <dd data-testid="waiting">{(sum.waitMs / 1000).toFixed(1)} s</dd>
              </div>
            )}
            <div>
              <dt>{t("metrics.cost")}</dt>
              <dd data-testid="cost">${cost.toFixed(4)}</dd>
            </div>
          </dl>
          <p className="prices muted">
            {t("metrics.prices", { model: model || "?" })}{" "}
            <input type="number" min={0} step={0.01} aria-label={t("metrics.priceIn")} value={inPrice} onChange={(event) => setPrice(0, Number(event.target.value))} /> /{" "}
            <input type="number" min={0} step={0.01} aria-label={t("metrics.priceOut")} value={outPrice} onChange={(event) => setPrice(1, Number(event.target.value))} />
          </p>
          <BarChart
            testId="tokens-chart"
            title={t("metrics.tokensPerStep")}
            series={[t("metrics.in"), t("metrics.out")]}
            bars={modelRows.map((entry, index) => ({ label: label(entry, index), a: entry.promptTokens, b: entry.completionTokens }))}
          />
          <BarChart
            testId="latency-chart"
            title={t("metrics.latency")}
            series={[t("metrics.seconds")]}
            unit=" s"
            bars={modelRows.map((entry, index) => ({ label: label(entry, index), a: (entry.durationMs ?? 0) / 1000 }))}
          />
          {byTool.length > 0 && (
            <RowChart
              testId="tools-chart"
              title={t("metrics.tools")}
              unit=" ms"
              rows={byTool.map(([name, row]) => ({ label: name, value: row.total, note: `×${row.count}` }))}
            />
          )}
        </>
      )}
    </section>
  );
}
