/**
 * The lag-over-time chart as an SVG string: processing time across, each
 * subtask's watermark lag (processing time minus its output watermark) up,
 * with idle periods shaded. A stall shows as a line climbing at 45°; an
 * idle subtask as a shaded span.
 *
 * @module
 */

import {
  axesSvg,
  chartFrame,
  checkChartSize,
  colorOf,
  dashOf,
  durationLabel,
  emptyPlotSvg,
  escapeXml,
  linear,
  px,
} from "./chart_axes.ts";
import type { WatermarkSample } from "./job_handle.ts";

/** What {@linkcode renderLagChartSvg} draws. */
export interface LagChartInput {
  /** Watermark samples, in any order. */
  readonly samples: readonly WatermarkSample[];
  /**
   * Width of the image in pixels, from 200 to 10000.
   * @default {800}
   */
  readonly width?: number;
  /**
   * Height of the image in pixels, from 150 to 10000.
   * @default {300}
   */
  readonly height?: number;
}

const MARGIN = { top: 16, right: 200, bottom: 44, left: 72 };

/**
 * Draws each subtask's watermark lag over processing time as a
 * self-contained SVG document.
 *
 * Each subtask gets one `<polyline class="lag" data-subtask>` through its
 * samples with a finite output watermark (the lag is `at −
 * outputWatermark`), coloured from a colour-blind-safe palette in the order
 * of sorted ids, and a legend entry. Each run of samples in which a
 * subtask was idle is a `<rect class="idle" data-subtask>` shaded in its
 * colour behind the lines, from the first idle sample to the next sample.
 * Ticks fall at round steps: clock times (`HH:MM:SS`, see `timeStep` in
 * `chart_axes.ts`) across, durations (`0`, `5 s`, `1 min`) up.
 *
 * Below 600 px wide the legend goes under the plot, one row per subtask,
 * and the default height grows by those rows.
 *
 * Output is deterministic (subtasks sorted, coordinates rounded to 0.1 px).
 * Cost is linear in samples times subtasks; callers bound the history.
 *
 * @param input Samples and size.
 * @returns An SVG document (`image/svg+xml`).
 * @throws {RangeError} If `width` or `height` is not an integer in range.
 *
 * @example A subtask falling behind
 * ```ts
 * import { renderLagChartSvg } from "./lag_chart.ts";
 * import assert from "node:assert/strict";
 *
 * const at = (t: number, wm: number) => ({
 *   at: t,
 *   subtasks: { "job/src/0": { inputWatermark: wm, outputWatermark: wm, idle: false } },
 * });
 * const svg = renderLagChartSvg({ samples: [at(1_000, 0), at(6_000, 0)] });
 * assert.equal(svg.match(/<polyline class="lag"/g)?.length, 1);
 * ```
 */
export function renderLagChartSvg(input: LagChartInput): string {
  const width = checkChartSize(
    input.width ?? 800,
    200,
    "width",
    "the lag chart",
  );
  const samples = [...input.samples]
    .filter((s) => Number.isFinite(s.at))
    .sort((a, b) => a.at - b.at);
  const ids = [...new Set(samples.flatMap((s) => Object.keys(s.subtasks)))]
    .sort();
  const { height, plot, legend: legendText } = chartFrame(
    ids,
    width,
    { asked: input.height, base: 300 },
    MARGIN,
    (h) => checkChartSize(h, 150, "height", "the lag chart"),
  );
  const legend = (out: string[]) => out.push(legendText);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect class="background" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  let lo = 0;
  let hi = -Infinity;
  for (const s of samples) {
    for (const id of ids) {
      const wm = s.subtasks[id]?.outputWatermark;
      if (wm === undefined || !Number.isFinite(wm)) continue;
      const lag = s.at - wm;
      if (lag < lo) lo = lag;
      if (lag > hi) hi = lag;
    }
  }
  if (samples.length === 0 || hi === -Infinity) {
    out.push(emptyPlotSvg(plot));
    legend(out);
    out.push("</svg>");
    return out.join("\n");
  }
  const first = samples[0].at;
  const last = samples[samples.length - 1].at;
  const xDomain: [number, number] = first === last
    ? [first - 500, last + 500]
    : [first, last];
  // Lag starts at 0 (or below, when a watermark runs ahead), with headroom.
  const yDomain: [number, number] = [lo, hi <= lo ? lo + 1_000 : hi * 1.05];
  const x = linear(xDomain, plot.left, plot.right);
  const y = linear(yDomain, plot.bottom, plot.top);

  out.push(`<g class="idle-periods">`);
  ids.forEach((id, i) => {
    let from: number | null = null;
    samples.forEach((s, k) => {
      const idle = s.subtasks[id]?.idle === true;
      if (idle && from === null) from = s.at;
      const next = samples[k + 1];
      if (from !== null && (!idle || next === undefined)) {
        // Until the sample that found it active again (or the last one).
        const right = Math.max(x(s.at), x(from) + 2);
        out.push(
          `<rect class="idle" data-subtask="${escapeXml(id)}" x="${
            px(x(from))
          }" y="${plot.top}" width="${px(right - x(from))}" height="${
            plot.bottom - plot.top
          }" fill="${colorOf(i)}" fill-opacity="0.15"><title>${
            escapeXml(id)
          } idle</title></rect>`,
        );
        from = null;
      }
    });
  });
  out.push(`</g>`);
  axesSvg(out, plot, { domain: xDomain, toPixels: x }, {
    domain: yDomain,
    toPixels: y,
    ticks: 5,
    label: durationLabel,
    title: "watermark lag",
  });
  out.push(`<g class="lags">`);
  ids.forEach((id, i) => {
    const points: string[] = [];
    for (const s of samples) {
      const wm = s.subtasks[id]?.outputWatermark;
      if (wm === undefined || !Number.isFinite(wm)) continue;
      points.push(`${px(x(s.at))},${px(y(s.at - wm))}`);
    }
    if (points.length === 0) return;
    if (points.length === 1) points.push(points[0]);
    const pattern = dashOf(i);
    out.push(
      `<polyline class="lag" data-subtask="${escapeXml(id)}" points="${
        points.join(" ")
      }" fill="none" stroke="${colorOf(i)}"${
        pattern === "" ? "" : ` stroke-dasharray="${pattern}"`
      } stroke-width="2" stroke-linejoin="round" stroke-linecap="round"><title>${
        escapeXml(id)
      } watermark lag</title></polyline>`,
    );
  });
  out.push(`</g>`);
  legend(out);
  out.push("</svg>");
  return out.join("\n");
}
