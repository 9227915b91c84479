/**
 * A durable, partitioned, append-only log in Deno KV: what an ingest
 * endpoint appends to and a {@linkcode KvLogSource} reads.
 *
 * @module
 */

import {
  describeValue,
  requireIndex,
  requireNonNegativeInteger,
  requirePositiveInteger,
  requireSafeInteger,
} from "../../time/_validate.ts";
import { AtomicConflictError } from "../../actors/kv/kv_storage.ts";
import {
  batchBody,
  batchHeader,
  batchValue,
  batchValueBytes,
  commitAll,
  CommitCost,
  decodeBatch,
  type EncodedBatch,
  HEADER_BYTES,
  type Key,
  KV_LIMITS,
  type KvWrite,
  packBatches,
  TAG_BATCH,
  TAG_MANIFEST,
} from "../_kv_batches.ts";
import { requireKv, requireName } from "../_kv_checks.ts";

/** Options of a {@linkcode KvLog}. */
export interface KvLogOptions {
  /**
   * How many partitions the log has, numbered from 0. Every process that
   * opens the log must pass the same number: it is not stored.
   */
  readonly partitions: number;
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

// An append that loses the race for the head this often gives up.
const MAX_ATTEMPTS = 100;
// A manifest's value is at most this: header and `{"id","from","parts"}`.
const MANIFEST_BYTES = HEADER_BYTES + 96;

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
 * An append is all-or-nothing: readers see all of its records or none.
 * One commit checks the head's versionstamp, advances it and writes the
 * batches, so concurrent appenders (other processes too) never get the same
 * offsets: the loser reads the head again and retries. An append too large
 * for one commit (over about 780 KiB encoded) first writes its batches as
 * invisible parts under a random id, in as many commits as needed; the
 * final commit then writes small pointers to them with the head. A record
 * over 64 KiB is stored the same way. So an append is refused, with a
 * `RangeError`, only beyond 999 batches (about 60 MiB). A crash or an error
 * between the parts and the final commit leaves only unreachable parts.
 *
 * Costs: an append is one read of the head (cached after the first append
 * of this instance) and one commit, plus the part commits of a large
 * append. A read is one or two `list` calls and parses whole batches.
 * Nothing is ever deleted: the log grows until its keys are removed.
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
  readonly #base: readonly string[];
  // The last head this instance read or wrote, per partition.
  readonly #heads = new Map<number, Head>();

  /**
   * Opens the log `name` in `kv`; it does not touch KV yet.
   *
   * @param kv An open Deno KV database; the caller closes it.
   * @param name The log's name: a non-empty string of at most 1024 bytes.
   * @param options The number of partitions.
   * @throws {TypeError} If `kv` is not a Deno.Kv or `name` is not a string.
   * @throws {RangeError} If `name` is empty or too long, or `partitions` is
   * not a positive integer.
   */
  constructor(kv: Deno.Kv, name: string, options: KvLogOptions) {
    const action = "create KvLog";
    this.#kv = requireKv(kv, action);
    this.name = requireName(name, action, "name");
    this.#partitions = requirePositiveInteger(options?.partitions, {
      action,
      param: "options.partitions",
    });
    this.#base = ["weir", "log", name];
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
   * a safe integer, or the records need more than 999 batches.
   * @throws {AtomicConflictError} If 100 attempts in a row lost the race
   * for the head to other appenders.
   */
  async append(
    partition: number,
    records: ReadonlyArray<AppendRecord<T>>,
  ): Promise<AppendResult> {
    const action = "append to KvLog";
    requireIndex(partition, this.#partitions, { action, param: "partition" });
    if (!Array.isArray(records)) {
      throw new TypeError(
        `Cannot ${action} as 'records' must be an array of { value, timestamp }: current value is ${
          describeValue(records)
        }`,
      );
    }
    const values = new Array<T>(records.length);
    const timestamps = new Array<number>(records.length);
    records.forEach((record, i) => {
      if (typeof record !== "object" || record === null) {
        throw new TypeError(
          `Cannot ${action} as 'records[${i}]' must be { value, timestamp }: current value is ${
            describeValue(record)
          }`,
        );
      }
      values[i] = record.value;
      timestamps[i] = requireSafeInteger(record.timestamp, {
        action,
        param: `records[${i}].timestamp`,
      });
    });
    if (records.length === 0) {
      const head = await this.head(partition);
      return { firstOffset: head, lastOffset: head - 1 };
    }
    const plan = this.#plan(
      partition,
      packBatches(values, timestamps, KV_LIMITS.valueBytes),
    );
    try {
      if (plan.parts.length > 0) await commitAll(this.#kv, plan.parts);
      return await this.#publish(partition, plan.entries);
    } catch (error) {
      if (plan.parts.length > 0) await this.#dropParts(plan.parts);
      throw error;
    }
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
    return (await this.#readHead(partition)).offset;
  }

  /**
   * Reads up to `max` records of a partition from `fromOffset` on, in
   * offset order. Fewer (or none) come back when the partition ends
   * earlier; every record returned was appended by a completed append.
   *
   * @param partition The partition, from 0.
   * @param fromOffset The offset of the first record to read.
   * @param max The most records to return: a positive integer.
   * @returns The records with their offsets.
   * @throws {RangeError} If `partition` is out of range, `fromOffset` is
   * negative or `max` is not positive.
   * @throws {TypeError} If an entry was not written by `KvLog`.
   */
  async read(
    partition: number,
    fromOffset: number,
    max: number,
  ): Promise<LogRecord<T>[]> {
    const action = "read KvLog";
    requireIndex(partition, this.#partitions, { action, param: "partition" });
    requireNonNegativeInteger(fromOffset, { action, param: "fromOffset" });
    requirePositiveInteger(max, { action, param: "max" });
    const prefix = [...this.#base, partition];
    const out: LogRecord<T>[] = [];
    const batchSize = Math.min(16, Math.max(2, Math.ceil(max / 256)));
    const entries = this.#kv.list<unknown>(
      { prefix, start: [...prefix, fromOffset] },
      { batchSize },
    );
    let step = await entries.next();
    if (step.done || step.value.key.at(-1) !== fromOffset) {
      // `fromOffset` may lie inside a batch that starts earlier (a reader
      // restored in the middle of one), or at the head.
      const previous = this.#kv.list<unknown>(
        { prefix, end: [...prefix, fromOffset] },
        { reverse: true, limit: 1 },
      );
      for await (const entry of previous) {
        await this.#take(partition, entry, fromOffset, max, out);
      }
    }
    while (!step.done && out.length < max) {
      await this.#take(partition, step.value, fromOffset, max, out);
      if (out.length >= max) break;
      step = await entries.next();
    }
    return out;
  }

  /** Adds the records of one stored batch at or after `from` to `out`. */
  async #take(
    partition: number,
    entry: Deno.KvEntry<unknown>,
    from: number,
    max: number,
    out: LogRecord<T>[],
  ): Promise<void> {
    const first = entry.key.at(-1) as number;
    const header = batchHeader(entry.value);
    if (header === null) {
      throw new TypeError(
        `Cannot read KvLog '${this.name}' as the entry at offset ${first} of partition ${partition} must be a batch written by KvLog: current value is ${
          describeValue(entry.value)
        }`,
      );
    }
    const skip = Math.max(0, from - first);
    if (skip >= header.count) return;
    const raw = header.tag === TAG_BATCH
      ? entry.value as Uint8Array
      : await this.#assemble(partition, entry.value as Uint8Array, first);
    const take = Math.min(header.count - skip, max - out.length);
    const { values, timestamps } = decodeBatch<T>(raw, skip, skip + take);
    for (let i = 0; i < values.length; i++) {
      out.push({
        offset: first + skip + i,
        value: values[i],
        timestamp: timestamps[i],
      });
    }
  }

  /** Reads the parts a manifest points at and joins them into one batch value. */
  async #assemble(
    partition: number,
    manifest: Uint8Array,
    first: number,
  ): Promise<Uint8Array> {
    const { id, from, parts } = JSON.parse(batchBody(manifest)) as Manifest;
    const keys = Array.from(
      { length: parts },
      (_, i) => this.#partKey(partition, id, from + i),
    );
    const groups: Promise<Deno.KvEntryMaybe<unknown>[]>[] = [];
    for (let i = 0; i < keys.length; i += KV_LIMITS.getMany) {
      groups.push(this.#kv.getMany(keys.slice(i, i + KV_LIMITS.getMany)));
    }
    const chunks = (await Promise.all(groups)).flat().map((entry, i) => {
      if (!(entry.value instanceof Uint8Array)) {
        throw new TypeError(
          `Cannot read KvLog '${this.name}' as part ${i} of the batch at offset ${first} of partition ${partition} must exist: current value is ${
            describeValue(entry.value)
          }`,
        );
      }
      return entry.value;
    });
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  /**
   * Decides which batches are stored inline in the final commit and which
   * as parts written ahead of it (the largest first, until it fits).
   */
  #plan(partition: number, batches: EncodedBatch[]): Plan {
    const headKey = this.#headKey(partition);
    // An offset encodes to 9 bytes whatever its value: any one sizes keys.
    const entryKey = [...this.#base, partition, 0];
    const sizes = batches.map(batchValueBytes);
    const inline = sizes.map((size) => size <= KV_LIMITS.valueBytes);
    const cost = new CommitCost();
    cost.addCheck(headKey);
    cost.addSet(headKey, 16);
    sizes.forEach((size, i) =>
      cost.addSet(entryKey, inline[i] ? size : MANIFEST_BYTES)
    );
    const bySize = sizes.map((_, i) => i).filter((i) => inline[i])
      .sort((a, b) => sizes[b] - sizes[a]);
    for (const i of bySize) {
      if (cost.fits()) break;
      inline[i] = false;
      cost.payload -= sizes[i] - MANIFEST_BYTES;
    }
    if (!cost.fits()) {
      throw new RangeError(
        `Cannot append to KvLog as 'records' must fit one Deno KV commit of at most ${KV_LIMITS.mutations} mutations and ${KV_LIMITS.keyTotalBytes} bytes of keys (${
          KV_LIMITS.mutations - 1
        } batches of up to 64 KiB): current value is ${sizes.length} batches; split the append`,
      );
    }
    const stageId = crypto.randomUUID();
    const parts: KvWrite[] = [];
    const entries = batches.map((batch, i): PlannedEntry => {
      const value = batchValue(batch);
      if (inline[i]) return { count: batch.count, value };
      const from = parts.length;
      for (let at = 0; at < value.length; at += KV_LIMITS.valueBytes) {
        parts.push({
          key: this.#partKey(partition, stageId, parts.length),
          value: value.subarray(at, at + KV_LIMITS.valueBytes),
        });
      }
      const manifest: Manifest = {
        id: stageId,
        from,
        parts: parts.length - from,
      };
      return {
        count: batch.count,
        value: batchValue(
          { count: batch.count, text: JSON.stringify(manifest) },
          TAG_MANIFEST,
        ),
      };
    });
    return { entries, parts };
  }

  /** The final commit: checks and advances the head, writes the entries. */
  async #publish(
    partition: number,
    entries: readonly PlannedEntry[],
  ): Promise<AppendResult> {
    const headKey = this.#headKey(partition);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const head = this.#heads.get(partition) ??
        await this.#readHead(partition);
      const op = this.#kv.atomic().check({
        key: headKey,
        versionstamp: head.versionstamp,
      });
      let offset = head.offset;
      for (const entry of entries) {
        op.set([...this.#base, partition, offset], entry.value);
        offset += entry.count;
      }
      op.set(headKey, offset);
      const result = await op.commit();
      if (result.ok) {
        this.#heads.set(partition, {
          offset,
          versionstamp: result.versionstamp,
        });
        return { firstOffset: head.offset, lastOffset: offset - 1 };
      }
      // Another appender moved the head: read it again.
      this.#heads.delete(partition);
    }
    throw new AtomicConflictError(
      `Cannot append to KvLog '${this.name}' partition ${partition} as its head kept moving: ${MAX_ATTEMPTS} attempts lost the race to other appenders`,
    );
  }

  async #readHead(partition: number): Promise<Head> {
    const entry = await this.#kv.get<unknown>(this.#headKey(partition));
    if (entry.value !== null && !Number.isSafeInteger(entry.value)) {
      throw new TypeError(
        `Cannot read the head of KvLog '${this.name}' partition ${partition} as it must be an offset written by KvLog: current value is ${
          describeValue(entry.value)
        }`,
      );
    }
    const head = {
      offset: (entry.value as number | null) ?? 0,
      versionstamp: entry.versionstamp,
    };
    this.#heads.set(partition, head);
    return head;
  }

  /** Deletes the parts of a failed append; they are unreachable anyway. */
  async #dropParts(parts: readonly KvWrite[]): Promise<void> {
    try {
      await commitAll(
        this.#kv,
        parts.map((part) => ({ key: part.key, value: null })),
      );
    } catch {
      // The KV may be closed or failing: the parts stay, unreachable.
    }
  }

  #headKey(partition: number): Key {
    return [...this.#base, "head", partition];
  }

  #partKey(partition: number, id: string, index: number): Key {
    return [...this.#base, "part", partition, id, index];
  }
}

/** A head offset and the versionstamp it was read at (`null`: no entry). */
interface Head {
  readonly offset: number;
  readonly versionstamp: string | null;
}

/** Where the parts of a batch stored out of line are. */
interface Manifest {
  readonly id: string;
  readonly from: number;
  readonly parts: number;
}

/** A batch as the final commit writes it: inline, or a manifest. */
interface PlannedEntry {
  readonly count: number;
  readonly value: Uint8Array;
}

/** The entries of the final commit and the parts written before it. */
interface Plan {
  readonly entries: PlannedEntry[];
  readonly parts: KvWrite[];
}
