/**
 * The window operator as a link of a subtask's chain.
 *
 * @module
 */

import type { Clock, WatermarkStatus } from "../../time/mod.ts";
import {
  WindowOperator,
  type WindowOperatorOptions,
  type WindowOperatorSnapshot,
  type WindowSlotSnapshot,
} from "../../windows/mod.ts";
import { keyGroupOf } from "../key_groups.ts";
import { rethrowRecord } from "../_record_guard.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  SnapshotOptions,
  StreamOperator,
} from "../stream_operator.ts";
import type { StateKind } from "../rescale/state_kind.ts";

/**
 * Options of a {@linkcode WindowStreamOperator}: those of a
 * {@linkcode WindowOperator} without the clock, which comes from the
 * subtask's context.
 */
export type WindowStreamOperatorOptions<T, K, ACC, OUT> = Omit<
  WindowOperatorOptions<T, K, ACC, OUT>,
  "clock" | "partitionOf"
>;

// Windows are grouped for incremental checkpoints by the key group of their
// key at the default max parallelism: a group is re-encoded only when one
// of its windows changed. Hashed once per (key, window), not per record.
const SNAPSHOT_GROUPS = 128;
const partitionOf = (key: unknown): number => keyGroupOf(key, SNAPSHOT_GROUPS);

// Results held before they go downstream as a batch, checked after each
// fired window: a watermark that fires a million windows hands them on in
// batches of about this size, not as one array of a million, so a chained
// sink drops them while they are young (cheap to collect) instead of the
// garbage collector copying all of them.
const FLUSH_AT = 1024;

/**
 * Adapts a {@linkcode WindowOperator} (keyed windows, triggers, allowed
 * lateness, late side output) to the {@linkcode StreamOperator} contract.
 *
 * - Results are collected into output batches, each with its window's
 *   `maxTimestamp()`: one per call, except that a call firing many windows
 *   (tumbling or sliding event-time windows, default trigger) sends a batch
 *   on once about 1024 results are held, between two windows, so a
 *   window's results are never split. Batches are emitted before the
 *   watermark that fired the windows is forwarded, and at the end of every
 *   call, so everything a watermark causes precedes it.
 * - Late records go to the side output named by `lateDataTag.id` with their
 *   own timestamp; a window function's side outputs go out the same way.
 * - Statuses are forwarded; a watermark not above the current one is dropped
 *   (the window operator keeps output watermarks strictly increasing).
 * - Processing-time windows fire in `onProcessingTime`, which the subtask
 *   calls at `nextProcessingTime()`.
 * - `open` registers the gauges `numLateRecordsDropped` and `numWindows`.
 * - Snapshots hand their windows out in groups by key group (see
 *   {@linkcode SnapshotOptions.parts}): checkpoints are incremental.
 * - A record whose key selector, window assignment, trigger (`onElement`,
 *   or a merge's `onMerge` and `clear`) or `add` (aggregate, reduce)
 *   throws goes to the subtask's error policy (`OperatorContext.reject`)
 *   and has no effect on the window it threw for (see
 *   `WindowOutput.rejectRecord`, and its one limit: an `add` that changes
 *   its accumulator before it throws). A record that throws in the second
 *   of its sliding windows stays in the first; a session it merged stays
 *   merged.
 * - A window whose function throws when it fires goes to the error policy
 *   as `{ key, window: { start, end } }` at its `maxTimestamp()`, with the
 *   results it gave before the throw dropped; it counts as fired. A window
 *   whose trigger throws on a timer or at its cleanup goes the same way
 *   and is dropped as at its cleanup (see `WindowOutput.rejectFire`).
 *
 * The window operator is built in the constructor (so bad options fail at
 * once) with a clock that reads the context's clock once opened, at most
 * once per call (a batch, a watermark, a processing-time tick): every
 * window a call fires sees one processing time. Cost: that of the window
 * operator, plus one array store per result.
 *
 * @typeParam T The record type.
 * @typeParam K The key type.
 * @typeParam ACC What each window keeps.
 * @typeParam OUT The result type.
 */
export class WindowStreamOperator<T, K, ACC, OUT>
  implements StreamOperator<T, OUT> {
  /** How a rescale splits its state: its windows and their timers go by key group. */
  static readonly stateKind: StateKind = "windows";

  readonly #operator: WindowOperator<T, K, ACC, OUT>;
  #clock: Clock | null = null;
  #output: OperatorOutput<OUT> | null = null;
  // The results held, in the first #held slots: the arrays are made with
  // room for as many as the last batch had, so filling them does not grow
  // them slot by slot.
  #values: OUT[] = [];
  #timestamps: number[] = [];
  #held = 0;
  #reject: RejectRecord = rethrowRecord;
  // The processing time, read at most once per call into the operator and
  // shared by every window the call fires: a read costs about as much as
  // firing a small window (a watermark may fire tens of thousands).
  #now = 0;
  #nowRead = false;
  // Calls in progress: a call from inside another (refused by the window
  // operator) must not end the outer call's reading.
  #calls = 0;

  /**
   * Creates the operator with no windows.
   *
   * @param options Assigner, key selector, window function, trigger,
   * lateness and late-data tag.
   * @throws {RangeError} If `allowedLatenessMs` is negative or not a safe
   * integer.
   * @throws {TypeError} If the trigger cannot merge but the assigner merges.
   */
  constructor(options: WindowStreamOperatorOptions<T, K, ACC, OUT>) {
    const clock: Clock = {
      now: () => {
        if (!this.#nowRead) {
          this.#now = this.#clock!.now();
          this.#nowRead = true;
        }
        return this.#now;
      },
    };
    this.#operator = new WindowOperator({ ...options, clock, partitionOf }, {
      collect: (value: OUT, timestamp: number) => {
        const at = this.#held++;
        this.#values[at] = value;
        this.#timestamps[at] = timestamp;
      },
      sideOutput: (tag, value, timestamp) => {
        this.#output!.emitSideOutput(tag.id, value, timestamp);
      },
      emitWatermark: (watermark: number) => {
        this.#flush();
        this.#output!.emitWatermark(watermark);
      },
      windowDone: () => {
        if (this.#held >= FLUSH_AT) this.#flush();
      },
      rejectRecord: (value, timestamp, error, index) => {
        this.#reject(value, timestamp, error, index);
      },
      // A window function that throws at fire time (its partial results
      // go), or a trigger that throws on a timer or at cleanup: the window
      // is set aside as { key, window }.
      rejectFire: (key, window, error, emitted) => {
        this.#held -= emitted;
        this.#reject(
          { key, window: { start: window.start, end: window.end } },
          window.maxTimestamp(),
          error,
        );
      },
    });
  }

  /**
   * Connects the clock and the output, and registers the gauges.
   *
   * @param context The processing-time clock and the metric group.
   * @param output Where results, late records and watermarks go.
   */
  open(context: OperatorContext, output: OperatorOutput<OUT>): void {
    this.#clock = context.clock;
    this.#output = output;
    this.#reject = context.reject ?? rethrowRecord;
    const operator = this.#operator;
    context.metrics.gauge("numLateRecordsDropped", function read() {
      return operator.numLateRecordsDropped;
    });
    context.metrics.gauge("numWindows", function read() {
      return operator.numWindows;
    });
    context.metrics.gauge("lastFiredWindowEndMs", function read() {
      return operator.lastFiredWindowEnd;
    });
  }

  /**
   * Adds a batch to its windows and emits what fired as one batch.
   *
   * @param values The records.
   * @param timestamps Their event timestamps.
   * @throws {RangeError} If merging would make a window end before the
   * watermark.
   */
  processBatch(values: readonly T[], timestamps: readonly number[]): void {
    if (this.#calls++ === 0) this.#nowRead = false;
    try {
      this.#operator.processBatch(values, timestamps);
      this.#flush();
    } finally {
      if (--this.#calls === 0) this.#nowRead = false;
    }
  }

  /**
   * Fires the windows the watermark completes, emits their results, then
   * forwards the watermark.
   *
   * @param watermark The input watermark.
   */
  processWatermark(watermark: number): void {
    if (this.#calls++ === 0) this.#nowRead = false;
    try {
      this.#operator.processWatermark(watermark);
      this.#flush();
    } finally {
      if (--this.#calls === 0) this.#nowRead = false;
    }
  }

  /**
   * Forwards the status.
   *
   * @param status The input status.
   */
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }

  /**
   * Fires the processing-time timers due at the clock's time.
   *
   * @param _now The current processing time; the window operator reads the
   * clock itself.
   */
  onProcessingTime(_now: number): void {
    if (this.#calls++ === 0) this.#nowRead = false;
    try {
      this.#operator.onProcessingTime();
      this.#flush();
    } finally {
      if (--this.#calls === 0) this.#nowRead = false;
    }
  }

  /**
   * The earliest processing-time timer.
   *
   * @returns A processing time in milliseconds, or `Infinity`.
   */
  nextProcessingTime(): number {
    return this.#operator.nextProcessingTimeTimer;
  }

  /** Emits nothing: windows fire on the final `Infinity` watermark. */
  finish(): void {
    this.#flush();
  }

  /**
   * Returns the window operator's snapshot (without its watermark in replay
   * mode); contents are shared, so serialise it before processing more records.
   *
   * @returns A {@linkcode WindowOperatorSnapshot}.
   */
  snapshotState(
    _checkpointId?: number,
    options?: SnapshotOptions,
  ): WindowOperatorSnapshot<K, ACC> {
    const operator = this.#operator;
    const groups = operator.slotGroups();
    const snapshot = {
      ...operator.snapshotWithoutSlots(),
      slots: (options?.parts?.(groups) ?? groups.flat()) as WindowSlotSnapshot<
        K,
        ACC
      >[],
    };
    if (options?.watermarks !== false) return snapshot;
    // Replay mode: timers are kept, the watermark restarts at -Infinity.
    return {
      ...snapshot,
      timers: { ...snapshot.timers, currentWatermark: -Infinity },
    };
  }

  /**
   * Puts back a snapshot; emits nothing.
   *
   * @param state A snapshot of a window operator with the same options.
   */
  restoreState(state: unknown): void {
    this.#operator.restore(state as WindowOperatorSnapshot<K, ACC>);
  }

  #flush(): void {
    const held = this.#held;
    if (held === 0) return;
    const values = this.#values;
    const timestamps = this.#timestamps;
    // Cuts off the room left and the results a rejectFire dropped.
    values.length = held;
    timestamps.length = held;
    const room = Math.min(held, FLUSH_AT);
    this.#values = new Array(room);
    this.#timestamps = new Array(room);
    this.#held = 0;
    this.#output!.emitBatch(values, timestamps);
  }
}
