/**
 * Checkpoints and restores as OpenTelemetry sees them: a `weir.checkpoint`
 * span and a `weir.checkpoint.duration` histogram sample per completed
 * checkpoint, a `weir.restore` span per restore. Both runtimes call it
 * where a checkpoint is saved or restored: once per checkpoint, never per
 * record.
 *
 * Through `npm:@opentelemetry/api` only: run with `OTEL_DENO=true` and
 * Deno's own SDK exports them; otherwise the API is a no-op.
 *
 * @module
 */

import { type Histogram, metrics, trace } from "@opentelemetry/api";
import type { CompletedCheckpoint } from "./checkpoint.ts";
import { checkpointBytes } from "./checkpoint_bytes.ts";

/** The instrumentation scope of every span and metric weir emits. */
export const TELEMETRY_SCOPE = "weir";

/**
 * Records a checkpoint that was saved: a `weir.checkpoint` span from its
 * trigger to now (attributes `job.name`, `weir.checkpoint.id` and, when
 * known, `weir.checkpoint.size` in bytes) and its duration in seconds in
 * the `weir.checkpoint.duration` histogram.
 *
 * The span ends at the wall-clock time of the call and starts `durationMs`
 * before it, so a job on a simulated clock still gives a span of the right
 * length at a time a backend accepts.
 *
 * @param checkpoint The checkpoint saved.
 * @param durationMs Trigger to saved, in the job's processing time;
 * `undefined` when not known (the span then has no length).
 */
export function checkpointSaved(
  checkpoint: CompletedCheckpoint,
  durationMs: number | undefined,
): void {
  const job = { "job.name": checkpoint.fingerprint.jobName };
  const endMs = Date.now();
  const span = trace.getTracer(TELEMETRY_SCOPE).startSpan("weir.checkpoint", {
    startTime: endMs - (durationMs ?? 0),
    attributes: { ...job, "weir.checkpoint.id": checkpoint.id },
  });
  // Only sized when someone records the span: the no-op span is not.
  if (span.isRecording()) {
    const size = checkpointBytes(checkpoint);
    if (size !== undefined) span.setAttribute("weir.checkpoint.size", size);
  }
  span.end(endMs);
  if (durationMs !== undefined) durations().record(durationMs / 1000, job);
}

/**
 * Records that a job started from a checkpoint: a `weir.restore` span
 * (attributes `job.name` and `weir.checkpoint.id`) from `startedAtMs` (the
 * wall-clock time the restore began; now when not given) to now.
 *
 * @param checkpoint The checkpoint restored.
 * @param startedAtMs When the restore began, epoch milliseconds.
 */
export function checkpointRestored(
  checkpoint: CompletedCheckpoint,
  startedAtMs?: number,
): void {
  const endMs = Date.now();
  trace.getTracer(TELEMETRY_SCOPE).startSpan("weir.restore", {
    startTime: startedAtMs ?? endMs,
    attributes: {
      "job.name": checkpoint.fingerprint.jobName,
      "weir.checkpoint.id": checkpoint.id,
    },
  }).end(endMs);
}

// Created once: a meter hands out one instrument per name anyway.
let histogram: Histogram | undefined;

function durations(): Histogram {
  return histogram ??= metrics.getMeter(TELEMETRY_SCOPE).createHistogram(
    "weir.checkpoint.duration",
    {
      description: "Trigger-to-saved duration of completed checkpoints",
      unit: "s",
    },
  );
}
