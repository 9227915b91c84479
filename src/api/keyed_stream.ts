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
import { addNode, type Input, type Plan } from "./_plan.ts";
import { DataStream } from "./data_stream.ts";
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
    inputPolicy?: "min" | "max",
  ) {
    this.#plan = plan;
    this.#inputs = inputs;
    this.#keySelector = keySelector;
    this.#defaultParallelism = defaultParallelism;
    this.#inputPolicy = inputPolicy;
  }

  /**
   * Calls an asynchronous function per record, keyed: results of one key
   * leave in input order, other keys overtake them, and a watermark waits
   * only for the records that arrived before it (seed 002: a slow call for
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
    return new DataStream<R>(this.#plan, [{
      node,
      exchange: { kind: "forward" },
    }], this.#defaultParallelism);
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
    );
  }
}
