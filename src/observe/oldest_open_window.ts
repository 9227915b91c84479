/**
 * {@linkcode oldestOpenWindow}: the window `explain` looks at when it is
 * given none.
 *
 * @module
 */

import type { ExplainableJob } from "./explain_report.ts";

/**
 * The oldest window of an operator that has not fired: the window of
 * `sizeMs` (default: the operator's fixed `windowSizeMs`, windows aligned
 * to the epoch) that holds the lowest input watermark of its subtasks.
 * What `explain` looks at when no window is given.
 *
 * @param job The job.
 * @param operator The window operator's vertex id.
 * @param sizeMs The window size, if not the operator's.
 * @returns The window, or `null` while no watermark is known (nor, then,
 * which window is open) or the operator has no fixed size.
 */
export function oldestOpenWindow(
  job: ExplainableJob,
  operator: string,
  sizeMs?: number,
): { start: number; end: number } | null {
  const size = sizeMs ??
    job.graph.vertices.find((v) => v.id === operator)?.windowSizeMs;
  if (size === undefined || size <= 0) return null;
  const watermarks = job.status().filter((s) => s.operator === operator)
    .map((s) => s.inputWatermark);
  const watermark = Math.min(...watermarks);
  if (!Number.isFinite(watermark)) return null;
  // The window whose maxTimestamp (end - 1) the watermark has not reached.
  const start = Math.floor((watermark + 1) / size) * size;
  return { start, end: start + size };
}
