/**
 * The line above the checkpoints table: how many completed and failed
 * since the service started looking, the last failure, and where the job
 * started from. Its twin in `dashboard_live.js` redraws it from
 * `GET /jobs/:job/checkpoints`: change both together.
 *
 * @module
 */

import type { CheckpointStats } from "../job_handle.ts";

/**
 * The summary in words, e.g. "4 completed, 1 failed (last: 7); started
 * from checkpoint 3".
 *
 * @param stats What the handle counted, if it counts.
 * @returns The text; "" when the handle does not count checkpoints.
 */
export function checkpointSummaryText(
  stats: CheckpointStats | undefined,
): string {
  if (stats === undefined) return "";
  const last = stats.failures.at(-1);
  const failed = `${stats.failed} failed${
    last === undefined ? "" : ` (last: ${last.id})`
  }`;
  const start = !stats.restoredFromKnown
    ? "where it started is not known"
    : stats.restoredFrom === null
    ? "started afresh"
    : `started from checkpoint ${stats.restoredFrom.id}`;
  return `${stats.completed} completed, ${failed}; ${start}`;
}
