/**
 * A source that reads a {@linkcode KvLog}: which subtask reads which of
 * its partitions, how much each reader prefetches (more the farther KV
 * is), and whether it ends at the heads it found.
 *
 * @module
 */

import {
  describeValue,
  requireBoolean,
  requireIndex,
  requirePositiveInteger,
} from "../../time/validate.ts";
import type { Source } from "../../runtime/source.ts";
import { KvLog } from "./kv_log.ts";
import type { KvLogReader } from "./kv_log_reader.ts";
import { PrefetchReader } from "./_kv_log_prefetch.ts";

export { type KvLogReader, waitForSources } from "./kv_log_reader.ts";

/** Options of a {@linkcode KvLogSource}. */
export interface KvLogSourceOptions {
  /**
   * How many records the first background read of a partition fetches at
   * most, and the smallest read size. Each partition's read size then
   * follows the round trip to KV: it doubles after a read that the
   * consumer had to wait for (the buffer ran dry while it was in flight),
   * up to `maxPrefetch`, and halves back towards `prefetch` after a read
   * that landed with more than half of its buffer still unread. A
   * partition is refilled when half of its read size is left.
   * @default {1024}
   */
  readonly prefetch?: number;
  /**
   * The largest read size per partition, which bounds memory: a reader
   * buffers at most 1.5 times this many records per partition, plus the
   * rest of one stored batch (a read takes the last batch it reaches
   * whole, at most 64 KiB encoded, so that the next read starts at a
   * batch: one `list` call). Set it to `prefetch` for reads of one fixed
   * size.
   * @default {16 * prefetch}
   */
  readonly maxPrefetch?: number;
  /**
   * Whether the reader ends once each partition reaches the head it had
   * when the reader first read it (a bounded job over what is in the log);
   * otherwise it follows the log forever.
   * @default {false}
   */
  readonly bounded?: boolean;
  /**
   * Processing time, in milliseconds, between two reads of a partition
   * that had nothing new, and the wake-up `nextAvailableAt` asks for while
   * a read is in flight.
   * @default {50}
   */
  readonly pollIntervalMs?: number;
}

/**
 * Reads a {@linkcode KvLog} (Flink's `KafkaSource` in miniature): each log
 * partition is a source partition, read by subtask `p % parallelism`.
 *
 * The runtime polls synchronously while Deno KV reads are asynchronous, so
 * each partition has an in-memory buffer that a read in the background
 * fills. `poll` only takes from the buffers, never waits, and starts a
 * read for every partition whose buffer fell to half of its read size or
 * less (at most one read per partition at a time). The read size starts
 * at `prefetch` and grows while the consumer waits for reads, so that a
 * read covers a round trip however far KV is (see the options). No timer exists: reads
 * start only from `poll`, `nextAvailableAt` and `ready`, so a reader that
 * is not polled does nothing and leaks nothing.
 *
 * `nextAvailableAt(now)` is `now` while records are buffered; otherwise
 * `now + pollIntervalMs` while a read is in flight, the time of the next
 * read of a partition that had nothing new (`pollIntervalMs` after the
 * read that found nothing), and `Infinity` once the reader is finished or
 * closed. `ready()` waits for the reads in flight, and
 * {@linkcode waitForSources} for those of several readers.
 *
 * Bounded mode: the first read of a partition also reads its head, and the
 * partition ends there; the poll that hands out its last records reports its
 * end (`SourceBatch.ended`; an empty partition's end comes on its own once
 * the read found it), and the reader is `finished` when every partition was
 * read to its end. A restored reader reads the heads again, and reports the
 * ends again. Unbounded, the reader follows the log forever.
 *
 * The reader's snapshot is `{ partitions, positions, cursor }` like the
 * other readers': its partition names (`<log name>-<p>`), the offset of the
 * next record of each, which is exactly where a restored reader resumes (no
 * record lost or repeated), and the partition it polls first.
 * Restoring drops the buffers and any read in flight. A read that fails
 * (e.g. the KV was closed) is thrown by the next `poll`.
 *
 * @typeParam T The record type.
 *
 * @example Reading what a log holds, in bounded mode
 * ```ts
 * import { KvLog, KvLogSource } from "../mod.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const log = new KvLog<string>(kv, "events", { partitions: 1 });
 * await log.append(0, [{ value: "a", timestamp: 1 }, { value: "b", timestamp: 2 }]);
 * const reader = new KvLogSource(log, { bounded: true }).createReader(0, 1);
 * await reader.ready();
 * assert.deepEqual(reader.poll(0, 10)?.values, ["a", "b"]);
 * assert.equal(reader.finished, true);
 * await reader.close();
 * kv.close();
 * ```
 */
export class KvLogSource<T> implements Source<T> {
  /** `kv-log:<log name>`. */
  readonly name: string;
  readonly #log: KvLog<T>;
  readonly #prefetch: number;
  readonly #maxPrefetch: number;
  readonly #bounded: boolean;
  readonly #pollIntervalMs: number;

  /**
   * Creates a source over `log`.
   *
   * @param log The log to read.
   * @param options Read sizes, bounded mode and poll interval.
   * @throws {TypeError} If `log` is not a KvLog or `bounded` is not a boolean.
   * @throws {RangeError} If `prefetch`, `maxPrefetch` or `pollIntervalMs`
   * is not a positive integer, or `maxPrefetch` is below `prefetch`.
   */
  constructor(log: KvLog<T>, options: KvLogSourceOptions = {}) {
    const action = "create KvLogSource";
    if (!(log instanceof KvLog)) {
      throw new TypeError(
        `Cannot ${action} as 'log' must be a KvLog: current value is ${
          describeValue(log)
        }`,
      );
    }
    this.#log = log;
    this.name = `kv-log:${log.name}`;
    this.#prefetch = requirePositiveInteger(options.prefetch ?? 1024, {
      action,
      param: "prefetch",
    });
    this.#maxPrefetch = requirePositiveInteger(
      options.maxPrefetch ?? 16 * this.#prefetch,
      { action, param: "maxPrefetch" },
    );
    if (this.#maxPrefetch < this.#prefetch) {
      throw new RangeError(
        `Cannot ${action} as 'maxPrefetch' must be at least 'prefetch' (${this.#prefetch}): current value is ${this.#maxPrefetch}`,
      );
    }
    this.#pollIntervalMs = requirePositiveInteger(
      options.pollIntervalMs ?? 50,
      { action, param: "pollIntervalMs" },
    );
    this.#bounded = requireBoolean(options.bounded ?? false, {
      action,
      param: "bounded",
    });
  }

  /**
   * Creates the reader of one subtask: log partitions `p` with
   * `p % parallelism === subtaskIndex`.
   *
   * @param subtaskIndex The subtask, from 0.
   * @param parallelism The number of source subtasks.
   * @returns A reader of this subtask's partitions, possibly none.
   * @throws {RangeError} If `parallelism` is not a positive integer or `subtaskIndex` is out of range.
   */
  createReader(subtaskIndex: number, parallelism: number): KvLogReader<T> {
    const action = "create a reader of KvLogSource";
    requirePositiveInteger(parallelism, { action, param: "parallelism" });
    requireIndex(subtaskIndex, parallelism, { action, param: "subtaskIndex" });
    const indices: number[] = [];
    for (let p = subtaskIndex; p < this.#log.numPartitions; p += parallelism) {
      indices.push(p);
    }
    return new PrefetchReader(this.#log, indices, {
      prefetch: this.#prefetch,
      maxPrefetch: this.#maxPrefetch,
      bounded: this.#bounded,
      pollIntervalMs: this.#pollIntervalMs,
    });
  }
}
