/**
 * Flink's `KeyedProcessFunction`: per-key state and event-time and
 * processing-time timers on a keyed stream, without windows.
 *
 * @module
 */

import type { WatermarkStatus } from "../../time/mod.ts";
import { describeValue } from "../../time/validate.ts";
import { SnapshotGroups } from "../../windows/snapshot_groups.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  SnapshotOptions,
  StreamOperator,
} from "../stream_operator.ts";
import { Context } from "./_keyed_context.ts";
import { type Entry, entryGroup, entryPair } from "./_keyed_entry.ts";
import type {
  KeyedProcessFunction,
  KeyedProcessOperatorOptions,
} from "./keyed_process_function.ts";
import type { KeyedProcessSnapshot } from "./keyed_process_snapshot.ts";
import { requireSnapshot } from "./_keyed_snapshot.ts";
import { KeyedTimers } from "./_keyed_timers.ts";
import { requireFunction } from "./_validate.ts";
import { rethrowRecord } from "../_record_guard.ts";
import type { StateKind } from "../rescale/state_kind.ts";

export type {
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedProcessOperatorOptions,
  KeyedTimerContext,
} from "./keyed_process_function.ts";
export type { KeyedProcessSnapshot } from "./keyed_process_snapshot.ts";

/**
 * Runs a {@linkcode KeyedProcessFunction} over a keyed stream (Flink's
 * `KeyedProcessOperator`): per-key state and timers.
 *
 * - Records: each record's key is read with the key selector, then
 *   `processElement` runs with that key current. Everything one input batch
 *   produces goes out as one output batch.
 * - Watermarks: a watermark above the current one first fires every
 *   event-time timer with `timestamp <= watermark`, in ascending timestamp
 *   order (timers of one timestamp in registration order); a timer that
 *   `onTimer` registers at or below the watermark fires in the same pass.
 *   Their outputs go out as one batch, then the watermark is forwarded. A
 *   watermark not above the current one is dropped. At the end of input
 *   the final `Infinity` watermark fires every remaining event-time timer,
 *   as Flink's final MAX watermark does: an `onTimer` that re-arms itself
 *   should stop once `ctx.currentWatermark` is `Infinity`.
 * - Processing time: `onProcessingTime(now)` fires the processing-time
 *   timers at or below `now` the same way; `nextProcessingTime()` is the
 *   earliest. Pending processing-time timers do not fire at the end of
 *   input (as in Flink, whose timer service quiesces).
 * - Statuses are forwarded. Side outputs go out as they are emitted.
 *
 * Keys are `Map` keys, compared by value for strings, numbers, booleans and
 * bigints (the key types `keyBy` accepts); state is one value per key.
 * Cost: per record, one key-selector call plus a `Map` lookup per state
 * read or write; a timer registration is a `Map` lookup plus a `Set`
 * insertion, with a heap insertion (O(log t) in the distinct timestamps)
 * for the first timer of a timestamp; firing is O(1) amortised per timer
 * plus O(log t) per timestamp. Nothing is allocated per record beyond what
 * the function does.
 *
 * A record whose key selector or `processElement` throws, and a timer
 * whose `onTimer` throws (as `{ key, timestamp }`), go to the subtask's
 * error policy (`OperatorContext.reject`) once what the call did is undone:
 * its outputs, the key's state slot (`setState`, `clearState`) and its
 * timers. Changes made inside a state object (`ctx.state.count++`) and side
 * outputs already emitted stay.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 * @typeParam K The key type.
 * @typeParam S The per-key state type.
 */
export class KeyedProcessOperator<IN, OUT, K, S>
  implements StreamOperator<IN, OUT> {
  /** How a rescale splits its state: its keys and timers go by key group. */
  static readonly stateKind: StateKind = "keyed";

  readonly #fn: KeyedProcessFunction<IN, OUT, K, S>;
  readonly #keySelector: (value: IN) => K;
  readonly #states = new Map<K, Entry<K, S>>();
  readonly #groups = new SnapshotGroups<Entry<K, S>, [K, S]>(
    entryGroup,
    entryPair,
  );
  readonly #eventTimers = new KeyedTimers<K>();
  readonly #processingTimers = new KeyedTimers<K>();
  readonly #context: Context<K, S>;
  #output: OperatorOutput<OUT> | null = null;
  #values: OUT[] = [];
  #timestamps: number[] = [];
  #reject: RejectRecord = rethrowRecord;

  /**
   * Creates the operator with no state and no timers.
   *
   * @param fn The function: `processElement` and optionally `onTimer`.
   * @param options The key selector.
   * @throws {TypeError} If `fn.processElement`, `fn.onTimer` (when given)
   * or `options.keySelector` is not a function.
   */
  constructor(
    fn: KeyedProcessFunction<IN, OUT, K, S>,
    options: KeyedProcessOperatorOptions<IN, K>,
  ) {
    const action = "create KeyedProcessOperator";
    if (typeof fn !== "object" || fn === null) {
      throw new TypeError(
        `Cannot ${action} as 'fn' must be an object with a processElement method: current value is ${
          describeValue(fn)
        }`,
      );
    }
    requireFunction(fn.processElement, {
      action,
      param: "fn.processElement",
    });
    if (fn.onTimer !== undefined) {
      requireFunction(fn.onTimer, { action, param: "fn.onTimer" });
    }
    this.#keySelector = requireFunction(options?.keySelector, {
      action,
      param: "options.keySelector",
    });
    this.#fn = fn;
    this.#context = new Context(
      this.#states,
      this.#groups,
      this.#eventTimers,
      this.#processingTimers,
    );
  }

  /** The last watermark received; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#context.currentWatermark;
  }

  /** The number of keys with state. */
  get numKeys(): number {
    return this.#states.size;
  }

  /** The number of pending event-time and processing-time timers. */
  get numTimers(): number {
    return this.#eventTimers.size + this.#processingTimers.size;
  }

  /**
   * Keeps the clock and the output, and registers the gauges `numKeys`
   * and `numTimers`.
   *
   * @param context The processing-time clock and the metric group.
   * @param output Where outputs, side outputs and watermarks go.
   */
  open(context: OperatorContext, output: OperatorOutput<OUT>): void {
    this.#output = output;
    this.#reject = context.reject ?? rethrowRecord;
    this.#context.target = output as OperatorOutput<unknown>;
    this.#context.clock = context.clock;
    context.metrics.gauge("numKeys", () => this.numKeys);
    context.metrics.gauge("numTimers", () => this.numTimers);
  }

  /**
   * Runs `processElement` over a batch, each record with its key current,
   * and emits the outputs as one batch.
   *
   * @param values The records.
   * @param timestamps Their timestamps, given to their outputs.
   */
  processBatch(values: readonly IN[], timestamps: readonly number[]): void {
    const fn = this.#fn;
    const keyOf = this.#keySelector;
    const context = this.#context;
    const collect = this.#collect;
    const undo = context.undo;
    // A record whose key selector or function throws is undone (outputs,
    // state slot, timers) and set aside; the loop resumes after it.
    const n = values.length;
    let i = 0;
    let before = 0;
    while (i < n) {
      try {
        for (; i < n; i++) {
          before = this.#values.length;
          undo.begin();
          const value = values[i];
          context.key = keyOf(value);
          context.timestamp = timestamps[i];
          context.outputTimestamp = timestamps[i];
          fn.processElement(value, context, collect);
        }
      } catch (error) {
        this.#undo(before);
        this.#reject(values[i], timestamps[i], error, i);
        i++;
      }
    }
    context.timestamp = -Infinity;
    this.#flush();
  }

  /**
   * Fires the event-time timers the watermark reaches, emits their outputs,
   * then forwards the watermark; drops a watermark that does not advance.
   *
   * @param watermark The input watermark.
   */
  processWatermark(watermark: number): void {
    const context = this.#context;
    if (!(watermark > context.currentWatermark)) return;
    // Raised first, so onTimer sees the watermark that fires it (Flink's
    // InternalTimerServiceImpl.advanceWatermark).
    context.currentWatermark = watermark;
    if (this.#eventTimers.size > 0) {
      this.#eventTimers.advance(watermark, this.#onEventTime);
      context.timestamp = -Infinity;
      this.#flush();
    }
    this.#output!.emitWatermark(watermark);
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
   * Fires the processing-time timers at or below `now` and emits their
   * outputs as one batch.
   *
   * @param now The current processing time in milliseconds.
   */
  onProcessingTime(now: number): void {
    this.#processingTimers.advance(now, this.#onProcessingTime);
    this.#context.timestamp = -Infinity;
    this.#flush();
  }

  /**
   * The earliest pending processing-time timer.
   *
   * @returns A processing time in milliseconds, or `Infinity`.
   */
  nextProcessingTime(): number {
    return this.#processingTimers.next();
  }

  /** Emits nothing: event-time timers fire on the final `Infinity` watermark. */
  finish(): void {
    this.#flush();
  }

  /**
   * Returns the keyed state, the pending timers and the watermark
   * (`-Infinity` in replay mode; the timers are kept and fire again once
   * the rebuilt watermark reaches them). States are shared, not copied:
   * serialise the snapshot before processing more records.
   *
   * @returns A {@linkcode KeyedProcessSnapshot}.
   */
  snapshotState(
    _checkpointId?: number,
    options?: SnapshotOptions,
  ): KeyedProcessSnapshot<K, S> {
    const groups = this.#groups.groups(this.#states.values());
    return {
      keyedState: (options?.parts?.(groups) ?? groups.flat()) as [K, S][],
      eventTimers: this.#eventTimers.toPairs(),
      processingTimers: this.#processingTimers.toPairs(),
      // Replay mode: event time restarts at -Infinity.
      currentWatermark: options?.watermarks === false
        ? -Infinity
        : this.#context.currentWatermark,
    };
  }

  /**
   * Replaces the state, timers and watermark with a snapshot's; emits
   * nothing. The whole snapshot is checked before anything changes. Timers
   * of one timestamp keep their snapshot order.
   *
   * @param state A {@linkcode KeyedProcessSnapshot}.
   * @throws {TypeError} If `state` is not a keyed process snapshot.
   * @throws {RangeError} If a timer's timestamp is not a safe integer or the
   * watermark is not a safe integer or `±Infinity`.
   */
  restoreState(state: unknown): void {
    const snapshot = requireSnapshot<K, S>(state);
    this.#states.clear();
    this.#groups.clear();
    for (const [key, state] of snapshot.keyedState) {
      this.#states.set(key, { key, state, part: -1, changed: true });
    }
    this.#eventTimers.clear();
    for (const [key, ts] of snapshot.eventTimers) {
      this.#eventTimers.add(key, ts);
    }
    this.#processingTimers.clear();
    for (const [key, ts] of snapshot.processingTimers) {
      this.#processingTimers.add(key, ts);
    }
    this.#context.currentWatermark = snapshot.currentWatermark;
  }

  // Bound once: `out` of every call.
  readonly #collect = (value: OUT): void => {
    this.#values.push(value);
    this.#timestamps.push(this.#context.outputTimestamp);
  };

  readonly #onEventTime = (key: K, timestamp: number): void => {
    const context = this.#context;
    context.key = key;
    context.timestamp = timestamp;
    context.outputTimestamp = timestamp;
    context.timeDomain = "event_time";
    this.#fire(key, timestamp);
  };

  readonly #onProcessingTime = (key: K, timestamp: number): void => {
    const context = this.#context;
    context.key = key;
    context.timestamp = timestamp;
    // Flink erases the timestamp of a processing-time timer's outputs.
    context.outputTimestamp = -Infinity;
    context.timeDomain = "processing_time";
    this.#fire(key, timestamp);
  };

  // A timer whose onTimer throws is undone and set aside as
  // `{ key, timestamp }`; the other timers fire.
  #fire(key: K, timestamp: number): void {
    const onTimer = this.#fn.onTimer;
    if (onTimer === undefined) return;
    const before = this.#values.length;
    this.#context.undo.begin();
    try {
      onTimer(timestamp, this.#context, this.#collect);
    } catch (error) {
      this.#undo(before);
      this.#reject({ key, timestamp }, timestamp, error);
    }
  }

  #undo(outputs: number): void {
    this.#values.length = this.#timestamps.length = outputs;
    this.#context.undo.undo();
  }

  #flush(): void {
    if (this.#values.length === 0) return;
    const values = this.#values;
    const timestamps = this.#timestamps;
    this.#values = [];
    this.#timestamps = [];
    this.#output!.emitBatch(values, timestamps);
  }
}
