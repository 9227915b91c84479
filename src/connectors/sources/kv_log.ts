/**
 * A durable, partitioned, append-only log in Deno KV: what an ingest
 * endpoint appends to and a {@linkcode KvLogSource} reads.
 *
 * @module
 */

import {
  requireIndex,
  requireNonNegativeInteger,
  requirePositiveInteger,
} from "../../time/validate.ts";
import { SystemClock } from "../../time/clock.ts";
import { requireKv, requireName } from "../_kv_checks.ts";
import { LogKeys } from "./_kv_log_plan.ts";
import { readCount } from "./_kv_log_commit.ts";
import { checkOnce } from "./_kv_log_once.ts";
import { LogAppender } from "./_kv_log_appender.ts";
import { readRecords } from "./_kv_log_read.ts";
import { checkRecords, packAppends } from "./_kv_log_records.ts";
import { checkRetry } from "./_kv_log_retry.ts";
import type {
  AppendAllOptions,
  AppendAllResult,
  AppendRecord,
  AppendResult,
  KvLogOptions,
  LogRecord,
  PartitionRecords,
} from "./kv_log_append.ts";

export type {
  AppendAllOptions,
  AppendAllResult,
  AppendOnce,
  AppendRecord,
  AppendResult,
  KvLogOptions,
  KvLogRetryOptions,
  LogRecord,
  PartitionOffsets,
  PartitionRecords,
} from "./kv_log_append.ts";

/**
 * A partitioned, append-only log in Deno KV (a Kafka topic in miniature).
 *
 * Each partition numbers its records from offset 0 without gaps. Records
 * are stored many to a value, as batches of at most 64 KiB keyed by their
 * first offset, `["weir", "log", name, partition, firstOffset]`, next to a
 * head entry `["weir", "log", name, "head", partition]` holding the next
 * offset. Values go through superjson, so `Map`, `Set`, `Date` and
 * `bigint` survive; timestamps must be safe integers.
 *
 * An append, to one partition or to several ({@linkcode KvLog.appendAll}),
 * is all-or-nothing: readers see all of its records or none, whatever the
 * caller was told. Its records, its heads and a bump of the log's sequence
 * key `["weir", "log", name, "seq"]` are ONE commit that checks the
 * sequence key, so concurrent appenders (other processes too) never get
 * the same offsets: every append bumps it, so one check covers every
 * partition within Deno KV's limit of 10 checks. Appends through one
 * `Deno.Kv` handle take turns in the process; one that loses the race to
 * an appender elsewhere, or that Deno KV fails for a passing reason
 * (SQLite's lock), reads the heads again and retries after a random wait
 * (exponential backoff, full jitter; see `options.retry`), and gives up
 * with an `AtomicConflictError` having appended nothing.
 *
 * A commit that throws may still have landed (a remote database's
 * timeout loses the answer, not the commit). So the final commit also
 * writes the append's random id, `["weir", "log", name, "append", id]`
 * (kept 10 minutes), checked absent: at most one attempt lands, and after
 * a failure one read tells whether one did. An append whose commit landed
 * answers as appended, whatever the error; one that gives up writes the id
 * itself first, so no attempt still in flight lands after it said nothing
 * was appended. If Deno KV stops answering before that can be known, the
 * append throws a `PersistentKvError`: it may have happened.
 *
 * An append too large for one commit (over about 780 KiB encoded) first
 * writes a pending record `["weir", "log", name, "pending", id]`, then
 * its batches as invisible parts, in as many commits as needed; the final
 * commit then writes small pointers to them with the heads and deletes
 * the record. A record over 64 KiB is stored the same way. So an append
 * is refused, with a `RangeError`, only beyond about 990 batches (about
 * 60 MiB). An append that fails deletes its parts; if that fails too, or
 * the process dies first, a later append's sweep (at an instance's first
 * append, then at most every 10 minutes) collects parts pending for over
 * an hour. The final commit checks the record, so parts being collected
 * are never published.
 *
 * An append may carry an id (`once`): it then happens only if the id is
 * not kept yet, and the id (with a memo) is kept, for a time, by the same
 * commit, under `["weir", "log", name, "once", id]`.
 *
 * Costs: an append is one read of the sequence key and the heads it
 * touches (cached after the first append of this instance) and one
 * commit, plus the pending record's and the part commits of a large
 * append, and one `list` of pending records per sweep. A read is one or
 * two `list` calls and parses whole batches. Nothing is ever deleted but
 * expired ids and unpublished parts: the log grows until its keys are
 * removed.
 *
 * @typeParam T The record type.
 *
 * @example Appending and reading back
 * ```ts
 * import { KvLog } from "./kv_log.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const log = new KvLog<string>(kv, "clicks", { partitions: 2 });
 * const { firstOffset, lastOffset } = await log.append(1, [
 *   { value: "a", timestamp: 1_000 },
 *   { value: "b", timestamp: 2_000 },
 * ]);
 * assert.deepEqual([firstOffset, lastOffset], [0, 1]);
 * assert.equal(await log.head(1), 2);
 * const records = await log.read(1, 1, 10);
 * assert.deepEqual(records, [{ offset: 1, value: "b", timestamp: 2_000 }]);
 * kv.close();
 * ```
 */
export class KvLog<T> {
  /** The log's name, as in its keys. */
  readonly name: string;
  readonly #kv: Deno.Kv;
  readonly #partitions: number;
  readonly #keys: LogKeys;
  readonly #appender: LogAppender;

  /**
   * Opens the log `name` in `kv`; it does not touch KV yet.
   *
   * @param kv An open Deno KV database; the caller closes it.
   * @param name The log's name: a non-empty string of at most 1024 bytes.
   * @param options The number of partitions, and how appends retry.
   * @throws {TypeError} If `kv` is not a Deno.Kv or `name` is not a string.
   * @throws {RangeError} If `name` is empty or too long, `partitions` is
   * not a positive integer, or a retry option is out of range.
   */
  constructor(kv: Deno.Kv, name: string, options: KvLogOptions) {
    const action = "create KvLog";
    this.#kv = requireKv(kv, action);
    this.name = requireName(name, action, "name");
    this.#partitions = requirePositiveInteger(options?.partitions, {
      action,
      param: "options.partitions",
    });
    this.#keys = new LogKeys(name);
    this.#appender = new LogAppender(kv, {
      name,
      keys: this.#keys,
      retry: checkRetry(options.retry, action),
      clock: options.clock ?? new SystemClock(),
    });
  }

  /** The number of partitions. */
  get numPartitions(): number {
    return this.#partitions;
  }

  /**
   * Appends records to one partition, all-or-nothing, at the next offsets.
   *
   * @param partition The partition, from 0.
   * @param records The records, in order; may be empty.
   * @returns The offsets the records got.
   * @throws {TypeError} If `records` is not an array of `{ value, timestamp }`
   * or a timestamp is not a number.
   * @throws {RangeError} If `partition` is out of range, a timestamp is not
   * a safe integer, or the records need more than about 990 batches.
   * @throws {AtomicConflictError} If every attempt lost the race to other
   * appenders or failed for a passing reason (nothing was appended).
   * @throws {PersistentKvError} If a commit failed without an answer and
   * Deno KV then kept failing: the records may have been appended.
   */
  async append(
    partition: number,
    records: ReadonlyArray<AppendRecord<T>>,
  ): Promise<AppendResult> {
    const action = "append to KvLog";
    requireIndex(partition, this.#partitions, { action, param: "partition" });
    checkRecords(records, action, "records");
    if (records.length === 0) {
      const head = await this.head(partition);
      return { firstOffset: head, lastOffset: head - 1 };
    }
    const result = await this.appendAll([{ partition, records }]);
    if (result.duplicate) {
      throw unexpected("an append without 'once' reported a duplicate");
    }
    const [{ firstOffset, lastOffset }] = result.offsets;
    return { firstOffset, lastOffset };
  }

  /**
   * Appends records to any of the partitions in ONE commit: readers see all
   * of them, in every partition, or none, whatever the caller was told.
   *
   * With `options.once`, the append happens only if `once.id` is not kept
   * yet; the id and its memo are kept by the same commit, so a crash never
   * leaves the records without the id or the id without the records. An
   * append whose id is kept already appends nothing and returns that
   * append's memo (also when the two raced from different processes).
   *
   * @param appends Per partition, its records; partitions distinct, in any
   * order; a partition with no records is reported at its head.
   * @param options An id that makes the append happen at most once.
   * @returns Where each partition's records went, or the memo of the
   * append that came first with the same id.
   * @throws {TypeError} If an argument has the wrong type.
   * @throws {RangeError} If a partition is out of range or repeats, a
   * timestamp is not a safe integer, the records need more than one commit
   * can point at, `once.id` is empty or over 1024 bytes, `once.expireInMs`
   * is not a positive integer, or the memo is over 60 KiB.
   * @throws {AtomicConflictError} If every attempt lost the race to other
   * appenders or failed for a passing reason (nothing was appended).
   * @throws {PersistentKvError} If a commit failed without an answer and
   * Deno KV then kept failing: the records may have been appended.
   */
  async appendAll(
    appends: ReadonlyArray<PartitionRecords<T>>,
    options: AppendAllOptions = {},
  ): Promise<AppendAllResult> {
    const action = "append to KvLog";
    const { groups, partitions } = packAppends(
      appends,
      this.#partitions,
      action,
    );
    const once = options.once === undefined
      ? undefined
      : checkOnce(options.once, action);
    return await this.#appender.append(groups, partitions, once);
  }

  /**
   * Reads what an append with `once.id` kept, while the id is kept.
   *
   * @param id The append's id.
   * @returns The memo it kept, or `null` if no append with the id is kept.
   * @throws {RangeError} If `id` is empty or over 1024 bytes.
   * @throws {TypeError} If the entry was not written by `KvLog`.
   * @throws {PersistentKvError} If Deno KV kept failing for a passing
   * reason (the read is retried as `options.retry` says).
   */
  async recall(id: string): Promise<{ memo: unknown } | null> {
    requireName(id, "recall an append of KvLog", "id");
    return await this.#appender.recall(id);
  }

  /**
   * Reads the head of a partition: the offset the next append gets, which
   * is also the number of records in it.
   *
   * @param partition The partition, from 0.
   * @returns The head offset; 0 for an empty partition.
   * @throws {RangeError} If `partition` is out of range.
   * @throws {TypeError} If the head entry was not written by `KvLog`.
   */
  async head(partition: number): Promise<number> {
    requireIndex(partition, this.#partitions, {
      action: "read the head of KvLog",
      param: "partition",
    });
    const entry = await this.#kv.get<unknown>(
      this.#keys.head(partition) as Deno.KvKey,
    );
    return readCount(
      entry.value,
      `the head of KvLog '${this.name}' partition ${partition}`,
    );
  }

  /**
   * Reads up to `max` records of a partition from `fromOffset` on, in
   * offset order. Fewer (or none) come back when the partition ends
   * earlier; every record returned was appended by a completed append.
   *
   * @param partition The partition, from 0.
   * @param fromOffset The offset of the first record to read.
   * @param max The most records to return: a positive integer.
   * @param options `wholeBatches`: read the last stored batch taken from
   * to its end, so that up to one batch (64 KiB encoded) more than `max`
   * comes back and a read from the next offset starts at a batch: one
   * `list` call instead of two (false by default).
   * @returns The records with their offsets.
   * @throws {RangeError} If `partition` is out of range, `fromOffset` is
   * negative or `max` is not positive.
   * @throws {TypeError} If an entry was not written by `KvLog`.
   */
  async read(
    partition: number,
    fromOffset: number,
    max: number,
    options: { readonly wholeBatches?: boolean } = {},
  ): Promise<LogRecord<T>[]> {
    const action = "read KvLog";
    requireIndex(partition, this.#partitions, { action, param: "partition" });
    requireNonNegativeInteger(fromOffset, { action, param: "fromOffset" });
    requirePositiveInteger(max, { action, param: "max" });
    return await readRecords<T>(
      this.#kv,
      { name: this.name, keys: this.#keys, partition },
      fromOffset,
      { max, wholeBatches: options.wholeBatches === true },
    );
  }
}

// An impossible state, named.
function unexpected(state: string): Error {
  return new Error(`Cannot go on in KvLog as ${state}: this is a bug`);
}
