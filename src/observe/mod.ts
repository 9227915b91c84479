/**
 * Observing running jobs: what the HTTP routes show, computed from a job's
 * live state and never changing it.
 *
 * - {@linkcode LocalJobHandle} samples a runtime's status into a bounded
 *   watermark and gauge history ({@linkcode JobHandle} is what every other
 *   part reads).
 * - {@linkcode jobHealth} rates each operator (lag, drift, late records,
 *   state) and runs the detectors ({@linkcode diagnose}: one file per cause
 *   in `diagnosis/`) that name what holds event time back, with the fix.
 * - {@linkcode explainWindow} says why one window has not fired.
 * - {@linkcode renderTimelineSvg} draws the watermarks over processing
 *   time; {@linkcode prometheusText} writes every job for `/metrics`;
 *   `dashboard/` renders the dashboard page, whose script and styles are
 *   the static files `dashboard/dashboard.js` and `dashboard/dashboard.css`.
 *
 * This layer sits between `api` and `http`: it imports neither `http` nor
 * hono.
 *
 * @example Reading a job's health
 * ```ts
 * import { jobHealth, type JobHandle } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const handle: JobHandle = {
 *   name: "empty",
 *   graph: {
 *     jobName: "empty",
 *     vertices: [],
 *     edges: [],
 *     maxParallelism: 128,
 *     autoWatermarkIntervalMs: 200,
 *   },
 *   status: () => [],
 *   history: () => [],
 *   checkpoints: () => Promise.resolve([]),
 *   triggerCheckpoint: () => null,
 *   inputChannels: () => [],
 * };
 * const health = jobHealth(handle, 0);
 * assert.equal(health.status, "ok");
 * assert.deepEqual(health.diagnosis, []);
 * ```
 *
 * @module
 */

export type {
  CheckpointRecord,
  CheckpointStats,
  GaugeSample,
  JobHandle,
  WatermarkSample,
} from "./job_handle.ts";
export {
  LocalJobHandle,
  type LocalJobHandleOptions,
} from "./local_job_handle.ts";
export * from "./health.ts";
export * from "./health_thresholds.ts";
export { diagnose } from "./diagnosis/diagnose.ts";
export type { DiagnosisWindows } from "./diagnosis/diagnosis.ts";
export { explainWindow } from "./explain.ts";
export type {
  ExplainableJob,
  ExplainedChannel,
  ExplainedSubtask,
  ExplainQuery,
  ExplainReport,
} from "./explain_report.ts";
export { renderTimelineSvg, type TimelineInput } from "./timeline.ts";
export { prometheusText } from "./prometheus.ts";
export {
  type DeadLetterBrief,
  type DeadLetterSummary,
  readDeadLetters,
} from "./dead_letters.ts";
export { formatDuration, formatWatermark } from "./format.ts";
