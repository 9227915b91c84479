/**
 * The windows and records the timeline draws, read from the gauge history
 * a job handle keeps: {@linkcode firedWindows} from the window operators'
 * `lastFiredWindowEndMs`, {@linkcode sampledRecords} from the sources'
 * `lastRecordTimestampMs`. Sampling costs the job nothing beyond one number
 * per fired window and per poll.
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import type { JobGraph } from "../runtime/job_graph.ts";
import type { GaugeSample, JobHandle } from "./job_handle.ts";

/** A fired window: event-time range `[start, end)` and when it fired, epoch ms. */
export interface FiredWindow {
  /** The window's start (its end minus the operator's window size). */
  readonly start: number;
  /** The window's end. */
  readonly end: number;
  /** The processing time of the first sample that saw it fired. */
  readonly firedAt: number;
}

/**
 * The window size of each subtask of a fixed-size window operator
 * (tumbling, sliding), by actor id; sessions and global windows have no
 * fixed size and are left out.
 *
 * @param graph The job's plan.
 * @param statuses The job's subtasks (for their actor ids and operators).
 * @returns Window size in milliseconds per actor id.
 */
export function windowSizesOf(
  graph: JobGraph,
  statuses: readonly Pick<SubtaskStatus, "id" | "operator">[],
): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const status of statuses) {
    const size = graph.vertices.find((v) => v.id === status.operator)
      ?.windowSizeMs;
    if (size !== undefined && size > 0) sizes.set(status.id, size);
  }
  return sizes;
}

/**
 * The windows seen fired in a gauge history: each time a window subtask's
 * `lastFiredWindowEndMs` rises between two samples, one window ending there,
 * fired at (or before) the later sample. Only the latest end per sample
 * interval is known: the other windows fired in that interval (other keys'
 * at the same end are one window here; earlier ends are not drawn). A rise
 * from the first sample's value counts, a first value does not (the window
 * fired before the history began). Deduplicated by end across subtasks.
 *
 * @param history Gauge samples, oldest first.
 * @param sizes Window size per actor id (see {@linkcode windowSizesOf});
 *   other subtasks are skipped.
 * @returns The fired windows, in order of firing.
 */
export function firedWindows(
  history: readonly GaugeSample[],
  sizes: ReadonlyMap<string, number>,
): FiredWindow[] {
  const windows: FiredWindow[] = [];
  const seen = new Set<string>();
  for (const [id, size] of sizes) {
    let last: number | undefined;
    for (const sample of history) {
      const end = sample.subtasks[id]?.gauges.lastFiredWindowEndMs;
      if (end === undefined) continue;
      if (last !== undefined && end > last && Number.isFinite(end)) {
        const key = `${end - size},${end}`;
        if (!seen.has(key)) {
          seen.add(key);
          windows.push({ start: end - size, end, firedAt: sample.at });
        }
      }
      last = end;
    }
  }
  return windows.sort((a, b) => a.firedAt - b.firedAt || a.end - b.end);
}

/**
 * Records as the samples saw them: one point per sample and source subtask
 * whose `lastRecordTimestampMs` changed since the previous sample (or is
 * the first finite value), at the sample's processing time. Only the last
 * record of each interval is known.
 *
 * @param history Gauge samples, oldest first.
 * @returns `{ at, timestamp }` points, epoch milliseconds, by sample.
 */
export function sampledRecords(
  history: readonly GaugeSample[],
): { at: number; timestamp: number }[] {
  const records: { at: number; timestamp: number }[] = [];
  const last = new Map<string, number>();
  for (const sample of history) {
    for (const [id, subtask] of Object.entries(sample.subtasks)) {
      const timestamp = subtask.gauges.lastRecordTimestampMs;
      if (timestamp === undefined || !Number.isFinite(timestamp)) continue;
      if (last.get(id) !== timestamp) {
        records.push({ at: sample.at, timestamp });
      }
      last.set(id, timestamp);
    }
  }
  return records;
}

/**
 * The fired windows and records of a job's timeline, from its latest
 * `limit` gauge samples (see {@linkcode firedWindows} and
 * {@linkcode sampledRecords}); none for a handle that keeps no gauge
 * history.
 *
 * @param job The job's handle.
 * @param limit How many of the latest samples to read.
 * @returns What `renderTimelineSvg` takes as `windows` and `records`.
 */
export function timelineMarks(
  job: Pick<JobHandle, "graph" | "status"> & {
    gaugeHistory?(): readonly GaugeSample[];
  },
  limit: number,
): { windows: FiredWindow[]; records: { at: number; timestamp: number }[] } {
  const history = job.gaugeHistory?.().slice(-limit) ?? [];
  if (history.length === 0) return { windows: [], records: [] };
  return {
    windows: firedWindows(history, windowSizesOf(job.graph, job.status())),
    records: sampledRecords(history),
  };
}
