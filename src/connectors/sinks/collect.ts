/**
 * A sink that keeps every record in memory, for tests and small jobs.
 *
 * @module
 */

import type { Sink, SinkWriter } from "../../runtime/sink.ts";

/** One record a {@linkcode CollectSink} received. */
export interface CollectedRecord<T> {
  /** The record. */
  readonly value: T;
  /** Its event timestamp in epoch milliseconds, as the sink received it. */
  readonly timestamp: number;
  /** The sink subtask that wrote it, from 0. */
  readonly subtask: number;
}

/**
 * Collects the records of all its writers into shared arrays (Flink's
 * `CollectSink` for tests).
 *
 * Every writer appends to the same `values` and `records`, in the order the
 * runtime calls `write`, so with parallelism above 1 the order across
 * subtasks is the runtime's interleaving while the order within one subtask
 * is its output order. `finishedWriters` counts the writers whose `finish`
 * was called: equal to the parallelism once a bounded job ended.
 *
 * Memory grows with every record and nothing is persisted: after a restore
 * the arrays hold what was written before the failure too.
 *
 * @typeParam T The record type.
 *
 * @example Two writers collecting into one sink
 * ```ts
 * import { CollectSink } from "./collect.ts";
 * import assert from "node:assert/strict";
 *
 * const sink = new CollectSink<string>();
 * const [a, b] = [sink.createWriter(0, 2), sink.createWriter(1, 2)];
 * a.write(["x"], [1_000]);
 * b.write(["y", "z"], [2_000, 3_000]);
 * a.finish?.();
 * b.finish?.();
 * assert.deepEqual(sink.values, ["x", "y", "z"]);
 * assert.deepEqual(sink.records[1], { value: "y", timestamp: 2_000, subtask: 1 });
 * assert.equal(sink.finishedWriters, 2);
 * ```
 */
export class CollectSink<T> implements Sink<T> {
  /** `"collect"`. */
  readonly name = "collect";
  /** Every record, in arrival order. */
  readonly values: T[] = [];
  /** Every record with its timestamp and subtask, in arrival order. */
  readonly records: CollectedRecord<T>[] = [];
  #finishedWriters = 0;

  /** How many writers had `finish` called. */
  get finishedWriters(): number {
    return this.#finishedWriters;
  }

  /**
   * Creates the writer of one subtask; any number of writers may share the sink.
   *
   * @param subtaskIndex The subtask, from 0; recorded with each record.
   * @param _parallelism The number of sink subtasks (unused).
   * @returns A writer appending to this sink's arrays.
   */
  createWriter(subtaskIndex: number, _parallelism: number): SinkWriter<T> {
    return {
      // Its write only appends to arrays: it cannot throw midway.
      atomicWrites: true,
      write: (values, timestamps) => {
        for (let i = 0; i < values.length; i++) {
          this.values.push(values[i]);
          this.records.push({
            value: values[i],
            timestamp: timestamps[i],
            subtask: subtaskIndex,
          });
        }
      },
      finish: () => {
        this.#finishedWriters++;
      },
    };
  }
}
