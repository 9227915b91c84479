/**
 * Keyed windows being configured (Flink's `WindowedStream`).
 *
 * @module
 */

import { requireNonNegativeInteger } from "../time/validate.ts";
import {
  type AggregateFunction,
  aggregateWindow,
  type OutputTag,
  processWindow,
  type ProcessWindowFunction,
  type ReduceFunction,
  reduceWindow,
  type Trigger,
  type WindowAssigner,
  type WindowFunction,
} from "../windows/mod.ts";
import { WindowStreamOperator } from "../runtime/operators/mod.ts";
import { addNode, type Input, type Plan, type StreamOf } from "./_plan.ts";
import { windowMeaning } from "./_state_meaning.ts";
import type { DataStream } from "./data_stream.ts";

/**
 * Keyed windows: set the trigger, allowed lateness and late-data side
 * output, then compute with `reduce`, `aggregate` or `process`.
 *
 * @typeParam T The record type.
 * @typeParam K The key type.
 */
export class WindowedStream<T, K> {
  readonly #plan: Plan;
  readonly #inputs: readonly Input[];
  readonly #keySelector: (value: T) => K;
  readonly #assigner: WindowAssigner<T>;
  readonly #defaultParallelism: number;
  readonly #inputPolicy: "min" | "max" | undefined;
  readonly #streamOf: StreamOf;
  #trigger: Trigger<T> | undefined;
  #allowedLatenessMs = 0;
  #lateDataTag: OutputTag<T> | null = null;

  /**
   * Created by `KeyedStream.window`.
   *
   * @ignore
   */
  constructor(
    plan: Plan,
    inputs: readonly Input[],
    keySelector: (value: T) => K,
    assigner: WindowAssigner<T>,
    defaultParallelism: number,
    inputPolicy: "min" | "max" | undefined,
    streamOf: StreamOf,
  ) {
    this.#inputPolicy = inputPolicy;
    this.#streamOf = streamOf;
    this.#plan = plan;
    this.#inputs = inputs;
    this.#keySelector = keySelector;
    this.#assigner = assigner;
    this.#defaultParallelism = defaultParallelism;
  }

  /**
   * Replaces the assigner's default trigger.
   *
   * @param trigger The trigger.
   * @returns This windowed stream.
   */
  trigger(trigger: Trigger<T>): this {
    this.#trigger = trigger;
    return this;
  }

  /**
   * Keeps event-time windows for `ms` after their end: each record arriving
   * in that time fires the window again with it included.
   *
   * @param ms Allowed lateness in milliseconds.
   * @default ms 0
   * @returns This windowed stream.
   * @throws {RangeError} If `ms` is negative or not a safe integer.
   */
  allowedLateness(ms: number): this {
    this.#allowedLatenessMs = requireNonNegativeInteger(ms, {
      action: "set allowed lateness",
      param: "ms",
    });
    return this;
  }

  /**
   * Sends records too late for all their windows to a side output instead of
   * dropping them; read it with `getSideOutput(tag)` on the result.
   *
   * @param tag The side output's tag.
   * @returns This windowed stream.
   */
  sideOutputLateData(tag: OutputTag<T>): this {
    this.#lateDataTag = tag;
    return this;
  }

  /**
   * Combines each window's records incrementally into one.
   *
   * @param fn Combines two records.
   * @param process Optionally turns the result into the output, with the window.
   * @returns The stream of window results, timestamped `window.maxTimestamp()`.
   */
  reduce<R = T>(
    fn: ReduceFunction<T>,
    process?: ProcessWindowFunction<T, R, K>,
  ): DataStream<R> {
    return this.#build(reduceWindow<T, K, R>(fn, process), "reduce");
  }

  /**
   * Aggregates each window's records incrementally with an accumulator.
   *
   * @param aggregate The aggregate function.
   * @param process Optionally turns the result into the output, with the window.
   * @returns The stream of window results, timestamped `window.maxTimestamp()`.
   */
  aggregate<ACC, V, R = V>(
    aggregate: AggregateFunction<T, ACC, V>,
    process?: ProcessWindowFunction<V, R, K>,
  ): DataStream<R> {
    return this.#build(
      aggregateWindow<T, ACC, V, K, R>(aggregate, process),
      "aggregate",
    );
  }

  /**
   * Computes each window's output from all its records at once (buffers them).
   *
   * @param fn The process window function.
   * @returns The stream of window results, timestamped `window.maxTimestamp()`.
   */
  process<R>(fn: ProcessWindowFunction<T, R, K>): DataStream<R> {
    return this.#build(processWindow<T, R, K>(fn), "process");
  }

  #build<ACC, R>(
    windowFunction: WindowFunction<T, ACC, R, K>,
    kind: "reduce" | "aggregate" | "process",
  ): DataStream<R> {
    const options = {
      assigner: this.#assigner,
      keySelector: this.#keySelector,
      windowFunction,
      trigger: this.#trigger,
      allowedLatenessMs: this.#allowedLatenessMs,
      lateDataTag: this.#lateDataTag,
    };
    const node = addNode(this.#plan, "window", {
      name: "Window",
      state: windowMeaning(this.#assigner, kind, this.#trigger),
      stateKind: WindowStreamOperator.stateKind,
      parallelism: this.#defaultParallelism,
      inputs: this.#inputs,
      inputPolicy: this.#inputPolicy,
      windowSizeMs: fixedEventTimeSize(this.#assigner),
      allowedLatenessMs: this.#allowedLatenessMs,
      createOperator: () => new WindowStreamOperator(options),
    });
    return this.#streamOf<R>([{ node, exchange: { kind: "forward" } }]);
  }
}

/**
 * The size of fixed-size event-time windows (tumbling, sliding), recorded in
 * the plan for diagnosis; `undefined` for sessions, global and
 * processing-time windows.
 */
function fixedEventTimeSize<T>(
  assigner: WindowAssigner<T>,
): number | undefined {
  if (!assigner.isEventTime || assigner.isMerging) return undefined;
  const size = (assigner as { sizeMs?: unknown }).sizeMs;
  return typeof size === "number" && Number.isFinite(size) ? size : undefined;
}
