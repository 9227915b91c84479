/**
 * The contract of an operator running inside a subtask's chain.
 *
 * @module
 */

import type {
  Clock,
  MetricGroup,
  PausableClock,
  WatermarkStatus,
} from "../time/mod.ts";

/** Where an operator sends what it produces: the next operator of the chain, or the subtask's outputs. */
export interface OperatorOutput<T> {
  /** Emits records; the arrays are handed over (the receiver may keep them). */
  emitBatch(values: T[], timestamps: number[]): void;
  /** Emits a watermark; strictly increasing. */
  emitWatermark(watermark: number): void;
  /** Emits a status change. */
  emitWatermarkStatus(status: WatermarkStatus): void;
  /** Emits a record to the side output named `tag`. */
  emitSideOutput(tag: string, value: unknown, timestamp: number): void;
}

/**
 * Sets aside a record whose processing threw in an operator's user code (a
 * key selector, a map function, a window function, a sink's write), under
 * the job's error policy: the record becomes a dead letter and the operator goes on with
 * the next one, as if the record had not come. Under `"fail"` it throws
 * `RecordFailedError` instead (unless the record is quarantined): the
 * operator lets that propagate.
 *
 * Call it only for errors of user code or of the record's data (a
 * timestamp that is not a safe integer, a key too large for Deno KV), never
 * for weir's own failures, and only once the record left no trace in the
 * operator's state.
 *
 * @param value The record; for a timer `{ key, timestamp }`, for a window
 * function `{ key, window: { start, end } }`.
 * @param timestamp Its event timestamp in epoch ms (`NaN` if it has none).
 * @param error What was thrown.
 * @param index Its index in the batch the operator is processing, when it
 * came in one: positions (and dead-letter ids) then point at the input.
 */
export type RejectRecord = (
  value: unknown,
  timestamp: number,
  error: unknown,
  index?: number,
) => void;

/** What the subtask tells its operators when it opens them. */
export interface OperatorContext {
  /** Processing time. */
  readonly clock: Clock;
  /**
   * The input-activity clock: paused while the subtask is back-pressured or
   * held by alignment (FLINK-35886); idleness timeouts run on it.
   */
  readonly activityClock: PausableClock;
  /** This subtask's index, from 0. */
  readonly subtaskIndex: number;
  /** The operator's parallelism. */
  readonly parallelism: number;
  /** Where operators register gauges. */
  readonly metrics: MetricGroup;
  /**
   * Asks the runtime to call the operator's `processMail()` soon, from its
   * mailbox: an asynchronous operator calls it when a call completes, so
   * results enter the stream between elements, never concurrently.
   */
  readonly requestMail?: () => void;
  /**
   * When the job started, in processing time: schedules that start with the
   * job (periodic watermarks) count from it, so that a subtask built later
   * (the KV runtime activating an actor with no state yet) keeps the
   * schedule of one built at the start.
   * @default {the time the operator opens}
   */
  readonly startMs?: number;
  /**
   * Whether the runtime snapshots the subtask after every step, not only at
   * checkpoints (the KV runtime commits each step). Transactional sinks then
   * keep the records of the running checkpoint in their own state, so that
   * a step snapshot never closes a transaction.
   * @default {false}
   */
  readonly stepSnapshots?: boolean;
  /**
   * Sets aside a record whose processing threw (see
   * {@linkcode RejectRecord}); the subtask gives each operator its own.
   * Absent (an operator driven on its own, as in a unit test): operators
   * rethrow, as they did before error policies.
   * @default {undefined}
   */
  readonly reject?: RejectRecord;
}

/**
 * One operator of a subtask's chain (Flink's one-input `StreamOperator`).
 *
 * The subtask calls it one element at a time, never concurrently.
 * `processWatermark` must emit everything the watermark causes and then
 * forward the watermark (unless the operator generates its own, as the
 * timestamps-and-watermarks operator does). State that must survive a
 * restore is returned by `snapshotState` as plain data.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export interface StreamOperator<IN, OUT> {
  /** Called once before any element, with the operator's output. */
  open(context: OperatorContext, output: OperatorOutput<OUT>): void;
  /** Processes a batch of records with their timestamps. */
  processBatch(values: readonly IN[], timestamps: readonly number[]): void;
  /** Processes the subtask's merged input watermark. */
  processWatermark(watermark: number): void;
  /** Processes a change of the subtask's merged input status. */
  processWatermarkStatus(status: WatermarkStatus): void;
  /** Runs processing-time work due at `now` (periodic watermarks, timers). */
  onProcessingTime(now: number): void;
  /** When `onProcessingTime` should next run, or `Infinity`. */
  nextProcessingTime(): number;
  /** Called at the end of input, after the final watermark, before `end` is forwarded. */
  finish(): void;
  /**
   * Returns the operator's state as plain data (superjson-serialisable) for
   * checkpoint `checkpointId`. With `options.watermarks` false (the `"replay"`
   * recovery mode) it leaves out event-time progress: generator state and
   * current watermarks, which restart at `-Infinity` after a restore.
   */
  snapshotState(checkpointId?: number, options?: SnapshotOptions): unknown;
  /** Puts back a snapshot; emits nothing. */
  restoreState(state: unknown): void;
  /**
   * Called once checkpoint `checkpointId` is complete everywhere (and again
   * after a restore from it): two-phase sinks commit here.
   */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  /** Emits what completed asynchronously since the last call (see `requestMail`). */
  processMail?(): void;
  /**
   * Whether the operator holds as much in flight as it may: the runtime
   * stops giving it input (back-pressure) until this turns false.
   */
  isBackPressured?(): boolean;
  /** How many asynchronous calls are in flight (the runtime waits for them at the end of input). */
  inFlight?(): number;
  /**
   * How the operator takes part when a subtask rebuilds its event time by
   * replay (`Subtask.beginReplay`; the KV runtime's
   * `watermarkRecovery: "replay"` after a take-over). `"pass"`: it keeps no
   * state (map, filter, flat map), so replayed records may run through it
   * again; `"generate"`: its only state of records is event time (a
   * timestamps-and-watermarks operator), rebuilt from replayed records.
   * Other operators (the default) keep records in their state: replayed
   * records never reach them, and they get only the rebuilt watermark and
   * status, once, when the replay ends.
   */
  readonly replayRole?: "pass" | "generate";
}

/** How a snapshot is taken. */
export interface SnapshotOptions {
  /**
   * Whether event-time progress (generators, valves, operator watermarks) is
   * part of the snapshot: `true` for `watermarkRecovery: "persist"`.
   * @default {true}
   */
  readonly watermarks: boolean;
  /**
   * Stores `groups` (arrays of plain data) as separate parts of the
   * checkpoint and returns the placeholder to put where their concatenation
   * belongs; a restore gets the concatenation there. An operator passes a
   * group's very array again while the group has not changed, and only
   * arrays not seen at the previous checkpoint are encoded and written again
   * (incremental checkpoints). Absent (e.g. outside a runtime's
   * checkpoint): put the concatenation itself.
   */
  readonly parts?: (groups: readonly (readonly unknown[])[]) => unknown;
  /**
   * Whether this is a step snapshot (see `OperatorContext.stepSnapshots`):
   * state to resume from, not a checkpoint, so nothing may be cut (no sink
   * transaction closed).
   * @default {false}
   */
  readonly step?: boolean;
}
