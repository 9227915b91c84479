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

/** A chart's size, plot area and legend: {@linkcode chartFrame}'s result. */
export interface ChartFrame {
  /** The image's height, in pixels. */
  readonly height: number;
  /** The plot area inside the margins, in pixels. */
  readonly plot: {
    readonly left: number;
    readonly top: number;
    readonly right: number;
    readonly bottom: number;
  };
  /** The legend's SVG, beside the plot or, on a narrow image, under it. */
  readonly legend: string;
}

/**
 * Lays a chart out: on an image narrower than {@linkcode NARROW_WIDTH} the
 * legend goes under the plot (a row per series, added to the height),
 * which keeps the width; otherwise beside it, in the right margin.
 *
 * @param ids The series, in colour order.
 * @param width The image's width, in pixels.
 * @param height The height asked for, if any, and the default without rows.
 * @param margin The margins around the plot, in pixels.
 * @param checkHeight Checks the height (the caller names itself in errors).
 * @returns The height, the plot area and the legend.
 */
export function chartFrame(
  ids: readonly string[],
  width: number,
  height: { readonly asked?: number; readonly base: number },
  margin: {
    readonly top: number;
    readonly right: number;
    readonly bottom: number;
    readonly left: number;
  },
  checkHeight: (value: number) => number,
): ChartFrame {
  const below = width < NARROW_WIDTH;
  const rows = below ? ids.length * 16 : 0;
  const h = checkHeight(height.asked ?? height.base + rows);
  const plot = {
    left: margin.left,
    top: margin.top,
    right: width - (below ? 16 : margin.right),
    bottom: h - margin.bottom - rows,
  };
  const legend = below
    ? legendSvg(ids, plot.left, plot.bottom + margin.bottom)
    : legendSvg(ids, plot.right + 12, plot.top);
  return { height: h, plot, legend };
}

/** One axis of {@linkcode axesSvg}: its range, and where a value is drawn. */
export interface ChartAxis {
  /** The values shown, `[low, high]`. */
  readonly domain: [number, number];
  /** A value's position, in pixels. */
  readonly toPixels: (v: number) => number;
}

/**
 * The axes of a chart whose x axis is processing time: the frame, ticks at
 * round time steps (labelled HH:MM:SS), grid lines across for the y ticks,
 * and both titles.
 *
 * @param out Where the SVG goes.
 * @param plot The plot area, in pixels.
 * @param x Processing time.
 * @param y The y axis, how many ticks it aims at, how a tick is labelled
 * and the axis' title.
 */
export function axesSvg(
  out: string[],
  plot: ChartFrame["plot"],
  x: ChartAxis,
  y: ChartAxis & {
    readonly ticks: number;
    readonly label: (t: number, step: number) => string;
    readonly title: string;
  },
): void {
  out.push(
    `<g class="axes" stroke="#333" fill="#333">`,
    `<line class="x-axis" x1="${plot.left}" x2="${plot.right}" y1="${plot.bottom}" y2="${plot.bottom}"/>`,
    `<line class="y-axis" x1="${plot.left}" x2="${plot.left}" y1="${plot.top}" y2="${plot.bottom}"/>`,
  );
  const xStep = timeStep(x.domain);
  for (const t of ticksOf(x.domain, xStep)) {
    const at = px(x.toPixels(t));
    out.push(
      `<line class="x-tick" data-value="${t}" x1="${at}" x2="${at}" y1="${plot.bottom}" y2="${
        plot.bottom + 4
      }"/>`,
      `<text x="${at}" y="${
        plot.bottom + 16
      }" text-anchor="middle" stroke="none">${clockLabel(t, xStep)}</text>`,
    );
  }
  const yStep = timeStep(y.domain, y.ticks);
  for (const t of ticksOf(y.domain, yStep)) {
    const at = px(y.toPixels(t));
    out.push(
      `<line class="y-tick" data-value="${t}" x1="${
        plot.left - 4
      }" x2="${plot.left}" y1="${at}" y2="${at}"/>`,
      `<line x1="${plot.left}" x2="${plot.right}" y1="${at}" y2="${at}" stroke="#eee"/>`,
      `<text x="${plot.left - 6}" y="${
        px(at + 4)
      }" text-anchor="end" stroke="none">${y.label(t, yStep)}</text>`,
    );
  }
  out.push(
    `<text class="x-label" x="${(plot.left + plot.right) / 2}" y="${
      plot.bottom + 34
    }" text-anchor="middle" stroke="none">processing time (UTC, ${
      dateLabel(x.domain[0])
    })</text>`,
    `<text class="y-label" transform="translate(14 ${
      (plot.top + plot.bottom) / 2
    }) rotate(-90)" text-anchor="middle" stroke="none">${
      escapeXml(y.title)
    }</text>`,
    `</g>`,
  );
}

/**
 * Checks a chart's width or height.
 *
 * @param value The size asked for, in pixels.
 * @param min The smallest allowed.
 * @param param Its name, for the message.
 * @param chart What is drawn, for the message (e.g. "the timeline").
 * @returns The size.
 * @throws {RangeError} If it is not an integer from `min` to 10000.
 */
export function checkChartSize(
  value: number,
  min: number,
  param: string,
  chart: string,
): number {
  if (!Number.isInteger(value) || value < min || value > 10_000) {
    throw new RangeError(
      `Cannot render ${chart} as '${param}' must be an integer from ${min} to 10000: current value is ${value}`,
    );
  }
  return value;
}

/**
 * The plot's frame with "No watermark yet" in it: a chart with nothing to
 * draw.
 *
 * @param plot The plot area, in pixels.
 * @returns The SVG.
 */
export function emptyPlotSvg(plot: ChartFrame["plot"]): string {
  return `<rect class="plot" x="${plot.left}" y="${plot.top}" width="${
    plot.right - plot.left
  }" height="${plot.bottom - plot.top}" fill="none" stroke="#999"/>
<text class="empty" x="${(plot.left + plot.right) / 2}" y="${
    (plot.top + plot.bottom) / 2
  }" text-anchor="middle" fill="#666">No watermark yet</text>`;
}
