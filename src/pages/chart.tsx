/**
 * A daily line chart as inline SVG, rendered on the server (docs/console.md): readable without
 * JavaScript, with a title and description for screen readers, labelled axes, and a legend
 * outside the drawing (HTML, so it wraps on a phone).
 */

export const SERIES_COLOURS = ['#1d4ed8', '#c2410c', '#047857'] as const;

export interface ChartSeries {
  label: string;
  values: number[];
}

export interface ChartProps {
  id: string;
  title: string;
  desc: string;
  /** `YYYY-MM-DD`, one per value. */
  days: string[];
  series: ChartSeries[];
  /** How a value is written on the y axis. */
  formatY: (value: number) => string;
}

const H = 220;
const M = { top: 14, right: 14, bottom: 34, left: 76 };

/** The smallest 1, 2, 2.5 or 5 × 10ⁿ at or above `value` (at least 1). */
export function niceCeil(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** `2026-11-25` → `25.11`. */
const shortDay = (day: string) => `${day.slice(8, 10)}.${day.slice(5, 7)}`;

export function LineChart(props: ChartProps) {
  const { id, days, series } = props;
  const W = 480;
  const max = niceCeil(Math.max(0, ...series.flatMap((s) => s.values)));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (i: number) =>
    M.left + (days.length <= 1 ? plotW / 2 : (i * plotW) / (days.length - 1));
  const y = (v: number) => M.top + plotH - (Math.max(v, 0) / max) * plotH;
  const ticks = [0, max / 2, max];
  const xTicks = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])].filter(
    (i) => i >= 0,
  );
  const dots = days.length <= 31;
  return (
    <figure class="chart">
      <figcaption id={`${id}-caption`}>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        data-chart={id}
      >
        <title id={`${id}-title`}>{props.title}</title>
        <desc id={`${id}-desc`}>{props.desc}</desc>
        {ticks.map((v) => (
          <g>
            <line x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} stroke="#d0d5dd" />
            <text x={M.left - 8} y={y(v) + 5} text-anchor="end" font-size="15" fill="#344054">
              {props.formatY(v)}
            </text>
          </g>
        ))}
        {xTicks.map((i) => (
          <text
            x={x(i)}
            y={H - 12}
            text-anchor={i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle'}
            font-size="15"
            fill="#344054"
          >
            {shortDay(days[i])}
          </text>
        ))}
        <line x1={M.left} x2={W - M.right} y1={M.top + plotH} y2={M.top + plotH} stroke="#667085" />
        {series.map((s, k) => (
          <g data-series={s.label}>
            <polyline
              fill="none"
              stroke={SERIES_COLOURS[k % SERIES_COLOURS.length]}
              stroke-width="2.5"
              stroke-linejoin="round"
              points={s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
            />
            {dots &&
              s.values.map((v, i) => (
                <circle
                  cx={x(i).toFixed(1)}
                  cy={y(v).toFixed(1)}
                  r="3"
                  fill={SERIES_COLOURS[k % SERIES_COLOURS.length]}
                />
              ))}
          </g>
        ))}
      </svg>
      <ul class="legend" aria-hidden="true">
        {series.map((s, k) => (
          <li>
            <span class={`swatch s${(k % SERIES_COLOURS.length) + 1}`} />
            {s.label}
          </li>
        ))}
      </ul>
    </figure>
  );
}

/**
 * The funnel: each step's number and its share of the previous step as text, and a bar of its
 * share of the first step (decoration: the text says it all).
 */
export function FunnelSteps(props: {
  steps: { label: string; value: number; text: string }[];
  percentText: (step: number) => string;
  ofPrevious: string;
}) {
  const first = Math.max(props.steps[0]?.value ?? 0, 1);
  return (
    <ol class="funnel-steps">
      {props.steps.map((s, i) => (
        <li data-step={String(i)} data-value={String(s.value)}>
          <span>
            <strong>{s.label}</strong>: {s.text}
            {i > 0 && <span class="muted">{` · ${props.percentText(i)} ${props.ofPrevious}`}</span>}
          </span>
          <svg viewBox="0 0 100 4" preserveAspectRatio="none" aria-hidden="true" focusable="false">
            <rect
              width={Math.max((s.value / first) * 100, 0.5).toFixed(2)}
              height="4"
              rx="1"
              fill={SERIES_COLOURS[i % SERIES_COLOURS.length]}
            />
          </svg>
        </li>
      ))}
    </ol>
  );
}
