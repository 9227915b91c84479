/**
 * The diagnoses read from a window operator's open windows over time: `state-growth` (event time stands still) and `window-never-fires` (the out-of-orderness bound exceeds the window).
 *
 * @module
 */

import type { JobVertex } from "../../runtime/job_graph.ts";
import { formatDuration, formatWatermark } from "../format.ts";
import type { Diagnosis } from "./diagnosis.ts";
import { lowestWatermarkOf } from "./readings.ts";
import { type Scene, subtasksOf } from "./scene.ts";

/**
 * (e) and (f): a window operator whose `numWindows` grew and never fell
 * over the last `lookbackMs` (at least half of it sampled). If its input
 * watermark stood still, state grows without cleanup (f); if the watermark
 * advanced by more than the window size plus allowed lateness, windows that
 * should have closed did not: the out-of-orderness bound exceeds the window
 * (e). Needs the gauge history; (e) also the window size in the plan.
 */
export function detectWindowTrends(scene: Scene, found: Diagnosis[]): void {
  if (scene.gauges === null) return;
  const minSpan = scene.windows.lookbackMs / 2;
  for (const vertex of scene.graph.vertices) {
    const ids = subtasksOf(scene, vertex).map((s) => s.id);
    const series = scene.gauges.flatMap((sample) => {
      const counts = ids.map((id) => sample.subtasks[id]?.gauges.numWindows);
      if (counts.some((n) => n === undefined)) return [];
      return [{ at: sample.at, windows: counts.reduce((a, b) => a! + b!, 0)! }];
    });
    const watermarks = scene.recent.flatMap((sample) => {
      const w = lowestWatermarkOf(sample, ids, "inputWatermark");
      return w === undefined ? [] : [{ at: sample.at, watermark: w }];
    });
    if (series.length < 2 || watermarks.length < 2) continue;
    const stuck = trend(series, watermarks[0], watermarks.at(-1)!, minSpan);
    if (stuck !== null && stuck.first.watermark === stuck.last.watermark) {
      found.push(stateGrowth(vertex, stuck));
      continue;
    }
    if (vertex.windowSizeMs === undefined) continue;
    const finite = watermarks.filter((w) => Number.isFinite(w.watermark));
    if (finite.length < 2) continue;
    const moving = trend(
      series.filter((s) => s.at >= finite[0].at),
      finite[0],
      finite.at(-1)!,
      minSpan,
    );
    const needed = vertex.windowSizeMs + (vertex.allowedLatenessMs ?? 0);
    if (moving === null) continue;
    if (moving.last.watermark - moving.first.watermark < needed) continue;
    found.push(windowNeverFires(vertex, moving));
  }
}

interface Trend {
  readonly span: number;
  readonly from: number;
  readonly to: number;
  readonly first: { readonly watermark: number };
  readonly last: { readonly watermark: number };
}

/** `numWindows` grew and never fell over at least `minSpan`, or `null`. */
function trend(
  series: ReadonlyArray<{ at: number; windows: number }>,
  first: { at: number; watermark: number },
  last: { at: number; watermark: number },
  minSpan: number,
): Trend | null {
  if (series.length < 2) return null;
  const span = series.at(-1)!.at - series[0].at;
  if (span < minSpan || last.at - first.at < minSpan) return null;
  for (let i = 1; i < series.length; i++) {
    if (series[i].windows < series[i - 1].windows) return null;
  }
  const from = series[0].windows;
  const to = series.at(-1)!.windows;
  return to > from ? { span, from, to, first, last } : null;
}

function stateGrowth(vertex: JobVertex, t: Trend): Diagnosis {
  return {
    cause: "state-growth",
    operator: vertex.id,
    evidence: `numWindows of ${vertex.id} grew from ${t.from} to ${t.to} in ${
      formatDuration(t.span)
    } while its input watermark stayed at ${
      formatWatermark(t.last.watermark)
    }: a window's state is dropped only when the watermark passes its end plus the allowed lateness, so state grows as long as event time stands still`,
    fix:
      "make event time advance: fix what holds the watermark (see the other causes), e.g. add .withIdleness(30_000) to the WatermarkStrategy so that silent partitions stop holding it, and keep allowedLateness small",
  };
}

function windowNeverFires(vertex: JobVertex, t: Trend): Diagnosis {
  const size = formatDuration(vertex.windowSizeMs!);
  const lateness = vertex.allowedLatenessMs
    ? ` plus the allowed lateness ${formatDuration(vertex.allowedLatenessMs)}`
    : "";
  return {
    cause: "window-never-fires",
    operator: vertex.id,
    evidence: `in the last ${
      formatDuration(t.span)
    } the input watermark of ${vertex.id} advanced by ${
      formatDuration(t.last.watermark - t.first.watermark)
    } of event time, more than the window size ${size}${lateness}, yet no window closed: numWindows grew from ${t.from} to ${t.to}. A window fires only when the watermark, which trails the newest timestamp by the out-of-orderness bound, passes its end: the bound is larger than the window`,
    fix:
      `lower maxOutOfOrdernessMs in forBoundedOutOfOrderness toward the lateness actually seen, or use windows larger than the bound (now ${size}); with a custom trigger, make sure it fires on event time`,
  };
}
