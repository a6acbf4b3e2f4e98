/** Small SVG charts with no library: bars (optionally stacked in two series) and a line. */

type Bar = { label: string; a: number; b?: number };

type BarChartProps = {
  title: string;
  bars: Bar[];
  /** Names of the series `a` and `b` for the legend. */
  series: [string, string?];
  unit?: string;
  testId?: string;
};

const WIDTH = 560;
const HEIGHT = 180;
const PAD = { left: 48, right: 8, top: 12, bottom: 28 };

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * power >= value) return step * power;
  }
  return 10 * power;
}

function short(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${Math.round(value / 1e3)}k`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return `${Math.round(value * 10) / 10}`;
}

/** Vertical bars per label; with `b` values the two series are stacked. */
export function BarChart({ title, bars, series, unit = "", testId }: BarChartProps) {
  const max = niceMax(Math.max(0, ...bars.map((bar) => bar.a + (bar.b ?? 0))));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const slot = bars.length > 0 ? innerW / bars.length : innerW;
  const barW = Math.max(2, Math.min(36, slot * 0.7));
  const y = (value: number) => PAD.top + innerH - (value / max) * innerH;
  const every = Math.max(1, Math.ceil(bars.length / 12));
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>
        {title}
        <span className="legend">
          <span className="swatch swatch-a" /> {series[0]}
          {series[1] && (
            <>
              {" "}
              <span className="swatch swatch-b" /> {series[1]}
            </>
          )}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title}>
        {[0, 0.5, 1].map((fraction) => (
          <g key={fraction}>
            <line className="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(max * fraction)} y2={y(max * fraction)} />
            <text className="axis" x={PAD.left - 6} y={y(max * fraction) + 4} textAnchor="end">
              {short(max * fraction)}
              {fraction === 1 ? unit : ""}
            </text>
          </g>
        ))}
        {bars.map((bar, index) => {
          const x = PAD.left + index * slot + (slot - barW) / 2;
          return (
            <g key={`${bar.label}-${index}`} data-testid="chart-bar">
              <title>{`${bar.label}: ${short(bar.a)}${bar.b !== undefined ? ` + ${short(bar.b)}` : ""}${unit}`}</title>
              <rect className="bar-a" x={x} width={barW} y={y(bar.a)} height={Math.max(0, y(0) - y(bar.a))} />
              {bar.b !== undefined && (
                <rect className="bar-b" x={x} width={barW} y={y(bar.a + bar.b)} height={Math.max(0, y(bar.a) - y(bar.a + bar.b))} />
              )}
              {index % every === 0 && (
                <text className="axis" x={x + barW / 2} y={HEIGHT - 10} textAnchor="middle">
                  {bar.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** Horizontal bars: one row per label (e.g. total time per tool). */
export function RowChart({ title, rows, unit = "", testId }: { title: string; rows: { label: string; value: number; note?: string }[]; unit?: string; testId?: string }) {
  const max = Math.max(1e-9, ...rows.map((row) => row.value));
  return (
    <figure className="chart row-chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <ul>
        {rows.map((row) => (
          <li key={row.label}>
            <span className="row-label">{row.label}</span>
            <span className="row-track">
              <span className="row-bar" ref={(el) => el?.style.setProperty("width", `${(row.value / max) * 100}%`)} />
            </span>
            <span className="row-value">
              {short(row.value)}
              {unit} {row.note && <span className="muted">{row.note}</span>}
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
