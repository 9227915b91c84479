/**
 * What a keyed process function is: the function the keyed process
 * operator runs, the context it sees, and the operator's options.
 *
 * @module
 */

import type { OutputTag } from "../../windows/mod.ts";

/**
 * What a {@linkcode KeyedProcessFunction} sees besides the record: its key,
 * that key's state, timers and side outputs. One object is reused for every
 * call and re-pointed at the current key: read it during the call, do not
 * keep it.
 *
 * @typeParam K The key type.
 * @typeParam S The per-key state type.
 */
export interface KeyedProcessContext<K, S> {
  /** The key of the record (or of the timer) being processed. */
  readonly key: K;
  /**
   * The record's event timestamp in milliseconds (`-Infinity` if it has
   * none); in `onTimer`, the timer's timestamp.
   */
  readonly timestamp: number;
  /** The operator's current watermark; `-Infinity` before the first, `Infinity` at the end of input. */
  readonly currentWatermark: number;
  /** The processing time in milliseconds, from the subtask's clock. */
  readonly currentProcessingTime: number;
  /**
   * The current key's state; `undefined` until set or after `clearState()`.
   * A state object may be changed in place after reading it here (a read
   * marks the key's state for the next checkpoint); change it through a
   * reference kept elsewhere only with a `setState` in the same call.
   */
  readonly state: S | undefined;
  /**
   * Replaces the current key's state; `undefined` clears it. The value is
   * kept by reference (changing it in place between calls is fine: a
   * checkpoint encodes it at the barrier) and snapshotted as is, so it must
   * be plain data: no functions or class instances.
   */
  setState(value: S | undefined): void;
  /** Drops the current key's state; its timers stay. */
  clearState(): void;
  /**
   * Registers an event-time timer for the current key: `onTimer` runs once
   * the watermark reaches `timestamp` (`timestamp <= watermark`). A pending
   * (key, timestamp) timer is stored once. A timer at or below the current
   * watermark fires with the next watermark, or in the current pass when
   * registered from an event-time `onTimer`.
   *
   * @param timestamp When it fires, in milliseconds of event time.
   * @throws {RangeError} If `timestamp` is not a safe integer.
   * @throws {TypeError} If `timestamp` is not a number.
   */
  registerEventTimeTimer(timestamp: number): void;
  /**
   * Deletes the current key's event-time timer at `timestamp`; a no-op if
   * none is pending.
   *
   * @param timestamp The timer's time, in milliseconds of event time.
   * @throws {RangeError} If `timestamp` is not a safe integer.
   * @throws {TypeError} If `timestamp` is not a number.
   */
  deleteEventTimeTimer(timestamp: number): void;
  /**
   * Registers a processing-time timer for the current key: `onTimer` runs
   * once the subtask's clock reaches `timestamp`. Stored once per (key,
   * timestamp).
   *
   * @param timestamp When it fires, in milliseconds of processing time.
   * @throws {RangeError} If `timestamp` is not a safe integer.
   * @throws {TypeError} If `timestamp` is not a number.
   */
  registerProcessingTimeTimer(timestamp: number): void;
  /**
   * Deletes the current key's processing-time timer at `timestamp`; a
   * no-op if none is pending.
   *
   * @param timestamp The timer's time, in milliseconds of processing time.
   * @throws {RangeError} If `timestamp` is not a safe integer.
   * @throws {TypeError} If `timestamp` is not a number.
   */
  deleteProcessingTimeTimer(timestamp: number): void;
  /**
   * Emits `value` to the side output `tag` (an {@linkcode OutputTag} or its
   * id), with the timestamp the main output would get.
   */
  output<X>(tag: OutputTag<X> | string, value: X): void;
}

/**
 * The context of {@linkcode KeyedProcessFunction.onTimer}: the firing
 * timer's key, state and domain. `timestamp` is the timer's.
 *
 * @typeParam K The key type.
 * @typeParam S The per-key state type.
 */
export interface KeyedTimerContext<K, S> extends KeyedProcessContext<K, S> {
  /** Whether an event-time or a processing-time timer fired (Flink's `TimeDomain`). */
  readonly timeDomain: "event_time" | "processing_time";
}

/**
 * Processes each record of a keyed stream with its key's state and timers
 * (Flink's `KeyedProcessFunction`).
 *
 * - `processElement` runs once per record, in input order; outputs carry
 *   the record's timestamp.
 * - `onTimer` runs once per fired timer, with the timer's key current;
 *   outputs of an event-time timer carry the timer's timestamp, outputs of
 *   a processing-time timer carry none (`-Infinity`), as in Flink.
 * - `out` emits one output record; it is valid only during the call.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 * @typeParam K The key type.
 * @typeParam S The per-key state type.
 */
export interface KeyedProcessFunction<IN, OUT, K, S> {
  /**
   * Processes one record.
   *
   * @param value The record.
   * @param ctx Its key, timestamp, state, timers and side outputs.
   * @param out Emits one output record.
   */
  processElement(
    value: IN,
    ctx: KeyedProcessContext<K, S>,
    out: (value: OUT) => void,
  ): void;
  /**
   * Called when a timer fires; timers fire in ascending timestamp order
   * (ties in registration order). May register and delete timers.
   *
   * @param timestamp The timer's timestamp in milliseconds.
   * @param ctx The timer's key, state, timers, side outputs and domain.
   * @param out Emits one output record.
   */
  onTimer?(
    timestamp: number,
    ctx: KeyedTimerContext<K, S>,
    out: (value: OUT) => void,
  ): void;
}

/** Options of a `KeyedProcessOperator`. */
export interface KeyedProcessOperatorOptions<IN, K> {
  /**
   * The key of a record: a string, number, boolean or bigint, compared as
   * a `Map` key (the key selector of `keyBy`).
   */
  keySelector: (value: IN) => K;
}
