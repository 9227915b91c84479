/**
 * What a window computes: incremental aggregation, full-window processing,
 * or both.
 *
 * @module
 */

import type { TimeWindow } from "./time_window.ts";
import type { OutputTag } from "./output_tag.ts";

/**
 * An incremental aggregation with an accumulator (Flink's
 * `AggregateFunction`): the window keeps one accumulator instead of its records.
 *
 * `add` may mutate and return the accumulator it is given. `merge` combines
 * the accumulators of session windows that merge. Accumulators are
 * snapshotted, so they must be plain data that superjson can serialise.
 *
 * @typeParam T The record type.
 * @typeParam ACC The accumulator type.
 * @typeParam R The result type.
 */
export interface AggregateFunction<T, ACC, R> {
  /** Returns a fresh, empty accumulator. */
  createAccumulator(): ACC;
  /** Adds one record; returns the updated accumulator. */
  add(value: T, accumulator: ACC): ACC;
  /** Returns the window's result. */
  getResult(accumulator: ACC): R;
  /** Combines two accumulators into one. */
  merge(a: ACC, b: ACC): ACC;
}

/**
 * Combines two records into one of the same type (Flink's `ReduceFunction`).
 *
 * @param a The aggregate so far.
 * @param b The next record.
 * @returns The combined record.
 */
export type ReduceFunction<T> = (a: T, b: T) => T;

/** What a {@linkcode ProcessWindowFunction} may see and do besides its input. */
export interface ProcessWindowContext {
  /** The window being emitted. */
  readonly window: TimeWindow;
  /** The operator's current watermark. */
  readonly currentWatermark: number;
  /**
   * The operator clock's processing time in milliseconds. In a job the
   * clock is read once per call into the operator (a batch, a watermark,
   * a processing-time tick): every window one call fires sees one time.
   */
  readonly currentProcessingTime: number;
  /** Sends a record to a side output, with the window's `maxTimestamp()`. */
  output<X>(tag: OutputTag<X>, value: X): void;
}

/**
 * Computes a window's output from all its input at once (Flink's
 * `ProcessWindowFunction`). With `reduce` or `aggregate`, `elements` holds
 * the single pre-aggregated result.
 *
 * @param key The key of the window.
 * @param context The window, the watermark, processing time, side outputs.
 * @param elements The window's records (or its one pre-aggregated result).
 * @param out Emits one output record; call it any number of times.
 */
export type ProcessWindowFunction<IN, OUT, K> = (
  key: K,
  context: ProcessWindowContext,
  elements: readonly IN[],
  out: (value: OUT) => void,
) => void;

/**
 * The window contents and how they are emitted, in one shape the window
 * operator drives. Build it with {@linkcode reduceWindow},
 * {@linkcode aggregateWindow} or {@linkcode processWindow}.
 *
 * @typeParam T The record type.
 * @typeParam ACC What a window keeps.
 * @typeParam OUT The output type.
 * @typeParam K The key type.
 */
export interface WindowFunction<T, ACC, OUT, K> {
  /** Returns the contents of an empty window. */
  create(): ACC;
  /** Adds a record; may mutate and return `contents`. */
  add(contents: ACC, value: T): ACC;
  /** Combines the contents of two merging windows, `a` being the earlier. */
  merge(a: ACC, b: ACC): ACC;
  /** Emits the window's output. */
  emit(
    key: K,
    context: ProcessWindowContext,
    contents: ACC,
    out: (value: OUT) => void,
  ): void;
}

/**
 * Keeps one running reduction per window, optionally handed to a process
 * function at emission.
 *
 * @param reduce Combines two records.
 * @param process Receives the one reduced record; defaults to emitting it.
 * @returns The window function.
 */
export function reduceWindow<T, K, OUT = T>(
  reduce: ReduceFunction<T>,
  process?: ProcessWindowFunction<T, OUT, K>,
): WindowFunction<T, { value?: T }, OUT, K> {
  return {
    create: () => ({}),
    add(contents, value) {
      contents.value = "value" in contents
        ? reduce(contents.value as T, value)
        : value;
      return contents;
    },
    merge(a, b) {
      if (!("value" in b)) return a;
      if (!("value" in a)) return b;
      return { value: reduce(a.value as T, b.value as T) };
    },
    emit(key, context, contents, out) {
      if (!("value" in contents)) return;
      if (process) process(key, context, [contents.value as T], out);
      else out(contents.value as unknown as OUT);
    },
  };
}

/**
 * Keeps one accumulator per window, optionally handed to a process function
 * at emission. Each window fired hands `process` a new one-element array
 * (the function may keep it); without `process` nothing is allocated per
 * window.
 *
 * @param aggregate The incremental aggregation.
 * @param process Receives the one result; defaults to emitting it.
 * @returns The window function.
 */
export function aggregateWindow<T, ACC, R, K, OUT = R>(
  aggregate: AggregateFunction<T, ACC, R>,
  process?: ProcessWindowFunction<R, OUT, K>,
): WindowFunction<T, ACC, OUT, K> {
  return {
    create: () => aggregate.createAccumulator(),
    add: (contents, value) => aggregate.add(value, contents),
    merge: (a, b) => aggregate.merge(a, b),
    emit(key, context, contents, out) {
      const result = aggregate.getResult(contents);
      // A new array per window, and only for a process function: it may
      // keep its `elements`, so one array reused across windows would show.
      if (process) process(key, context, [result], out);
      else out(result as unknown as OUT);
    },
  };
}

/**
 * Buffers every record of a window and hands them to `process` at emission.
 * Costs memory per record: prefer `reduceWindow` or `aggregateWindow` when
 * the result can be computed incrementally.
 *
 * @param process Computes the output from all records.
 * @returns The window function.
 */
export function processWindow<T, OUT, K>(
  process: ProcessWindowFunction<T, OUT, K>,
): WindowFunction<T, T[], OUT, K> {
  return {
    create: () => [],
    add(contents, value) {
      contents.push(value);
      return contents;
    },
    merge: (a, b) => a.concat(b),
    emit: (key, context, contents, out) => process(key, context, contents, out),
  };
}
