/**
 * Every job's subtasks, health, checkpoints and dead letters in the
 * Prometheus text exposition format: what `GET /metrics` answers. Names
 * and units follow Prometheus's conventions (base units: seconds and
 * bytes; `_total` counters), and every sample is labelled `job_name`:
 * a scrape rewrites a `job` label to `exported_job`.
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import { readDeadLetters } from "./dead_letters.ts";
import type { CheckpointRecord, JobHandle } from "./job_handle.ts";
import {
  exposition,
  family,
  type MetricFamily,
} from "./prometheus_exposition.ts";
import { gaugeMetric } from "./prometheus_gauges.ts";
import { addHealth, healthFamilies, healthOf } from "./prometheus_health.ts";
import { type ScrapeMemory, scrapeMemory } from "./prometheus_memory.ts";

/** A per-subtask family read from each subtask's status. */
interface SubtaskFamily {
  readonly family: MetricFamily;
  /** The value, or `undefined` when the subtask has none. */
  read(status: SubtaskStatus, memory: ScrapeMemory): number | undefined;
}

function subtaskFamilies(): SubtaskFamily[] {
  const f = (
    name: string,
    type: "gauge" | "counter",
    help: string,
    read: SubtaskFamily["read"],
  ): SubtaskFamily => ({ family: family(name, type, help), read });
  return [
    f(
      "weir_subtask_input_watermark_seconds",
      "gauge",
      "Merged input watermark of the subtask (for sources: the emitted watermark), seconds since the epoch; -Inf before the first",
      (s) => s.inputWatermark / 1000,
    ),
    f(
      "weir_subtask_output_watermark_seconds",
      "gauge",
      "Last watermark the subtask sent downstream, seconds since the epoch; -Inf before the first",
      (s) => s.outputWatermark / 1000,
    ),
    f(
      "weir_subtask_watermark_lag_seconds",
      "gauge",
      "Processing time minus the subtask's output watermark, seconds",
      (s) => s.watermarkLagMs / 1000,
    ),
    f(
      "weir_subtask_idle",
      "gauge",
      "Whether the subtask's output is idle (1) or active (0)",
      (s) => s.idle ? 1 : 0,
    ),
    f(
      "weir_subtask_paused",
      "gauge",
      "Whether the subtask is paused by back-pressure or watermark alignment (1) or not (0)",
      (s) => s.paused ? 1 : 0,
    ),
    f(
      "weir_subtask_back_pressured_seconds_total",
      "counter",
      "Processing time the subtask was seen paused (back-pressure or alignment), sampled at each scrape and held until the next",
      (s, memory) => memory.backPressuredSeconds(s.id),
    ),
    f(
      "weir_subtask_pending_records",
      "gauge",
      "Elements (records, watermarks, barriers) waiting in the subtask's mailbox",
      (s) => s.mailboxDepth,
    ),
    f(
      "weir_subtask_records_in_total",
      "counter",
      "Records received (for sources: read) by the subtask",
      (s) => s.recordsIn,
    ),
    f(
      "weir_subtask_records_out_total",
      "counter",
      "Records the subtask sent downstream",
      (s) => s.recordsOut,
    ),
    f(
      "weir_subtask_late_records_dropped_total",
      "counter",
      "Records a window operator dropped as late",
      (s) => s.gauges.numLateRecordsDropped,
    ),
  ];
}

/** The per-job families, empty, in the order they are written. */
function jobFamilies() {
  return {
    duration: family(
      "weir_checkpoint_duration_seconds",
      "gauge",
      "Trigger-to-saved duration of the job's last checkpoint whose duration is known, seconds",
    ),
    size: family(
      "weir_checkpoint_size_bytes",
      "gauge",
      "Stored size of the job's last completed checkpoint whose size is known, bytes",
    ),
    retained: family(
      "weir_checkpoints_retained",
      "gauge",
      "Completed checkpoints the job lists now (those its store keeps)",
    ),
    completed: family(
      "weir_checkpoints_completed_total",
      "counter",
      "Checkpoints seen completed since the service started watching the job",
    ),
    failed: family(
      "weir_checkpoints_failed_total",
      "counter",
      "Checkpoint ids the job gave out and never saved, since the service started watching it",
    ),
    restored: family(
      "weir_checkpoint_restored_id",
      "gauge",
      "Id of the checkpoint the job started from (absent when it started afresh or that is not known)",
    ),
    deadLetters: family(
      "weir_dead_letters_total",
      "counter",
      "Records the job's error policy set aside (dead-lettered or quarantined) in its dead-letter log",
    ),
  };
}

/**
 * Every job in the Prometheus text exposition format (version 0.0.4): the
 * body `GET /metrics` answers (see `metricsRoutes` for the families).
 *
 * Counters no handle keeps (back-pressured time, checkpoints completed and
 * failed) are kept per handle between calls (see `ScrapeMemory`), so they
 * count from the first call that sees the job. A job whose health or
 * checkpoints cannot be read is left out of those families for this
 * scrape (logged); its other families are written.
 *
 * @param jobs The jobs.
 * @param now The current processing time, epoch milliseconds.
 * @returns The exposition text.
 */
export async function prometheusText(
  jobs: Iterable<JobHandle>,
  now: number,
): Promise<string> {
  const subtasks = subtaskFamilies();
  const gauges = new Map<string, MetricFamily>();
  const perJob = jobFamilies();
  const health = healthFamilies();
  const builtIn = new Set(subtasks.map((s) => s.family.name));
  for (const handle of jobs) {
    const memory = scrapeMemory(handle);
    const report = healthOf(handle, now);
    if (report !== null) addHealth(health, report);
    const statuses = handle.status();
    memory.observeSubtasks(statuses, now);
    for (const status of statuses) {
      const labels = {
        job_name: handle.name,
        operator: status.operator,
        subtask: String(status.subtask),
      };
      for (const { family, read } of subtasks) {
        const value = read(status, memory);
        if (value !== undefined) family.samples.push([labels, value]);
      }
      // Two gauges whose names write alike ("fooMs", "foo_ms"), or one
      // named like a built-in family: the first written wins, a repeated
      // series would make the exposition invalid.
      const written = new Set(builtIn);
      for (const [name, value] of Object.entries(status.gauges)) {
        const metric = gaugeMetric(name);
        if (metric === null || written.has(metric.name)) continue;
        written.add(metric.name);
        let gauge = gauges.get(metric.name);
        if (gauge === undefined) {
          gauge = family(metric.name, "gauge", metric.help);
          gauges.set(metric.name, gauge);
        }
        gauge.samples.push([labels, value * metric.scale]);
      }
    }
    const job = { job_name: handle.name };
    const checkpoints = await checkpointsOf(handle);
    if (checkpoints !== null) {
      memory.observeCheckpoints(checkpoints.map((c) => c.id));
      perJob.retained.samples.push([job, checkpoints.length]);
      perJob.completed.samples.push([job, memory.checkpointsCompleted]);
      perJob.failed.samples.push([job, memory.checkpointsFailed]);
      const timed = checkpoints.findLast((c) => c.durationMs !== undefined);
      if (timed !== undefined) {
        perJob.duration.samples.push([job, timed.durationMs! / 1000]);
      }
      const sized = checkpoints.findLast((c) => c.sizeBytes !== undefined);
      if (sized !== undefined) {
        perJob.size.samples.push([job, sized.sizeBytes!]);
      }
    }
    const restored = handle.checkpointStats?.().restoredFrom;
    if (restored) perJob.restored.samples.push([job, restored.id]);
    const letters = await readDeadLetters(handle, 0);
    if (letters !== null) {
      perJob.deadLetters.samples.push([job, letters.count]);
    }
  }
  return exposition([
    ...subtasks.map((s) => s.family),
    ...[...gauges.values()].sort((a, b) => a.name.localeCompare(b.name)),
    ...Object.values(perJob),
    ...health,
  ]);
}

/** A job's checkpoints; a store that fails leaves them out of one scrape. */
async function checkpointsOf(
  handle: JobHandle,
): Promise<CheckpointRecord[] | null> {
  try {
    return await handle.checkpoints();
  } catch (error) {
    console.error(
      `weir http: metrics could not list the checkpoints of job '${handle.name}':`,
      error,
    );
    return null;
  }
}
