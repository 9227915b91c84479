/**
 * A stream partitioned by key (Flink's `KeyedStream`).
 *
 * @module
 */

import type { WindowAssigner } from "../windows/mod.ts";
import type { Input, Plan } from "./_plan.ts";
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
