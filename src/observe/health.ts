/**
 * A job's health: per operator, four numbers with a status each (watermark lag, drift rate, late-record ratio, state size),
 * and a diagnosis naming what holds event time back and how to fix it.
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import type { JobVertex } from "../runtime/job_graph.ts";
import { diagnose } from "./diagnosis/diagnose.ts";
import { lowestWatermarkOf } from "./diagnosis/readings.ts";
import type {
  DiagnosableJob,
  Diagnosis,
  DiagnosisCause,
} from "./diagnosis/diagnosis.ts";
import { checkThresholds, type HealthThresholds } from "./health_thresholds.ts";
import type { WatermarkSample } from "./job_handle.ts";

export type { DiagnosableJob, Diagnosis, DiagnosisCause };

/** How healthy a number (or an operator, or a job) is. */
export type HealthStatus = "ok" | "warn" | "bad";

/** One number of an operator's health and its status. */
export interface HealthMetric {
  /** The value; `null` when it cannot be known (e.g. too little history). */
  readonly value: number | null;
  /** `ok` for a `null` value. */
  readonly status: HealthStatus;
}

/** The health of one operator (vertex). */
export interface OperatorHealth {
  /** The vertex id. */
  readonly operator: string;
  /** Its readable name. */
  readonly name: string;
  /** The worst status of its metrics. */
  readonly status: HealthStatus;
  /** Whether every subtask is idle (lag and drift then count as ok). */
  readonly idle: boolean;
  /** The lowest output watermark of its active subtasks. */
  readonly watermark: number;
  /**
   * Processing time minus `watermark`, in ms: `Infinity` before the first
   * watermark, `-Infinity` once the input ended.
   */
  readonly watermarkLagMs: HealthMetric;
  /**
   * Watermark advance per millisecond of processing time over the last
   * `lookbackMs` of samples: ≈ 1.0 when event time keeps pace, 0 when it
   * stands still; `null` with less than half of `lookbackMs` sampled.
   */
  readonly driftRate: HealthMetric;
  /**
   * Records dropped as late over records received, since the start; `null`
   * for operators that drop none (not windows).
   */
  readonly lateRecordRatio: HealthMetric;
  /** Open windows (`numWindows`), `null` for operators without windows. */
  readonly windows: HealthMetric;
  /** Keys in state (`numKeys` gauge), `null` when no subtask reports it. */
  readonly keys: number | null;
}

/** The answer of {@linkcode jobHealth}. */
export interface JobHealth {
  /** The job. */
  readonly job: string;
  /** The processing time it was computed at. */
  readonly at: number;
  /** The worst operator status. */
  readonly status: HealthStatus;
  /** The thresholds used. */
  readonly thresholds: HealthThresholds;
  /** One entry per vertex, in the plan's order. */
  readonly operators: readonly OperatorHealth[];
  /** What holds event time back, with fixes; empty for a healthy job. */
  readonly diagnosis: readonly Diagnosis[];
}

const RANK: Readonly<Record<HealthStatus, number>> = { ok: 0, warn: 1, bad: 2 };

/**
 * Computes a job's health from its live state and sampled history.
 *
 * Per operator (vertex):
 * - **watermark lag**: `now` minus the lowest output watermark of its
 *   subtasks that are not idle; `Infinity` before the first watermark. At
 *   `lagWarnMs` it warns, at `lagBadMs` it is bad.
 * - **drift rate**: how fast that watermark advanced per unit of
 *   processing time over the last `lookbackMs` of `history()` (from the
 *   first finite watermark in it); ≈ 1.0 is healthy, below `driftWarn` it
 *   warns, at or below `driftBad` (0: standing still) it is bad. `null`
 *   (ok) with less than half of `lookbackMs` sampled or once the input
 *   ended.
 * - **late-record ratio**: `numLateRecordsDropped` over records in, summed
 *   over its subtasks, since the start (`lateRatioWarn`, `lateRatioBad`).
 * - **state size**: open windows, the sum of the `numWindows` gauges
 *   (`windowsWarn`, `windowsBad`), and keys when a `numKeys` gauge exists.
 *
 * An idle operator (every subtask idle) has ok lag and drift. The job's
 * status is the worst operator's.
 *
 * The diagnosis lists, from live state, each of these causes it finds:
 * - `silent-partition`: a channel from a source subtask stands still (at
 *   `-Infinity` or unmoved for `stallMs`) while another channel of the same
 *   subtask advances, and neither is idle, in a strategy without idleness;
 *   or a source subtask reading several partitions keeps reading records
 *   while its watermark stands still. Fix: `withIdleness`.
 * - `timestamps-in-seconds`: an output watermark between 1970-01-02 and
 *   1973-03-03 (`[1e8, 1e11)`). Fix: multiply by 1000.
 * - `back-pressure`: a subtask paused while a downstream mailbox holds
 *   elements; the chain of full mailboxes is followed to the slow operator,
 *   which is named. Fix: speed it up or scale it out.
 * - `generator-never-emits`: a source subtask read records but its
 *   watermark is `-Infinity` while `autoWatermarkIntervalMs` is 0 (or, with
 *   periodic emission on, it reads a single partition and stayed at
 *   `-Infinity` for `stallMs`: a strategy that emits none).
 * - `window-never-fires`: over the last `lookbackMs` (half of it sampled)
 *   a window operator's `numWindows` grew and never fell while its input
 *   watermark advanced by more than the plan's window size plus allowed
 *   lateness: the out-of-orderness bound exceeds the window. Needs
 *   `JobVertex.windowSizeMs` (tumbling and sliding windows set it).
 * - `state-growth`: the same growth while the input watermark stood still.
 * - `stuck-actor`: a KV-runtime actor stopped after failing, waiting for
 *   its retry (`SubtaskStatus.stuck`): what it failed on (a record's
 *   position and operator when a record failed), how many times in a row,
 *   and when it is tried next.
 *
 * The trend causes need `gaugeHistory()` (as `LocalJobHandle` keeps); the
 * partition causes read `sourcePartitions()` when the handle has it.
 *
 * Cost: one status read, every non-source subtask's input channels, and a
 * pass over the samples of the last `lookbackMs` per operator.
 *
 * @param handle The job; `LocalJobHandle` gives every detector its input.
 * @param now The current processing time, epoch milliseconds.
 * @param thresholds Overrides of `DEFAULT_HEALTH_THRESHOLDS`.
 * @returns The operators' health, the job's status and the diagnosis.
 * @throws {RangeError} If a threshold is negative or not a finite number.
 *
 * @example Reading a job's health
 * ```ts ignore
 * const handle = new LocalJobHandle({ runtime, graph, clock });
 * runtime.runUntilIdle();
 * handle.sample();
 * const health = jobHealth(handle, clock.now(), { lagWarnMs: 10_000 });
 * for (const d of health.diagnosis) console.log(d.cause, d.evidence, d.fix);
 * ```
 */
export function jobHealth(
  handle: DiagnosableJob,
  now: number,
  thresholds: Partial<HealthThresholds> = {},
): JobHealth {
  const limits = checkThresholds(thresholds);
  const statuses = handle.status();
  const history = handle.history();
  const recent = history.filter((s) =>
    s.at >= now - limits.lookbackMs && s.at <= now
  );
  const operators = handle.graph.vertices.map((vertex) =>
    operatorHealth(
      vertex,
      statuses.filter((s) => s.operator === vertex.id),
      recent,
      now,
      limits,
    )
  );
  return {
    job: handle.name,
    at: now,
    status: worst(operators.map((o) => o.status)),
    thresholds: limits,
    operators,
    diagnosis: diagnose(handle, now, limits),
  };
}

/**
 * The numeric rank of a status, as `/metrics` exports it.
 *
 * @param status A status.
 * @returns 0 for `ok`, 1 for `warn`, 2 for `bad`.
 */
export function healthRank(status: HealthStatus): number {
  return RANK[status];
}

function operatorHealth(
  vertex: JobVertex,
  subtasks: readonly SubtaskStatus[],
  recent: readonly WatermarkSample[],
  now: number,
  limits: HealthThresholds,
): OperatorHealth {
  const active = subtasks.filter((s) => !s.idle);
  const idle = subtasks.length > 0 && active.length === 0;
  const watermark = subtasks.length === 0
    ? -Infinity
    : Math.min(...(idle ? subtasks : active).map((s) => s.outputWatermark));
  const lag = now - watermark;
  const drift = idle ? null : driftRate(
    recent,
    subtasks.map((s) => s.id),
    limits.lookbackMs / 2,
  );
  const late = subtasks.filter((s) =>
    s.gauges.numLateRecordsDropped !== undefined
  );
  const lateValue = late.length === 0 ? null : ratio(
    sum(late.map((s) => s.gauges.numLateRecordsDropped)),
    sum(late.map((s) => s.recordsIn)),
  );
  const windows = gaugeSum(subtasks, "numWindows");
  const metrics = {
    watermarkLagMs: {
      value: lag,
      status: idle ? "ok" : above(lag, limits.lagWarnMs, limits.lagBadMs),
    },
    driftRate: { value: drift, status: driftStatus(drift, limits) },
    lateRecordRatio: {
      value: lateValue,
      status: above(lateValue, limits.lateRatioWarn, limits.lateRatioBad),
    },
    windows: {
      value: windows,
      status: above(windows, limits.windowsWarn, limits.windowsBad),
    },
  } satisfies Record<string, HealthMetric>;
  return {
    operator: vertex.id,
    name: vertex.name,
    status: worst(Object.values(metrics).map((m) => m.status)),
    idle,
    watermark,
    ...metrics,
    keys: gaugeSum(subtasks, "numKeys"),
  };
}

/**
 * Watermark advance per ms of processing time between the first sample
 * with a finite watermark and the last one, or `null` when they span less
 * than `minSpan` or the input ended. A watermark at `-Infinity` throughout
 * a long enough span stood still: 0.
 */
function driftRate(
  samples: readonly WatermarkSample[],
  ids: readonly string[],
  minSpan: number,
): number | null {
  const series = samples.flatMap((sample) => {
    const w = lowestWatermarkOf(sample, ids, "outputWatermark");
    return w === undefined ? [] : [{ at: sample.at, w }];
  });
  if (series.length < 2) return null;
  const last = series.at(-1)!;
  if (last.w === Infinity) return null;
  const first = series.find((s) => Number.isFinite(s.w));
  if (first === undefined) {
    return last.at - series[0].at >= minSpan ? 0 : null;
  }
  const span = last.at - first.at;
  return span < minSpan ? null : (last.w - first.w) / span;
}

function driftStatus(
  drift: number | null,
  limits: HealthThresholds,
): HealthStatus {
  if (drift === null) return "ok";
  if (drift <= limits.driftBad) return "bad";
  return drift < limits.driftWarn ? "warn" : "ok";
}

/** `bad` at or above `bad`, `warn` at or above `warn`; `ok` for `null`. */
function above(
  value: number | null,
  warn: number,
  bad: number,
): HealthStatus {
  if (value === null) return "ok";
  if (value >= bad) return "bad";
  return value >= warn ? "warn" : "ok";
}

function worst(statuses: readonly HealthStatus[]): HealthStatus {
  let result: HealthStatus = "ok";
  for (const s of statuses) if (RANK[s] > RANK[result]) result = s;
  return result;
}

function gaugeSum(
  subtasks: readonly SubtaskStatus[],
  name: string,
): number | null {
  const values = subtasks.map((s) => s.gauges[name]).filter((v) =>
    v !== undefined
  );
  return values.length === 0 ? null : sum(values);
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

function sum(values: readonly (number | undefined)[]): number {
  return values.reduce<number>((a, b) => a + (b ?? 0), 0);
}
