/**
 * The timeline chart (event time against processing time) as an SVG string: processing time
 * across, event time up, records as points, each subtask's watermark as a
 * line, fired windows as rectangles and window ends as dashed lines.
 *
 * @module
 */

import {
  axesSvg,
  chartFrame,
  checkChartSize,
  clockLabel,
  colorOf,
  dashOf,
  dateLabel,
  emptyPlotSvg,
  escapeXml,
  linear,
  px,
} from "./chart_axes.ts";
import type { WatermarkSample } from "./job_handle.ts";

/** What {@linkcode renderTimelineSvg} draws. */
export interface TimelineInput {
  /** Watermark samples, in any order; each subtask's output watermark becomes a line. */
  readonly samples: readonly WatermarkSample[];
  /**
   * Fired windows: event-time range `[start, end)` and the processing time
   * it fired at, all epoch milliseconds.
   * @default {[]}
   */
  readonly windows?: ReadonlyArray<
    { start: number; end: number; firedAt: number }
  >;
  /**
   * Records: processing time `at` they arrived and their event `timestamp`,
   * epoch milliseconds.
   * @default {[]}
   */
  readonly records?: ReadonlyArray<{ at: number; timestamp: number }>;
  /**
   * Width of the image in pixels, from 200 to 10000.
   * @default {800}
   */
  readonly width?: number;
  /**
   * Height of the image in pixels, from 150 to 10000.
   * @default {400}
   */
  readonly height?: number;
}

const MARGIN = { top: 24, right: 200, bottom: 48, left: 96 };
// Records, windows and window ends are drawn in greys and a light green,
// so the watermark lines keep the palette's colours to themselves.
const RECORD = "#555555";
const WINDOW = "#009E73";
const WINDOW_END = "#777777";

/**
 * Draws the timeline of a job as a self-contained SVG document.
 *
 * The x axis is processing time and the y axis event time, both labelled as
 * UTC clock times at round steps (1 s, 5 s, 10 s, 30 s, 1 min, 5 min …, see
 * `chart_axes.ts`), with the date of the lowest value in the
 * axis title. Each subtask of the samples gets one `<polyline
 * class="watermark">` of its output watermark, drawn as a step (a watermark
 * holds until the next sample) and a legend entry; `-Infinity` (no watermark
 * yet) and `Infinity` (end of input) samples are skipped, so a subtask with
 * no finite sample has a legend entry but no line. Records are
 * `<circle class="record">`, fired windows `<rect class="window">` spanning
 * their event-time range from the left edge to the processing time they
 * fired, and each distinct window end a dashed `<line class="window-end">`.
 * Records and windows with non-finite times are skipped.
 *
 * Below 600 px wide the legend goes under the plot, one row per subtask,
 * and the default height grows by those rows.
 *
 * Output is deterministic: the same input gives the same string (subtasks
 * are sorted by id, windows by end, start and firing time; coordinates are
 * rounded to 0.1 px), so it can be compared with a snapshot. Subtask ids are
 * escaped. The cost is linear in the number of samples times subtasks, plus
 * records and windows; callers bound the history they pass.
 *
 * @param input Samples, windows, records and size.
 * @returns An SVG document (`image/svg+xml`).
 * @throws {RangeError} If `width` or `height` is not an integer in range.
 *
 * @example One subtask's watermark
 * ```ts
 * import { renderTimelineSvg } from "./timeline.ts";
 * import assert from "node:assert/strict";
 *
 * const svg = renderTimelineSvg({
 *   samples: [
 *     { at: 0, subtasks: { "job/src/0": { inputWatermark: 0, outputWatermark: 1_000, idle: false } } },
 *     { at: 1_000, subtasks: { "job/src/0": { inputWatermark: 0, outputWatermark: 2_000, idle: false } } },
 *   ],
 * });
 * assert.equal(svg.match(/<polyline /g)?.length, 1);
 * ```
 */
export function renderTimelineSvg(input: TimelineInput): string {
  const width = checkChartSize(
    input.width ?? 800,
    200,
    "width",
    "the timeline",
  );

  const samples = [...input.samples].sort((a, b) => a.at - b.at);
  const ids = [...new Set(samples.flatMap((s) => Object.keys(s.subtasks)))]
    .sort();
  const { height, plot, legend: legendText } = chartFrame(
    ids,
    width,
    { asked: input.height, base: 400 },
    MARGIN,
    (h) => checkChartSize(h, 150, "height", "the timeline"),
  );
  const legend = (out: string[]) => out.push(legendText);
  const records = (input.records ?? []).filter((r) =>
    Number.isFinite(r.at) && Number.isFinite(r.timestamp)
  );
  const windows = (input.windows ?? [])
    .filter((w) =>
      Number.isFinite(w.start) && Number.isFinite(w.end) &&
      Number.isFinite(w.firedAt)
    )
    .sort((a, b) =>
      a.end - b.end || a.start - b.start || a.firedAt - b.firedAt
    );

  const xs: number[] = [];
  const ys: number[] = [];
  for (const sample of samples) {
    if (Number.isFinite(sample.at)) xs.push(sample.at);
    for (const id of ids) {
      const wm = sample.subtasks[id]?.outputWatermark;
      if (wm !== undefined && Number.isFinite(wm)) ys.push(wm);
    }
  }
  for (const r of records) {
    xs.push(r.at);
    ys.push(r.timestamp);
  }
  for (const w of windows) {
    xs.push(w.firedAt);
    ys.push(w.start, w.end);
  }

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect class="background" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  if (xs.length === 0 || ys.length === 0) {
    out.push(emptyPlotSvg(plot));
    legend(out);
    out.push("</svg>");
    return out.join("\n");
  }

  const xDomain = domain(xs);
  const yDomain = domain(ys);
  const x = linear(xDomain, plot.left, plot.right);
  const y = linear(yDomain, plot.bottom, plot.top);

  axesSvg(out, plot, { domain: xDomain, toPixels: x }, {
    domain: yDomain,
    toPixels: y,
    ticks: 6,
    label: clockLabel,
    title: `event time (UTC, ${dateLabel(yDomain[0])})`,
  });

  out.push(`<g class="windows">`);
  for (const w of windows) {
    const top = y(w.end);
    const bottom = y(w.start);
    out.push(
      `<rect class="window" x="${plot.left}" y="${px(top)}" width="${
        px(Math.max(0, x(w.firedAt) - plot.left))
      }" height="${
        px(Math.max(0, bottom - top))
      }" fill="${WINDOW}" fill-opacity="0.10" stroke="${WINDOW}" stroke-width="1"/>`,
    );
  }
  for (const end of [...new Set(windows.map((w) => w.end))]) {
    out.push(
      `<line class="window-end" x1="${plot.left}" x2="${plot.right}" y1="${
        px(y(end))
      }" y2="${
        px(y(end))
      }" stroke="${WINDOW_END}" stroke-width="1" stroke-dasharray="6 4"/>`,
    );
  }
  out.push(`</g>`, `<g class="records">`);
  for (const r of records) {
    out.push(
      `<circle class="record" cx="${px(x(r.at))}" cy="${
        px(y(r.timestamp))
      }" r="2" fill="${RECORD}" fill-opacity="0.6"/>`,
    );
  }
  out.push(`</g>`, `<g class="watermarks">`);
  ids.forEach((id, i) => {
    const points: string[] = [];
    let previous: number | null = null;
    for (const sample of samples) {
      const wm = sample.subtasks[id]?.outputWatermark;
      if (wm === undefined || !Number.isFinite(wm)) continue;
      // A watermark holds until the next sample: draw a step.
      if (previous !== null) {
        points.push(`${px(x(sample.at))},${px(y(previous))}`);
      }
      points.push(`${px(x(sample.at))},${px(y(wm))}`);
      previous = wm;
    }
    if (points.length === 0) return;
    // A single sample is drawn as a dot-sized segment so that it shows.
    if (points.length === 1) points.push(points[0]);
    out.push(
      `<polyline class="watermark" data-subtask="${escapeXml(id)}" points="${
        points.join(" ")
      }" fill="none" stroke="${colorOf(i)}"${
        dash(i)
      } stroke-width="2" stroke-linecap="round"><title>${
        escapeXml(id)
      } output watermark</title></polyline>`,
    );
  });
  out.push(`</g>`);
  legend(out);
  out.push("</svg>");
  return out.join("\n");
}

function domain(values: number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  // A single value gets a one-second range around it; otherwise 3% on each
  // side keeps points off the frame.
  if (lo === hi) return [lo - 500, hi + 500];
  const pad = (hi - lo) * 0.03;
  return [lo - pad, hi + pad];
}

function dash(i: number): string {
  const pattern = dashOf(i);
  return pattern === "" ? "" : ` stroke-dasharray="${pattern}"`;
}
