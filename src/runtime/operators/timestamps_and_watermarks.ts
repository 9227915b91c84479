/**
 * The operator behind `assignTimestampsAndWatermarks`: stamps records with
 * their event time and generates the stream's watermarks.
 *
 * @module
 */

import {
  isCheckpointedGenerator,
  NoWatermarksGenerator,
  type TimestampAssigner,
  WatermarkEmitter,
  type WatermarkEmitterSnapshot,
  type WatermarkGenerator,
  type WatermarkStatus,
  type WatermarkStrategy,
} from "../../time/mod.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  SnapshotOptions,
  StreamOperator,
} from "../stream_operator.ts";
import { rethrowRecord } from "../_record_guard.ts";
import {
  rejectTimestamp,
  SECONDS_THRESHOLD,
  secondsWarning,
} from "./_assigned_timestamp.ts";
import { requireFunction } from "./_validate.ts";
import type { StateKind } from "../rescale/state_kind.ts";
import {
  ignoreWarning,
  type TimestampsAndWatermarksOptions,
} from "./timestamps_and_watermarks_options.ts";

export type { TimestampsAndWatermarksOptions } from "./timestamps_and_watermarks_options.ts";

/** The operator's state as plain data. */
export interface TimestampsAndWatermarksSnapshot {
  /** The generator's state, or `null` when it cannot be checkpointed. */
  generator: unknown;
  /** The output's highest watermark and idle flag. */
  emitter: WatermarkEmitterSnapshot;
  /**
   * When the next periodic emit is due, in processing time (`Infinity` for
   * none); in persist mode only, absent in older snapshots (the schedule
   * then restarts at `open`).
   */
  nextPeriodicMs?: number;
}

/**
 * Flink's `TimestampsAndWatermarksOperator`: assigns each
 * record its event timestamp and runs a {@linkcode WatermarkGenerator} whose
 * output is a {@linkcode WatermarkEmitter}, so output watermarks strictly
 * increase and idleness becomes `"idle"`/`"active"` exactly once per change.
 *
 * - `open` creates the assigner and the generator (the latter with the
 *   input-activity clock, so idleness does not count back-pressured time,
 *   FLINK-35886) and schedules the first periodic emit at `now + interval`.
 * - `processBatch` computes every timestamp as
 *   `assigner(value, recordTimestamp)` (`-Infinity` = the record has none)
 *   and checks them all before emitting anything: a record whose assigner
 *   throws or whose timestamp is not a safe integer is set aside by the
 *   subtask's error policy (under `"fail"`, or outside a subtask, the whole
 *   batch is rejected). Records then go out with their new
 *   timestamps, and the generator's `onEvent` runs for each after its record,
 *   so a punctuated watermark follows its record. Records go out in
 *   one batch, split only where a watermark or status falls between them.
 * - `onProcessingTime` calls `onPeriodicEmit` and re-bases the next run on
 *   the current time, `now + interval`.
 * - Upstream watermarks are dropped except `Infinity`, the end of input,
 *   which goes through the emitter; upstream statuses are dropped.
 *   `finish` calls `onPeriodicEmit` one last time.
 *
 * Unlike Flink, `-Infinity`, `Infinity` and non-integers are rejected rather
 * than passed on. Cost per record: one assigner
 * call, one check and one `onEvent` call; the values array is passed on
 * unchanged when no watermark splits the batch.
 *
 * @typeParam T The record type.
 */
export class TimestampsAndWatermarksOperator<T>
  implements StreamOperator<T, T> {
  /** How a rescale splits its state: its generator starts afresh, its emitter at the lowest watermark. */
  static readonly stateKind: StateKind = "generator";

  /** Rebuilds its generator from replayed records (see `replayRole`). */
  readonly replayRole = "generate";
  readonly #strategy: WatermarkStrategy<T>;
  readonly #intervalMs: number;
  readonly #progressive: boolean;
  readonly #onWarning: (message: string) => void;
  #assigner: TimestampAssigner<T> | null = null;
  #generator: WatermarkGenerator<T> | null = null;
  #emitter: WatermarkEmitter | null = null;
  #output: OperatorOutput<T> | null = null;
  #pendingRestore: TimestampsAndWatermarksSnapshot | null = null;
  #nextDue = Infinity;
  #reject: RejectRecord = rethrowRecord;
  #warnedSeconds = false;
  // The batch being emitted: records [#flushed, #ready) are stamped and
  // waiting; a watermark or status flushes them first.
  #values: readonly T[] = [];
  #timestamps: number[] = [];
  #flushed = 0;
  #ready = 0;

  /**
   * Creates the operator; nothing runs before `open`.
   *
   * @param strategy Supplies the timestamp assigner and the generator.
   * @param options The periodic interval, batch mode and warning callback.
   * @throws {TypeError} If `strategy` is not a watermark strategy or
   * `onWarning` is not a function.
   * @throws {RangeError} If `autoWatermarkIntervalMs` is not a non-negative
   * safe integer.
   */
  constructor(
    strategy: WatermarkStrategy<T>,
    options: TimestampsAndWatermarksOptions,
  ) {
    const action = "create TimestampsAndWatermarksOperator";
    if (typeof strategy?.createWatermarkGenerator !== "function") {
      throw new TypeError(
        `Cannot ${action} as 'strategy' must be a WatermarkStrategy: current value is ${
          String(strategy)
        }`,
      );
    }
    const interval = options.autoWatermarkIntervalMs;
    if (!Number.isSafeInteger(interval) || interval < 0) {
      const message =
        `Cannot ${action} as 'autoWatermarkIntervalMs' must be a non-negative safe integer: current value is ${
          String(interval)
        }`;
      throw typeof interval === "number"
        ? new RangeError(message)
        : new TypeError(message);
    }
    const onWarning = options.onWarning ?? ignoreWarning;
    requireFunction(onWarning, { action, param: "onWarning" });
    this.#strategy = strategy;
    this.#intervalMs = interval;
    this.#progressive = options.emitProgressiveWatermarks ?? true;
    this.#onWarning = onWarning;
  }

  /** The highest watermark emitted so far; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#emitter?.currentWatermark ?? -Infinity;
  }

  /**
   * Creates the assigner, the generator and the emitter, and schedules the
   * first periodic emit.
   *
   * @param context Clocks, subtask index and metrics.
   * @param output Where stamped records, watermarks and statuses go.
   */
  open(context: OperatorContext, output: OperatorOutput<T>): void {
    this.#output = output;
    this.#reject = context.reject ?? rethrowRecord;
    this.#assigner = this.#strategy.createTimestampAssigner();
    this.#generator = this.#progressive
      ? this.#strategy.createWatermarkGenerator({
        clock: context.activityClock,
        subtaskIndex: context.subtaskIndex,
        metrics: context.metrics,
      })
      : new NoWatermarksGenerator<T>();
    this.#emitter = new WatermarkEmitter({
      emitWatermark: (watermark: number) => {
        this.#flush();
        output.emitWatermark(watermark);
      },
      emitWatermarkStatus: (status: WatermarkStatus) => {
        this.#flush();
        output.emitWatermarkStatus(status);
      },
    });
    if (this.#intervalMs > 0 && this.#progressive) {
      this.#nextDue = (context.startMs ?? context.clock.now()) +
        this.#intervalMs;
    }
    if (this.#pendingRestore !== null) {
      this.restoreState(this.#pendingRestore);
      this.#pendingRestore = null;
    }
  }

  /**
   * Stamps a batch and feeds the generator. A record whose
   * timestamp cannot be assigned goes to the subtask's error policy
   * (`OperatorContext.reject`); outside a subtask, or under `"fail"`, the
   * batch is all or nothing.
   *
   * @param values The records.
   * @param timestamps The timestamps they carry, `-Infinity` for none.
   * @throws {TypeError} If the assigner returns something other than a
   * number; nothing of the batch is emitted.
   * @throws {RangeError} If the assigner returns a number that is not a safe
   * integer (`NaN`, an infinity, a fraction, beyond 2^53); nothing of the
   * batch is emitted.
   */
  processBatch(values: readonly T[], timestamps: readonly number[]): void {
    const assigner = this.#assigner!;
    const n = values.length;
    if (n === 0) return;
    const stamped = new Array<number>(n);
    // A record whose assigner throws or whose timestamp is not a safe
    // integer is set aside and the loop
    // resumes after it; under "fail" (or outside a subtask) nothing of the
    // batch is emitted.
    let rejected: boolean[] | null = null;
    let i = 0;
    // The bad timestamp of a rejected record (NaN when the assigner threw):
    // set only on the failure path.
    let bad = NaN;
    while (i < n) {
      try {
        for (; i < n; i++) {
          const timestamp = assigner(values[i], timestamps[i]);
          if (!Number.isSafeInteger(timestamp)) {
            bad = typeof timestamp === "number" ? timestamp : NaN;
            rejectTimestamp(timestamp, i);
          }
          if (
            timestamp > 0 && timestamp < SECONDS_THRESHOLD &&
            !this.#warnedSeconds
          ) {
            this.#warnedSeconds = true;
            this.#onWarning(secondsWarning(timestamp, i));
          }
          stamped[i] = timestamp;
        }
      } catch (error) {
        this.#reject(values[i], bad, error, i);
        bad = NaN;
        (rejected ??= new Array<boolean>(n).fill(false))[i++] = true;
      }
    }
    const generator = this.#generator!;
    const emitter = this.#emitter!;
    this.#values = values;
    this.#timestamps = stamped;
    this.#flushed = 0;
    try {
      for (let i = 0; i < n; i++) {
        if (rejected?.[i]) {
          // The records before a rejected one go out; it never does.
          this.#flush();
          this.#flushed = this.#ready = i + 1;
          continue;
        }
        // Record i counts as emitted before its onEvent: a watermark it
        // causes flushes it first.
        this.#ready = i + 1;
        generator.onEvent(values[i], stamped[i], emitter);
      }
      this.#flush();
    } finally {
      this.#values = [];
      this.#timestamps = [];
      this.#flushed = 0;
      this.#ready = 0;
    }
  }

  /**
   * Drops upstream watermarks, except the end of input `Infinity`.
   *
   * @param watermark The merged input watermark.
   */
  processWatermark(watermark: number): void {
    if (watermark === Infinity) this.#emitter!.emitWatermark(Infinity);
  }

  /**
   * Drops upstream statuses: this operator decides idleness.
   *
   * @param _status The merged input status.
   */
  processWatermarkStatus(_status: WatermarkStatus): void {}

  /**
   * Runs the periodic emit if due and schedules the next at `now + interval`;
   * does nothing before the due time.
   *
   * @param now The current processing time in milliseconds.
   */
  onProcessingTime(now: number): void {
    if (now < this.#nextDue) return;
    this.#generator!.onPeriodicEmit(this.#emitter!);
    this.#nextDue = now + this.#intervalMs;
  }

  /**
   * The next periodic emit; `Infinity` when the interval is 0, in batch mode
   * and after `finish`.
   *
   * @returns A processing time in milliseconds, or `Infinity`.
   */
  nextProcessingTime(): number {
    return this.#nextDue;
  }

  /** Calls `onPeriodicEmit` a last time; no periodic emit follows. */
  finish(): void {
    this.#nextDue = Infinity;
    this.#generator!.onPeriodicEmit(this.#emitter!);
  }

  /**
   * Returns the generator's state (if it is checkpointed), the emitter's
   * and the periodic schedule; none of them in replay mode
   * (`options.watermarks` false), where the schedule restarts at `open`.
   *
   * @returns A {@linkcode TimestampsAndWatermarksSnapshot}.
   */
  snapshotState(
    _checkpointId?: number,
    options?: SnapshotOptions,
  ): TimestampsAndWatermarksSnapshot {
    const generator = this.#generator;
    // Replay mode: event time is rebuilt from the replayed records.
    if (options?.watermarks === false) {
      return {
        generator: null,
        emitter: { currentWatermark: -Infinity, idle: false },
      };
    }
    return {
      generator: generator !== null && isCheckpointedGenerator(generator)
        ? generator.snapshotState()
        : null,
      emitter: this.#emitter?.snapshotState() ??
        { currentWatermark: -Infinity, idle: false },
      // The schedule decides which records a watermark precedes (persist snapshots the periodic-emission schedule).
      nextPeriodicMs: this.#nextDue,
    };
  }

  /**
   * Puts back a snapshot, the periodic schedule included; emits nothing.
   * Before `open` it is kept and applied when the generator exists.
   *
   * @param state A snapshot of an operator with the same strategy.
   */
  restoreState(state: unknown): void {
    const snapshot = state as TimestampsAndWatermarksSnapshot;
    const generator = this.#generator;
    if (generator === null || this.#emitter === null) {
      this.#pendingRestore = snapshot;
      return;
    }
    if (isCheckpointedGenerator(generator) && snapshot.generator !== null) {
      generator.restoreState(snapshot.generator);
    }
    this.#emitter.restoreState(snapshot.emitter);
    if (typeof snapshot.nextPeriodicMs === "number") {
      this.#nextDue = snapshot.nextPeriodicMs;
    }
  }

  /** Emits the stamped records not yet emitted, as one batch. */
  #flush(): void {
    const from = this.#flushed;
    const to = this.#ready;
    if (from === to) return;
    this.#flushed = to;
    const values = this.#values;
    const timestamps = this.#timestamps;
    // The whole batch goes out as is: arrays are never modified after they
    // are emitted, so passing the input's values on is safe.
    if (from === 0 && to === values.length) {
      this.#output!.emitBatch(values as T[], timestamps);
    } else {
      this.#output!.emitBatch(
        values.slice(from, to),
        timestamps.slice(from, to),
      );
    }
  }
}
