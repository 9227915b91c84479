/**
 * A stream partitioned by key (Flink's `KeyedStream`).
 *
 * @module
 */

import type { WindowAssigner } from "../windows/mod.ts";
import {
  type AsyncFunction,
  AsyncWaitOperator,
  type AsyncWaitOptions,
} from "../runtime/operators/async_wait.ts";
import {
  type KeyedProcessFunction,
  KeyedProcessOperator,
} from "../runtime/operators/keyed_process.ts";
import { addNode, type Input, type Plan, type StreamOf } from "./_plan.ts";
import type { DataStream } from "./data_stream.ts";
import { WindowedStream } from "./windowed_stream.ts";

/**
 * A stream whose records are routed by key: every record of a key reaches
 * the same downstream subtask, whatever the parallelism (key groups, see
 * `maxParallelism`).
 *
 * @typeParam T The record type.
 * @typeParam K The key type.
 */
export class KeyedStream<T, K> {
  readonly #plan: Plan;
  readonly #inputs: readonly Input[];
  readonly #keySelector: (value: T) => K;
  readonly #defaultParallelism: number;
  readonly #inputPolicy: "min" | "max" | undefined;
  readonly #streamOf: StreamOf;

  /**
   * Created by `DataStream.keyBy`.
   *
   * @ignore
   */
  constructor(
    plan: Plan,
    inputs: readonly Input[],
    keySelector: (value: T) => K,
    defaultParallelism: number,
    inputPolicy: "min" | "max" | undefined,
    streamOf: StreamOf,
  ) {
    this.#plan = plan;
    this.#inputs = inputs;
    this.#keySelector = keySelector;
    this.#defaultParallelism = defaultParallelism;
    this.#inputPolicy = inputPolicy;
    this.#streamOf = streamOf;
  }

  /**
   * Calls an asynchronous function per record, keyed: results of one key
   * leave in input order, other keys overtake them, and a watermark waits
   * only for the records that arrived before it (a slow call for
   * key A holds back the watermark, not key B's results).
   *
   * @param fn The call; may spawn follow-up work for the same record.
   * @param options Capacity, timeout, retries.
   * @returns The stream of results.
   */
  mapAsync<R>(
    fn: AsyncFunction<T, R>,
    options: Omit<AsyncWaitOptions<T, R>, "keySelector" | "mode"> = {},
  ): DataStream<R> {
    const keySelector = this.#keySelector as (value: T) => unknown;
    const node = addNode(this.#plan, "async", {
      name: "Async (keyed)",
      state: { operator: "async", mode: "keyed", keyed: true },
      stateKind: AsyncWaitOperator.stateKind,
      parallelism: this.#defaultParallelism,
      inputs: this.#inputs.map((input) => ({
        ...input,
        exchange: {
          kind: "hash" as const,
          keySelector: keySelector as (value: unknown) => unknown,
        },
      })),
      inputPolicy: this.#inputPolicy,
      createOperator: () =>
        new AsyncWaitOperator<T, R>(fn, {
          ...options,
          mode: "keyed",
          keySelector,
        }) as never,
    });
    return this.#streamOf<R>([{ node, exchange: { kind: "forward" } }]);
  }

  /**
   * Processes each record with its key's state and timers (Flink's
   * `KeyedStream.process` with a `KeyedProcessFunction`): the building
   * block for per-key logic without windows, such as joins that buffer one
   * side until the other arrives, deduplication or timeouts.
   *
   * `fn.processElement(value, ctx, out)` runs once per record with its key
   * current: `ctx.state` / `ctx.setState(s)` / `ctx.clearState()` hold one
   * value per key, `ctx.registerEventTimeTimer(ts)` schedules
   * `fn.onTimer(ts, ctx, out)` for when the watermark reaches `ts` (timers
   * fire in timestamp order before the watermark is forwarded; one per
   * key and timestamp), and processing-time timers run on the job's clock.
   * Outputs carry the record's timestamp, or an event-time timer's; those of
   * processing-time timers carry none (`-Infinity`). State and timers are
   * checkpointed and follow their key's key group when the job is restored
   * at another parallelism. At the end of a bounded input the final
   * watermark fires every pending event-time timer.
   *
   * @typeParam OUT The output record type.
   * @typeParam S The per-key state type (plain data).
   * @param fn The function: `processElement` and optionally `onTimer`.
   * @returns The stream of outputs.
   * @throws {TypeError} If `fn.processElement` or `fn.onTimer` (when
   * given) is not a function.
   *
   * @example A running count per word
   * ```ts
   * import { ManualClock } from "../time/mod.ts";
   * import { StreamEnvironment } from "./mod.ts";
   * import assert from "node:assert/strict";
   *
   * const env = new StreamEnvironment({ jobName: "counts", clock: new ManualClock() });
   * const counts = env.fromCollection(["a", "b", "a"], { timestampOf: () => 1_000 })
   *   .keyBy((word) => word)
   *   .process<string, number>({
   *     processElement(word, ctx, out) {
   *       ctx.setState((ctx.state ?? 0) + 1);
   *       out(`${word}:${ctx.state}`);
   *     },
   *   });
   * assert.deepEqual((await env.executeAndCollect(counts)).sort(), ["a:1", "a:2", "b:1"]);
   * ```
   */
  process<OUT, S = unknown>(
    fn: KeyedProcessFunction<T, OUT, K, S>,
  ): DataStream<OUT> {
    const keySelector = this.#keySelector;
    // Built once here so a bad function fails when the job is defined.
    new KeyedProcessOperator(fn, { keySelector });
    const node = addNode(this.#plan, "process", {
      name: "KeyedProcess",
      state: { operator: "keyedProcess", keyed: true },
      stateKind: KeyedProcessOperator.stateKind,
      parallelism: this.#defaultParallelism,
      inputs: this.#inputs.map((input) => ({
        ...input,
        exchange: {
          kind: "hash" as const,
          keySelector: keySelector as (value: unknown) => unknown,
        },
      })),
      inputPolicy: this.#inputPolicy,
      createOperator: () =>
        new KeyedProcessOperator(fn, { keySelector }) as never,
    });
    return this.#streamOf<OUT>([{ node, exchange: { kind: "forward" } }]);
  }

  /**
   * Groups each key's records into windows.
   *
   * @param assigner The window assigner, e.g. `TumblingEventTimeWindows.of(60_000)`.
   * @returns The windowed stream; finish it with `reduce`, `aggregate` or `process`.
   */
  window(assigner: WindowAssigner<T>): WindowedStream<T, K> {
    const keySelector = this.#keySelector as (value: unknown) => unknown;
    const inputs = this.#inputs.map((input) => ({
      ...input,
      exchange: { kind: "hash" as const, keySelector },
    }));
    return new WindowedStream<T, K>(
      this.#plan,
      inputs,
      this.#keySelector,
      assigner,
      this.#defaultParallelism,
      this.#inputPolicy,
      this.#streamOf,
    );
  }
}
