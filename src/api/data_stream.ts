/**
 * A stream of records in a job being built (Flink's `DataStream`).
 *
 * @module
 */

import type { WatermarkStrategy } from "../time/mod.ts";
import type { OutputTag } from "../windows/mod.ts";
import {
  type AsyncFunction,
  AsyncWaitOperator,
  type AsyncWaitOptions,
  FilterOperator,
  FlatMapOperator,
  MapOperator,
  type ProcessFunction,
  ProcessOperator,
  SinkOperator,
  TimestampsAndWatermarksOperator,
} from "../runtime/operators/mod.ts";
import type { Sink, StreamOperator } from "../runtime/mod.ts";
import {
  addNode,
  assignUid,
  type Input,
  type Plan,
  type PlanNode,
} from "./_plan.ts";
import { connectorMeaning, type StateMeaning } from "./_state_meaning.ts";
import type { StateKind } from "../runtime/rescale/state_kind.ts";
import { KeyedStream } from "./keyed_stream.ts";

/**
 * A stream of `T` records: each method adds an operator and returns the
 * stream it produces. Nothing runs until the environment executes the job.
 *
 * Operators that follow each other with the same parallelism and no
 * repartitioning run chained in one subtask, without a channel in between.
 *
 * @typeParam T The record type.
 */
export class DataStream<T> {
  readonly #plan: Plan;
  readonly #inputs: readonly Input[];
  readonly #defaultParallelism: number;
  #inputPolicy: "min" | "max" | undefined;

  /**
   * Wraps producers of a plan; created by the environment and other streams.
   *
   * @ignore
   * @param plan The job being built.
   * @param inputs The producers of this stream (several after `union`).
   * @param defaultParallelism The parallelism of operators added to it.
   */
  constructor(
    plan: Plan,
    inputs: readonly Input[],
    defaultParallelism: number,
  ) {
    this.#plan = plan;
    this.#inputs = inputs;
    this.#defaultParallelism = defaultParallelism;
  }

  /** The operator that produces this stream (the last one added), or `null` after `union`. */
  get #node(): PlanNode | null {
    return this.#inputs.length === 1 ? this.#inputs[0].node : null;
  }

  /**
   * Sets the parallelism of the operator that produces this stream.
   *
   * @param parallelism The number of subtasks, from 1 to the max parallelism.
   * @returns This stream.
   * @throws {RangeError} If `parallelism` is out of range, or the stream is a union.
   */
  setParallelism(parallelism: number): this {
    const node = this.#node;
    if (
      node === null || !Number.isSafeInteger(parallelism) || parallelism < 1 ||
      parallelism > this.#plan.maxParallelism
    ) {
      throw new RangeError(
        `Cannot set parallelism as 'parallelism' must be an integer from 1 to ${this.#plan.maxParallelism} on a stream made by one operator: current value is ${parallelism}${
          node === null ? " on a union" : ""
        }`,
      );
    }
    node.parallelism = parallelism;
    node.parallelismSet = true;
    return this;
  }

  /**
   * Names the operator that produces this stream, for plans and metrics.
   *
   * @param name The name.
   * @returns This stream.
   */
  name(name: string): this {
    const node = this.#node;
    if (node !== null) node.name = name;
    return this;
  }

  /**
   * Gives the operator that produces this stream a stable id (Flink's
   * `uid()`): its state is checkpointed under this id, so a later version
   * of the job finds it even when operators were added or removed before
   * it, or it moved into another chain. Without a uid an operator's id is
   * positional (the order in which the program created it, e.g.
   * `window-3`), so inserting an operator earlier in the program loses the
   * state of every operator after it. Give uids to stateful operators
   * (sources, windows, keyed process functions, asynchronous calls, sinks)
   * before the first deployment: adding one later is fine while nothing
   * before the operator changes in the same release, since an unknown uid
   * falls back to the positional id.
   *
   * A restore also compares what each operator's state means (its kind, a
   * window's assigner and size): a checkpoint whose operator of the same id
   * means something else is refused with a `CheckpointMismatchError`.
   *
   * @param uid The id: a non-empty string, unique among the job's uids.
   * @returns This stream.
   * @throws {TypeError} If `uid` is not a string.
   * @throws {RangeError} If `uid` is empty or another operator has it, or
   * this stream is a union or a side output (give the uid to the operator
   * that produces it).
   *
   * @example Stable ids for a source and a window
   * ```ts
   * import { ManualClock, StreamEnvironment, TumblingEventTimeWindows } from "@weir/weir";
   * import assert from "node:assert/strict";
   *
   * const env = new StreamEnvironment({ jobName: "words", clock: new ManualClock() });
   * const counts = env.fromCollection(["a", "b", "a"], { timestampOf: () => 1_000 }).uid("words")
   *   .keyBy((w) => w).window(TumblingEventTimeWindows.of(60_000))
   *   .reduce((a) => a).uid("first-per-minute");
   * const ops = env.getJobGraph().vertices.flatMap((v) => v.operators ?? []);
   * assert.deepEqual(ops.map((op) => op.uid), ["words", "first-per-minute"]);
   * assert.throws(() => counts.map((w) => w).uid("words"), RangeError);
   * ```
   */
  uid(uid: string): this {
    const node = this.#node;
    const input = this.#inputs[0];
    if (node === null || input.sideOutputTag !== undefined) {
      throw new RangeError(
        `Cannot set uid as the stream must be made by one operator: current value is ${
          node === null
            ? "a union"
            : `side output '${input.sideOutputTag}' of operator '${node.name}'`
        }; set the uid on the stream each operator returns`,
      );
    }
    assignUid(this.#plan, node, uid);
    return this;
  }

  /**
   * Assigns timestamps and generates watermarks (Flink's
   * `TimestampsAndWatermarksOperator`): upstream watermarks are dropped except
   * the final one. Prefer putting the strategy on the source (`fromSource`),
   * where each partition gets its own generator.
   *
   * @param strategy The watermark strategy.
   * @returns The stream with timestamps and watermarks.
   */
  assignTimestampsAndWatermarks(strategy: WatermarkStrategy<T>): DataStream<T> {
    const interval = this.#plan.autoWatermarkIntervalMs;
    return this.#then(
      "timestamps",
      "Timestamps/Watermarks",
      () =>
        new TimestampsAndWatermarksOperator<T>(strategy, {
          autoWatermarkIntervalMs: interval,
        }),
      TimestampsAndWatermarksOperator.stateKind,
      { operator: "timestampsAndWatermarks" },
    );
  }

  /**
   * Transforms each record.
   *
   * @param fn Returns the new record; called once per record.
   * @returns The transformed stream.
   */
  map<R>(fn: (value: T) => R): DataStream<R> {
    return this.#then(
      "map",
      "Map",
      () => new MapOperator(fn),
      MapOperator.stateKind,
    );
  }

  /**
   * Calls an asynchronous function per record without blocking the stream
   * (Flink's `AsyncDataStream`). Results carry their input's timestamp, and
   * a watermark waits until every record before it has its results out.
   *
   * @param fn The call; may return one result, several, or none.
   * @param options `mode` (`"ordered"` or `"unordered"`; use
   * `keyBy(...).mapAsync` for `"keyed"`), capacity, timeout, retries.
   * @returns The stream of results.
   */
  mapAsync<R>(
    fn: AsyncFunction<T, R>,
    options: Omit<AsyncWaitOptions<T, R>, "keySelector"> = { mode: "ordered" },
  ): DataStream<R> {
    return this.#then(
      "async",
      `Async (${options.mode})`,
      () => new AsyncWaitOperator<T, R>(fn, options),
      AsyncWaitOperator.stateKind,
      { operator: "async", mode: options.mode },
    );
  }

  /**
   * Keeps the records for which `fn` returns `true`.
   *
   * @param fn The predicate.
   * @returns The filtered stream.
   */
  filter(fn: (value: T) => boolean): DataStream<T> {
    return this.#then(
      "filter",
      "Filter",
      () => new FilterOperator(fn),
      FilterOperator.stateKind,
    );
  }

  /**
   * Turns each record into zero or more records.
   *
   * @param fn Calls `out` once per output record.
   * @returns The resulting stream.
   */
  flatMap<R>(fn: (value: T, out: (value: R) => void) => void): DataStream<R> {
    return this.#then(
      "flatMap",
      "FlatMap",
      () => new FlatMapOperator(fn),
      FlatMapOperator.stateKind,
    );
  }

  /**
   * Processes each record with access to its timestamp, the current
   * watermark and side outputs.
   *
   * @param fn The process function.
   * @returns The resulting stream.
   */
  process<R>(fn: ProcessFunction<T, R>): DataStream<R> {
    return this.#then(
      "process",
      "Process",
      () => new ProcessOperator(fn),
      ProcessOperator.stateKind,
    );
  }

  /**
   * Partitions the stream by key: records with the same key meet in the same
   * subtask downstream.
   *
   * @param keySelector Returns the key: a string, number, boolean or bigint.
   * @returns The keyed stream.
   */
  keyBy<K>(keySelector: (value: T) => K): KeyedStream<T, K> {
    return new KeyedStream<T, K>(
      this.#plan,
      this.#inputs,
      keySelector,
      this.#defaultParallelism,
      this.#inputPolicy,
      (inputs) => new DataStream(this.#plan, inputs, this.#defaultParallelism),
    );
  }

  /**
   * Merges streams of the same type; the watermark downstream is the minimum
   * over all of them.
   *
   * @param others The other streams.
   * @returns The merged stream.
   */
  union(...others: DataStream<T>[]): DataStream<T> {
    const inputs = [this, ...others].flatMap((stream) => stream.#inputs);
    return new DataStream<T>(this.#plan, inputs, this.#defaultParallelism);
  }

  /**
   * Sets how the next operator combines the watermarks of its input
   * channels: `"min"` (Flink, the default) waits for the slowest input;
   * `"max"` (Spark's `multipleWatermarkPolicy`) follows the fastest, so
   * records of slower inputs may turn late. Useful after `union`.
   *
   * @param policy The combine policy.
   * @returns A stream whose next operator uses the policy.
   */
  withWatermarkPolicy(policy: "min" | "max"): DataStream<T> {
    if (policy !== "min" && policy !== "max") {
      throw new RangeError(
        `Cannot set the watermark policy as 'policy' must be "min" or "max": current value is ${
          JSON.stringify(policy)
        }`,
      );
    }
    const stream = new DataStream<T>(
      this.#plan,
      this.#inputs,
      this.#defaultParallelism,
    );
    stream.#inputPolicy = policy;
    return stream;
  }

  /**
   * Returns the records a producing operator sent to a side output, e.g. the
   * late records of a window.
   *
   * @param tag The side output's tag.
   * @returns The side output stream.
   * @throws {RangeError} If this stream is a union.
   */
  getSideOutput<X>(tag: OutputTag<X>): DataStream<X> {
    const node = this.#node;
    if (node === null) {
      throw new RangeError(
        `Cannot get side output '${tag.id}' as the stream must be made by one operator: current value is a union`,
      );
    }
    return new DataStream<X>(
      this.#plan,
      [{ node, sideOutputTag: tag.id, exchange: { kind: "forward" } }],
      this.#defaultParallelism,
    );
  }

  /**
   * Writes the stream to a sink.
   *
   * @param sink The sink connector.
   * @returns The stream of the sink operator (for `setParallelism` and `name`).
   */
  sinkTo(sink: Sink<T>): DataStream<never> {
    return this.#then(
      "sink",
      `Sink: ${sink.name}`,
      (subtaskIndex, parallelism) =>
        new SinkOperator<T>(sink.createWriter(subtaskIndex, parallelism)),
      SinkOperator.stateKind,
      connectorMeaning("sink", sink),
    );
  }

  /** Adds a one-input operator fed by this stream's producers. */
  #then<R>(
    kind: string,
    name: string,
    createOperator: (
      subtaskIndex: number,
      parallelism: number,
    ) => StreamOperator<unknown, unknown>,
    stateKind: StateKind,
    state: StateMeaning = { operator: kind },
  ): DataStream<R> {
    const node = addNode(this.#plan, kind, {
      name,
      state,
      stateKind,
      parallelism: this.#inputs.length === 1 && !this.#inputs[0].node.source
        ? this.#inputs[0].node.parallelism
        : this.#defaultParallelism,
      inputs: this.#inputs,
      createOperator,
      inputPolicy: this.#inputPolicy,
    });
    return new DataStream<R>(
      this.#plan,
      [{ node, exchange: { kind: "forward" } }],
      this.#defaultParallelism,
    );
  }

  /**
   * The producers of this stream, for the environment.
   *
   * @ignore
   */
  get _inputs(): readonly Input[] {
    return this.#inputs;
  }
}
