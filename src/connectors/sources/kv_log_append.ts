/**
 * The vocabulary of `KvLog`: its options, what an append takes, where it
 * lands, an id that makes an append happen once, and how a lost race is
 * retried.
 *
 * @module
 */

import type { Clock } from "../../time/clock.ts";

/** Options of a `KvLog`. */
export interface KvLogOptions {
  /**
   * How many partitions the log has, numbered from 0. Every process that
   * opens the log must pass the same number: it is not stored.
   */
  readonly partitions: number;
  /**
   * How an append retries when it loses the race to an appender elsewhere
   * (another process, or another `Deno.Kv` handle on the same database)
   * or Deno KV fails it for a passing reason (SQLite's lock, a timeout);
   * the same for each of its part commits and reads, and for `recall`.
   * Appends through one handle take turns and never race each other.
   * @default {{ attempts: 10, baseMs: 10, maxMs: 1000 }}
   */
  readonly retry?: KvLogRetryOptions;
  /**
   * The time, for the age of an append's unpublished parts: a sweep
   * collects those over an hour old.
   * @default {new SystemClock()}
   */
  readonly clock?: Clock;
}

/** How a `KvLog` append retries: exponential backoff, full jitter. */
export interface KvLogRetryOptions {
  /**
   * Attempts in all, the first included, before the append gives up.
   * @default {10}
   */
  readonly attempts?: number;
  /**
   * The wait before attempt n + 1 is a random time up to `baseMs * 2^n`.
   * @default {10}
   */
  readonly baseMs?: number;
  /**
   * The longest wait between two attempts, in milliseconds.
   * @default {1000}
   */
  readonly maxMs?: number;
  /**
   * Waits `ms` milliseconds; tests inject one that does not.
   * @default {setTimeout}
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * A number in [0, 1), for the jitter.
   * @default {Math.random}
   */
  readonly random?: () => number;
}

/** One record to append: a value and its event timestamp. */
export interface AppendRecord<T> {
  /** The record: anything superjson serialises. */
  readonly value: T;
  /** Its event timestamp in epoch milliseconds: a safe integer. */
  readonly timestamp: number;
}

/** One record read back, with its place in the partition. */
export interface LogRecord<T> extends AppendRecord<T> {
  /** Its offset in the partition, from 0. */
  readonly offset: number;
}

/** Where an append landed: offsets `firstOffset` to `lastOffset`, inclusive. */
export interface AppendResult {
  /** The offset of the first appended record. */
  readonly firstOffset: number;
  /**
   * The offset of the last appended record; `firstOffset - 1` for an
   * empty append.
   */
  readonly lastOffset: number;
}

/** One partition's records, for `KvLog.appendAll`. */
export interface PartitionRecords<T> {
  /** The partition, from 0. */
  readonly partition: number;
  /** Its records, in order. */
  readonly records: ReadonlyArray<AppendRecord<T>>;
}

/** Where one partition's records of an append landed. */
export interface PartitionOffsets extends AppendResult {
  /** The partition. */
  readonly partition: number;
}

/**
 * An id that makes an append happen at most once while the id is kept
 * (Kafka's idempotent producer, or an HTTP `Idempotency-Key`).
 */
export interface AppendOnce {
  /** The id: a non-empty string of at most 1024 bytes in UTF-8. */
  readonly id: string;
  /**
   * How long the id is kept, in milliseconds (Deno KV's `expireIn`: it is
   * deleted at the earliest then, and may stay visible a while longer).
   */
  readonly expireInMs: number;
  /**
   * What to keep with the id, given where the records landed (e.g. a
   * digest of the request and its answer): JSON of at most 60 KiB, handed
   * back to a repeat.
   * @default {() => null}
   */
  readonly memo?: (offsets: readonly PartitionOffsets[]) => unknown;
}

/** Options of `KvLog.appendAll`. */
export interface AppendAllOptions {
  /**
   * Makes the append idempotent: it happens only if `once.id` is not kept
   * yet, and the id is written in the same commit as the records.
   * @default {undefined}
   */
  readonly once?: AppendOnce;
}

/** What `KvLog.appendAll` did. */
export type AppendAllResult =
  | {
    /** The records were appended. */
    readonly duplicate: false;
    /** Per partition asked for, in that order, where its records went. */
    readonly offsets: readonly PartitionOffsets[];
  }
  | {
    /** An append with the same `once.id` came first: nothing was appended. */
    readonly duplicate: true;
    /** The memo that append kept. */
    readonly memo: unknown;
  };
