/**
 * The end of a stream: hands records to a sink.
 *
 * @module
 */

import type { WatermarkStatus } from "../../time/mod.ts";
import type { SinkWriter } from "../sink.ts";
import { rethrowRecord, withoutRejected } from "../_record_guard.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  SnapshotOptions,
  StreamOperator,
} from "../stream_operator.ts";
import type { StateKind } from "../rescale/state_kind.ts";

// Marks a step snapshot's state (see SinkOperator).
const STEP = "weir:sinkStep";

interface StepState<T> {
  readonly [STEP]: true;
  readonly finishing?: boolean;
  readonly values: readonly T[];
  readonly timestamps: readonly number[];
  readonly writer: unknown;
}

/**
 * A terminal operator (Flink's `SinkOperator`): writes every batch to its
 * sink and emits no records. The arrays handed to `write` may be shared with
 * other readers: the sink must not modify them, and copies what it keeps.
 *
 * Empty batches are not written. Watermarks and statuses are still
 * forwarded, so the subtask's metrics show the sink's event time; a sink
 * subtask has no output edges, so they go nowhere else. The checkpoint hooks
 * go to the writer: its `snapshotState(id)` is the operator's snapshot,
 * `notifyCheckpointComplete(id)` calls its `commit(id)`, and `finish` its
 * `finish` (a promise the runtime waits for). Cost: one `write` per batch.
 *
 * Under a runtime that snapshots every step (`context.stepSnapshots`, the
 * KV runtime), a transactional writer (one with `snapshotState`) gets the
 * records of the running checkpoint only at its barrier: until then the
 * operator keeps them in its own state, which every step snapshot carries
 * with the writer's state of the last barrier. So a step never closes a
 * transaction, transactions still commit when their checkpoint completes,
 * and a take-over or a restore loses and repeats nothing.
 *
 * Records the writer refuses go to the subtask's error policy
 * (`OperatorContext.reject`) and are never written: those its `check`
 * throws for when they arrive, and those it hands back from `takeRefused`
 * right after a `snapshotState` or `finish` (positioned at the checkpoint,
 * or the end of input). A `write` that throws is the sink's failure
 * and propagates (the job restarts), unless the writer declares
 * `atomicWrites`: the batch is then written again record by record, and
 * the records whose write throws go to the error policy (with held
 * records, at the barrier).
 *
 * @typeParam T The record type.
 */
export class SinkOperator<T> implements StreamOperator<T, never> {
  /** How a rescale splits its state: its pending transactions all go to subtask 0. */
  static readonly stateKind: StateKind = "transactions";

  readonly #sink: SinkWriter<T>;
  #output: OperatorOutput<never> | null = null;
  // Step snapshots: records held back until the next barrier, and the
  // writer's state as of the last barrier.
  #holding = false;
  // Step snapshots: the end of input arrived; the writer finishes only when
  // the runtime has committed that step (notifyCheckpointComplete(Infinity)).
  #finishing = false;
  #values: T[] = [];
  #timestamps: number[] = [];
  #writerState: unknown = null;
  #reject: RejectRecord = rethrowRecord;

  /**
   * Creates the operator.
   *
   * @param sink Receives the batches.
   * @throws {TypeError} If `sink` has no `write` function.
   */
  constructor(sink: SinkWriter<T>) {
    if (typeof sink?.write !== "function") {
      throw new TypeError(
        `Cannot create SinkOperator as 'sink' must have a write() function: current value is ${
          String(sink)
        }`,
      );
    }
    this.#sink = sink;
  }

  /** Keeps the output, used for watermarks and statuses only. */
  open(context: OperatorContext, output: OperatorOutput<never>): void {
    this.#output = output;
    this.#reject = context.reject ?? rethrowRecord;
    this.#holding = context.stepSnapshots === true &&
      typeof this.#sink.snapshotState === "function";
  }

  /** Writes a non-empty batch to the sink. */
  processBatch(values: readonly T[], timestamps: readonly number[]): void {
    if (values.length === 0) return;
    const [kept, keptTimestamps] = this.#checked(values, timestamps);
    if (kept.length === 0) return;
    if (!this.#holding) {
      return this.#write(kept, keptTimestamps, kept === values);
    }
    for (let i = 0; i < kept.length; i++) {
      this.#values.push(kept[i]);
      this.#timestamps.push(keptTimestamps[i]);
    }
  }

  // The records the writer's check accepts; the others are set aside.
  #checked(
    values: readonly T[],
    timestamps: readonly number[],
  ): [readonly T[], readonly number[]] {
    const sink = this.#sink;
    if (sink.check === undefined) return [values, timestamps];
    const n = values.length;
    let rejected: number[] | null = null;
    let i = 0;
    while (i < n) {
      try {
        for (; i < n; i++) sink.check(values[i], timestamps[i]);
      } catch (error) {
        this.#reject(values[i], timestamps[i], error, i);
        (rejected ??= []).push(i++);
      }
    }
    if (rejected === null) return [values, timestamps];
    return withoutRejected(values, timestamps, rejected);
  }

  // A write that throws fails the sink, unless the writer promises that
  // it took none of its batch (SinkWriter.atomicWrites): the records are
  // then written one by one, and those the writer refuses are set aside.
  // A writer that stages record by record would stage the records before
  // the throw twice. `indexed`: the batch is the operator's input, so
  // indices are input positions.
  #write(
    values: readonly T[],
    timestamps: readonly number[],
    indexed: boolean,
  ): void {
    try {
      this.#sink.write(values, timestamps);
    } catch (error) {
      if (this.#sink.atomicWrites !== true) throw error;
      if (values.length === 1) {
        this.#reject(values[0], timestamps[0], error, indexed ? 0 : undefined);
        return;
      }
      for (let i = 0; i < values.length; i++) {
        try {
          this.#sink.write([values[i]], [timestamps[i]]);
        } catch (error) {
          this.#reject(
            values[i],
            timestamps[i],
            error,
            indexed ? i : undefined,
          );
        }
      }
    }
  }

  /** Forwards the watermark (for metrics). */
  processWatermark(watermark: number): void {
    this.#output!.emitWatermark(watermark);
  }

  /** Forwards the status (for metrics). */
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }

  /** No processing-time work. */
  onProcessingTime(_now: number): void {}

  /** Never. */
  nextProcessingTime(): number {
    return Infinity;
  }

  /**
   * Calls the sink's `finish`, if any; returns its promise. Under step
   * snapshots it only notes the end: the writer finishes once the step is
   * committed, at `notifyCheckpointComplete(Infinity)`.
   */
  finish(): void | Promise<void> {
    if (this.#holding) {
      this.#finishing = true;
      return;
    }
    this.#release();
    return this.#rejectRefused(this.#sink.finish?.());
  }

  /**
   * The writer's state for checkpoint `checkpointId` (its staged
   * transaction), or `null`; for a step snapshot, the held-back records and
   * the writer's state of the last barrier.
   */
  snapshotState(checkpointId?: number, options?: SnapshotOptions): unknown {
    if (options?.step) {
      return {
        [STEP]: true,
        finishing: this.#finishing,
        values: this.#values,
        timestamps: this.#timestamps,
        writer: this.#writerState,
      };
    }
    this.#release();
    this.#writerState = this.#sink.snapshotState?.(checkpointId ?? 0) ?? null;
    this.#rejectRefused();
    return this.#writerState;
  }

  /**
   * Sets aside the records the writer left out of the transaction it just
   * closed, and returns `done` (the writer's finish or commit, if any).
   */
  #rejectRefused<D>(done?: D): D | undefined {
    const refused = this.#sink.takeRefused?.();
    if (refused === undefined || refused.length === 0) return done;
    try {
      for (const { value, timestamp, error } of refused) {
        this.#reject(value, timestamp, error);
      }
    } catch (error) {
      // Under "fail" the job restarts: what the commit does no longer
      // matters, but its failure must not go unhandled.
      if (done instanceof Promise) done.catch(() => {});
      throw error;
    }
    return done;
  }

  /** Hands a restored state back to the writer (and held-back records to the operator). */
  restoreState(state: unknown): void {
    const step = state as StepState<T> | null;
    if (step !== null && typeof step === "object" && step[STEP] === true) {
      this.#finishing = step.finishing === true;
      this.#values = [...step.values];
      this.#timestamps = [...step.timestamps];
      this.#writerState = step.writer;
      if (step.writer !== null) this.#sink.restoreState?.(step.writer);
      return;
    }
    this.#writerState = state;
    if (state !== null) this.#sink.restoreState?.(state);
  }

  /** Writes the held-back records, at a barrier or the end of input. */
  #release(): void {
    if (this.#values.length === 0) return;
    const values = this.#values;
    const timestamps = this.#timestamps;
    this.#values = [];
    this.#timestamps = [];
    this.#write(values, timestamps, false);
  }

  /**
   * Commits the writer's transactions up to `checkpointId`; after the end
   * of input under step snapshots, `Infinity` finishes the writer (again,
   * idempotently, after a take-over).
   */
  notifyCheckpointComplete(checkpointId: number): void | Promise<void> {
    if (this.#finishing && checkpointId === Infinity) {
      this.#release();
      return this.#rejectRefused(
        this.#sink.finish?.() ?? this.#sink.commit?.(Infinity),
      );
    }
    return this.#sink.commit?.(checkpointId);
  }
}
