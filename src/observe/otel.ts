/**
 * Every running job's watermarks, lag and record counts as OpenTelemetry
 * metrics: {@linkcode observeJobs} registers observable instruments on the
 * `weir` meter, read from each job's status when the SDK collects.
 *
 * Through `npm:@opentelemetry/api` only. Run with `OTEL_DENO=true` and
 * Deno's own SDK exports them (to `OTEL_EXPORTER_OTLP_ENDPOINT`, every
 * `OTEL_METRIC_EXPORT_INTERVAL` ms); otherwise the global meter is a no-op
 * that never calls back: nothing to configure and no cost. The checkpoint
 * spans and the `weir.checkpoint.duration` histogram come from the runtimes
 * (`actors/checkpoint_telemetry.ts`), where checkpoints complete.
 *
 * @module
 */

import {
  type Attributes,
  type BatchObservableResult,
  metrics,
  type Observable,
} from "@opentelemetry/api";
import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import type { JobHandle } from "./job_handle.ts";

/** An instrument read from each subtask's status. */
interface SubtaskInstrument {
  readonly name: string;
  readonly kind: "gauge" | "counter";
  readonly unit: string;
  readonly description: string;
  /** The value, or `undefined` when the subtask has none (yet). */
  read(status: SubtaskStatus): number | undefined;
}

const INSTRUMENTS: readonly SubtaskInstrument[] = [
  {
    name: "weir.watermark.output",
    kind: "gauge",
    unit: "s",
    description: "Last watermark the subtask sent downstream, epoch seconds",
    read: (s) => seconds(s.outputWatermark),
  },
  {
    name: "weir.watermark.input",
    kind: "gauge",
    unit: "s",
    description:
      "Merged input watermark of the subtask (for sources: the emitted watermark), epoch seconds",
    read: (s) => seconds(s.inputWatermark),
  },
  {
    name: "weir.watermark.lag",
    kind: "gauge",
    unit: "s",
    description: "Processing time minus the subtask's output watermark",
    read: (s) => seconds(s.watermarkLagMs),
  },
  {
    name: "weir.records.in",
    kind: "counter",
    unit: "{record}",
    description: "Records received (for sources: read) by the subtask",
    read: (s) => s.recordsIn,
  },
  {
    name: "weir.records.out",
    kind: "counter",
    unit: "{record}",
    description: "Records the subtask sent downstream",
    read: (s) => s.recordsOut,
  },
  {
    name: "weir.records.late",
    kind: "counter",
    unit: "{record}",
    description: "Records a window operator dropped as late",
    read: (s) => s.gauges.numLateRecordsDropped,
  },
];

/** The names of the metrics {@linkcode observeJobs} registers. */
export const OTEL_METRIC_NAMES: readonly string[] = INSTRUMENTS.map((i) =>
  i.name
);

/**
 * Registers weir's per-subtask metrics on the OpenTelemetry `weir` meter:
 * `weir.watermark.output`, `weir.watermark.input` and `weir.watermark.lag`
 * (gauges, seconds), `weir.records.in`, `weir.records.out` and
 * `weir.records.late` (counters), each with the attributes `job.name`,
 * `operator` and `subtask`.
 *
 * The jobs are read when the SDK collects (each job's `status()` once), so
 * jobs added to the map later are included and nothing runs per record.
 * A watermark not yet known (before the first) is left out. A job whose
 * status cannot be read is left out of that collection.
 *
 * @param jobs The running jobs, read at each collection.
 * @returns What removes the callback again.
 *
 * @example Registering (a no-op unless run with `OTEL_DENO=true`)
 * ```ts
 * import { observeJobs } from "./otel.ts";
 *
 * const stop = observeJobs(new Map());
 * stop();
 * ```
 */
export function observeJobs(
  jobs: ReadonlyMap<string, JobHandle>,
): () => void {
  const meter = metrics.getMeter("weir");
  const observables: Observable[] = INSTRUMENTS.map((i) => {
    const options = { unit: i.unit, description: i.description };
    return i.kind === "gauge"
      ? meter.createObservableGauge(i.name, options)
      : meter.createObservableCounter(i.name, options);
  });
  const callback = (result: BatchObservableResult): void => {
    for (const handle of jobs.values()) {
      let statuses: SubtaskStatus[];
      try {
        statuses = handle.status();
      } catch {
        continue;
      }
      for (const status of statuses) {
        const attributes: Attributes = {
          "job.name": handle.name,
          operator: status.operator,
          subtask: status.subtask,
        };
        INSTRUMENTS.forEach((instrument, i) => {
          const value = instrument.read(status);
          if (value !== undefined) {
            result.observe(observables[i], value, attributes);
          }
        });
      }
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}

/** Milliseconds as seconds; `undefined` for a value not yet known (±Infinity). */
function seconds(ms: number): number | undefined {
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}
