/**
 * A source that reads a {@linkcode KvLog}, bridging the runtime's
 * synchronous `poll` and Deno KV's asynchronous reads with per-partition
 * buffers filled in the background.
 *
 * @module
 */

import {
  describeValue,
  requireIndex,
  requirePositiveInteger,
} from "../../time/_validate.ts";
import type {
  Source,
  SourceBatch,
  SourceReader,
} from "../../runtime/source.ts";
import { KvLog, type LogRecord } from "./kv_log.ts";
import {
  checkPositionsSnapshot,
  type PositionsSnapshot,
  snapshotPositions,
} from "./_positions.ts";
import { EndReports } from "./_end_reports.ts";

/** Options of a {@linkcode KvLogSource}. */
export interface KvLogSourceOptions {
  /**
   * How many records a background read fetches per partition at most. A
   * partition is refilled when half of it is left, so a reader buffers up
   * to 1.5 times this many records per partition.
   * @default {1024}
   */
  readonly prefetch?: number;
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
 * A {@linkcode SourceReader} that reads in the background: it can be waited
 * on, and must be closed (or finished) before its Deno KV is closed.
 *
 * @typeParam T The record type.
 */
export interface KvLogReader<T> extends SourceReader<T> {
  /**
   * Starts the reads a `poll` would start now, then waits until no read is
   * in flight, so that the next `poll` sees everything they fetched. It
   * never rejects: a failed read is thrown by the next `poll`.
   */
  ready(): Promise<void>;
  /**
   * Stops reading: drops the buffers, starts no read, and waits for the
   * read in flight. `poll` then returns `null`.
   */
  close(): Promise<void>;
}

/**
 * Waits until no source reader among `readers` has a background read in
 * flight; readers without a `ready()` method count as ready. A runtime on
 * a simulated clock calls it before moving time forward, so that a
 * reader's data arrives at the same simulated time in every run.
 *
 * @param readers The readers, any kind.
 * @returns A promise that resolves when they are all ready.
 *
 * @example Waiting for a reader that has nothing to fetch
 * ```ts
 * import { CollectionSource, waitForSources } from "../mod.ts";
 *
 * await waitForSources([new CollectionSource([1]).createReader(0, 1)]);
 * ```
 */
export async function waitForSources(
  readers: Iterable<SourceReader<unknown>>,
): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const reader of readers) {
    const ready = (reader as Partial<KvLogReader<unknown>>).ready;
    if (typeof ready === "function") waits.push(ready.call(reader));
  }
  await Promise.all(waits);
}

/**
 * Reads a {@linkcode KvLog} (Flink's `KafkaSource` in miniature): each log
 * partition is a source partition, read by subtask `p % parallelism`.
 *
 * The runtime polls synchronously while Deno KV reads are asynchronous, so
 * each partition has an in-memory buffer that a read in the background
 * fills. `poll` only takes from the buffers, never waits, and starts a
 * read for every partition whose buffer fell to half of `prefetch` or
 * less (at most one read per partition at a time). No timer exists: reads
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
  readonly #bounded: boolean;
  readonly #pollIntervalMs: number;

  /**
   * Creates a source over `log`.
   *
   * @param log The log to read.
   * @param options Prefetch size, bounded mode and poll interval.
   * @throws {TypeError} If `log` is not a KvLog or `bounded` is not a boolean.
   * @throws {RangeError} If `prefetch` or `pollIntervalMs` is not a
   * positive integer.
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
    this.#pollIntervalMs = requirePositiveInteger(
      options.pollIntervalMs ?? 50,
      { action, param: "pollIntervalMs" },
    );
    const bounded = options.bounded ?? false;
    if (typeof bounded !== "boolean") {
      throw new TypeError(
        `Cannot ${action} as 'bounded' must be a boolean: current value is ${
          describeValue(bounded)
        }`,
      );
    }
    this.#bounded = bounded;
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
    return new LogReader(this.#log, indices, {
      prefetch: this.#prefetch,
      bounded: this.#bounded,
      pollIntervalMs: this.#pollIntervalMs,
    });
  }
}

/** One partition's read position and buffer. */
interface PartitionState<T> {
  // The offset of the next record poll hands out: the snapshot.
  next: number;
  // Buffered records from `next` on start at `values[pos]`.
  values: T[];
  timestamps: number[];
  pos: number;
  // The offset the next read starts at: `next` plus what is buffered.
  fetchFrom: number;
  // Bounded mode: the head seen by the first read; null until then.
  end: number | null;
  fetching: boolean;
  // No read before this processing time (the last read found nothing).
  retryAt: number;
}

class LogReader<T> implements KvLogReader<T> {
  readonly partitions: readonly string[];
  readonly #log: KvLog<T>;
  readonly #indices: readonly number[];
  readonly #prefetch: number;
  readonly #bounded: boolean;
  readonly #pollIntervalMs: number;
  #states: PartitionState<T>[];
  #cursor = 0;
  // The latest processing time seen; reads started by ready() use it.
  #lastNow = -Infinity;
  // Bumped by restore and close: a read of an older generation is dropped.
  #generation = 0;
  #closed = false;
  #failure: { error: unknown } | null = null;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #ends: EndReports;

  constructor(
    log: KvLog<T>,
    indices: readonly number[],
    options: { prefetch: number; bounded: boolean; pollIntervalMs: number },
  ) {
    this.#log = log;
    this.#indices = indices;
    this.#prefetch = options.prefetch;
    this.#bounded = options.bounded;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.partitions = indices.map((p) => `${log.name}-${p}`);
    this.#states = indices.map(() => emptyState<T>(0, null));
    this.#ends = new EndReports(indices.length, (p) => this.#ended(p));
  }

  #ended(p: number): boolean {
    const s = this.#states[p];
    return this.#bounded && s.end !== null && s.next >= s.end;
  }

  get finished(): boolean {
    return this.#bounded &&
      this.#states.every((s) => s.end !== null && s.next >= s.end);
  }

  poll(now: number, maxRecords: number): SourceBatch<T> | null {
    this.#lastNow = now;
    if (this.#closed) return null;
    if (this.#failure !== null) throw this.#failure.error;
    // An end found by a read with nothing left to hand out, or known
    // before a restore, goes first, alone.
    const unreported = this.#ends.nextUnreported();
    if (unreported >= 0) return this.#ends.endOnly(unreported);
    const n = this.#states.length;
    let batch: SourceBatch<T> | null = null;
    for (let i = 0; i < n && batch === null; i++) {
      const p = (this.#cursor + i) % n;
      const s = this.#states[p];
      const count = Math.min(s.values.length - s.pos, maxRecords);
      if (count <= 0) continue;
      const values = s.values.slice(s.pos, s.pos + count);
      const timestamps = s.timestamps.slice(s.pos, s.pos + count);
      s.pos += count;
      s.next += count;
      if (s.pos === s.values.length) {
        s.values = [];
        s.timestamps = [];
        s.pos = 0;
      }
      this.#cursor = (p + 1) % n;
      batch = this.#ends.reportWith({ partition: p, values, timestamps });
    }
    this.#refill();
    return batch;
  }

  nextAvailableAt(now: number): number {
    this.#lastNow = now;
    if (this.#closed) return Infinity;
    if (this.#failure !== null) return now;
    if (this.#ends.nextUnreported() >= 0) return now;
    this.#refill();
    let next = Infinity;
    for (const s of this.#states) {
      if (s.values.length > s.pos) return now;
      if (s.end !== null && s.next >= s.end) continue;
      const at = s.fetching
        ? now + this.#pollIntervalMs
        : Math.max(s.retryAt, now);
      next = Math.min(next, at);
    }
    return next;
  }

  async ready(): Promise<void> {
    this.#refill();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#generation++;
    this.#states = this.#states.map((s) => emptyState<T>(s.next, s.end));
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  snapshotState(): PositionsSnapshot {
    return snapshotPositions(
      this.partitions,
      this.#states.map((s) => s.next),
      this.#cursor,
    );
  }

  restoreState(state: unknown): void {
    const { positions, cursor } = checkPositionsSnapshot(state, {
      action: "restore a reader of KvLogSource",
      partitions: this.partitions,
      // A log has no end: any offset is a position to resume at.
      lengths: this.partitions.map(() => Infinity),
    });
    this.#generation++;
    this.#failure = null;
    this.#cursor = cursor;
    this.#states = positions.map((offset, p) =>
      emptyState<T>(offset, this.#states[p].end)
    );
    this.#ends.reset();
  }

  /** Starts a read for each partition whose buffer runs low. */
  #refill(): void {
    if (this.#closed || this.#failure !== null) return;
    const low = this.#prefetch / 2;
    this.#states.forEach((s, p) => {
      if (
        s.fetching || s.values.length - s.pos > low ||
        (s.end !== null && s.fetchFrom >= s.end) || this.#lastNow < s.retryAt
      ) return;
      this.#fetch(s, this.#indices[p]);
    });
  }

  #fetch(s: PartitionState<T>, partition: number): void {
    s.fetching = true;
    const generation = this.#generation;
    const from = s.fetchFrom;
    const startedAt = this.#lastNow;
    const read = async (): Promise<[number | null, LogRecord<T>[]]> => {
      const end = s.end ??
        (this.#bounded ? await this.#log.head(partition) : null);
      const max = end === null ? this.#prefetch : Math.min(
        this.#prefetch,
        end - from,
      );
      return [end, max > 0 ? await this.#log.read(partition, from, max) : []];
    };
    const done = read().then(([end, records]) => {
      if (generation !== this.#generation) return;
      s.end = end;
      if (records.length === 0) {
        s.retryAt = startedAt + this.#pollIntervalMs;
        return;
      }
      s.retryAt = -Infinity;
      s.values = s.values.slice(s.pos);
      s.timestamps = s.timestamps.slice(s.pos);
      s.pos = 0;
      for (const record of records) {
        s.values.push(record.value);
        s.timestamps.push(record.timestamp);
      }
      s.fetchFrom = from + records.length;
    }, (error: unknown) => {
      if (generation === this.#generation) this.#failure = { error };
    }).finally(() => {
      s.fetching = false;
      this.#inFlight.delete(done);
    });
    this.#inFlight.add(done);
  }
}

function emptyState<T>(offset: number, end: number | null): PartitionState<T> {
  return {
    next: offset,
    values: [],
    timestamps: [],
    pos: 0,
    fetchFrom: offset,
    end,
    fetching: false,
    retryAt: -Infinity,
  };
}
