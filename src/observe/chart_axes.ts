/**
 * What the server-drawn SVG charts (the timeline and the lag chart) share:
 * time-aware ticks at round steps, clock and duration labels, a palette of
 * colours that stay apart for colour-blind readers, and SVG escaping.
 *
 * @module
 */

/**
 * The Okabe-Ito palette (without its black and yellow, too close to the
 * axes and the background): eight colours that stay distinguishable with
 * the common colour-vision deficiencies. Subtasks past the eighth reuse
 * them with a dash pattern (see {@linkcode dashOf}).
 */
export const PALETTE: readonly string[] = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#D55E00",
  "#CC79A7",
  "#56B4E9",
  "#000000",
  "#999933",
];

/** The colour of the `i`-th line. */
export function colorOf(i: number): string {
  return PALETTE[i % PALETTE.length];
}

/** The dash pattern of the `i`-th line: solid for the first round of colours. */
export function dashOf(i: number): string {
  const round = Math.floor(i / PALETTE.length) % 3;
  return round === 0 ? "" : round === 1 ? "6 3" : "2 3";
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Steps a person reads a clock by, in milliseconds. */
const STEPS = [
  1,
  2,
  5,
  10,
  20,
  50,
  100,
  200,
  500,
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
];

/**
 * The smallest round time step (1, 2, 5 … ms, 1 s, 2 s, 5 s, 10 s, 15 s,
 * 30 s, 1 min, 2 min, 5 min … 1 day, then whole days) that gives at most
 * `most` ticks over the range.
 *
 * @param range The domain `[lo, hi]`, in milliseconds.
 * @param most The most ticks wanted.
 * @returns The step in milliseconds.
 */
export function timeStep(
  [lo, hi]: readonly [number, number],
  most = 6,
): number {
  const span = Math.max(hi - lo, 1);
  for (const step of STEPS) if (span / step <= most) return step;
  return Math.ceil(span / most / DAY) * DAY;
}

/**
 * The multiples of `step` inside `[lo, hi]`: on epoch milliseconds, round
 * UTC clock times.
 *
 * @param range The domain.
 * @param step The step, from {@linkcode timeStep}.
 * @returns The tick values, ascending.
 */
export function ticksOf(
  [lo, hi]: readonly [number, number],
  step: number,
): number[] {
  const result: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) result.push(t);
  return result;
}

/**
 * A tick's UTC clock label: `HH:MM:SS`, with milliseconds when the step is
 * under a second, `HH:MM` when it is whole minutes.
 *
 * @param ms Epoch milliseconds.
 * @param step The tick step.
 * @returns The label.
 */
export function clockLabel(ms: number, step: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  const iso = d.toISOString();
  if (step < SECOND) return iso.slice(11, 23);
  return step % MINUTE === 0 ? iso.slice(11, 16) : iso.slice(11, 19);
}

/**
 * A duration tick's label: `250 ms`, `5 s`, `1 min 30 s`, `2 h`.
 *
 * @param ms The duration in milliseconds (negative for ahead).
 * @returns The label.
 */
export function durationLabel(ms: number): string {
  const sign = ms < 0 ? "−" : "";
  const a = Math.abs(ms);
  if (a === 0) return "0";
  if (a < SECOND) return `${sign}${a} ms`;
  if (a < MINUTE) return `${sign}${+(a / SECOND).toFixed(3)} s`;
  if (a < HOUR) {
    const s = Math.round((a % MINUTE) / SECOND);
    return `${sign}${Math.floor(a / MINUTE)} min${s === 0 ? "" : ` ${s} s`}`;
  }
  const m = Math.round((a % HOUR) / MINUTE);
  return `${sign}${Math.floor(a / HOUR)} h${m === 0 ? "" : ` ${m} min`}`;
}

/** The UTC date (`YYYY-MM-DD`) of epoch milliseconds, for axis titles. */
export function dateLabel(ms: number): string {
  const d = new Date(Math.round(ms));
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString().slice(0, 10);
}

/** A coordinate rounded to 0.1 px, so output is stable. */
export function px(v: number): number {
  return Math.round(v * 10) / 10;
}

/** Text made safe for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A linear map from a domain to pixels. */
export function linear(
  [lo, hi]: readonly [number, number],
  from: number,
  to: number,
): (v: number) => number {
  return function toPixels(v: number): number {
    return from + (v - lo) / (hi - lo) * (to - from);
  };
}

/** Below this width a chart's legend goes under the plot, not beside it. */
export const NARROW_WIDTH = 600;

/**
 * A chart's legend: one short line in the series' colour and dash and its
 * name per id, in rows from `(x, y)` (the top left of the first entry).
 *
 * @param ids The series, in colour order.
 * @param x Left edge, in pixels.
 * @param y Top edge, in pixels.
 * @returns The SVG of a `<g class="legend">`.
 */
export function legendSvg(
  ids: readonly string[],
  x: number,
  y: number,
): string {
  const out = [`<g class="legend">`];
  ids.forEach((id, i) => {
    const top = y + i * 16;
    const pattern = dashOf(i);
    out.push(
      `<line x1="${x}" x2="${x + 20}" y1="${top + 6}" y2="${top + 6}" stroke="${
        colorOf(i)
      }"${
        pattern === "" ? "" : ` stroke-dasharray="${pattern}"`
      } stroke-width="2"/>`,
      `<text x="${x + 26}" y="${top + 10}">${escapeXml(id)}</text>`,
    );
  });
  out.push(`</g>`);
  return out.join("\n");
}
