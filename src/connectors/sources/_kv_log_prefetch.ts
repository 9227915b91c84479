// How a KvLogSource reader bridges the runtime's synchronous `poll` and
// Deno KV's asynchronous reads: per-partition buffers that reads in the
// background fill, started only from `poll`, `nextAvailableAt` and
// `ready` (no timer), and dropped by a restore or a close. Each
// partition's read size follows its round trip (`_kv_log_read_size.ts`).

import type { SourceBatch } from "../../runtime/source.ts";
import type { KvLog, LogRecord } from "./kv_log.ts";
import type { KvLogReader } from "./kv_log_reader.ts";
import {
  checkPositionsSnapshot,
  type PositionsSnapshot,
  snapshotPositions,
} from "./_positions.ts";
import { EndReports } from "./_end_reports.ts";
import { nextReadSize, type ReadSizeBounds } from "./_kv_log_read_size.ts";

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
  // The next read's size, and whether the consumer found the buffer empty
  // while the read in flight was out.
  size: number;
  starved: boolean;
  // No read before this processing time (the last read found nothing).
  retryAt: number;
}

/** The reader of some partitions of a log, with background reads. */
export class PrefetchReader<T> implements KvLogReader<T> {
  readonly partitions: readonly string[];
  readonly #log: KvLog<T>;
  readonly #indices: readonly number[];
  readonly #sizes: ReadSizeBounds;
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
    options: {
      prefetch: number;
      maxPrefetch: number;
      bounded: boolean;
      pollIntervalMs: number;
    },
  ) {
    this.#log = log;
    this.#indices = indices;
    this.#sizes = { min: options.prefetch, max: options.maxPrefetch };
    this.#bounded = options.bounded;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.partitions = indices.map((p) => `${log.name}-${p}`);
    this.#states = indices.map(() => emptyState<T>(0, null, options.prefetch));
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
    this.#noteWaits();
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
    this.#noteWaits();
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
    this.#noteWaits();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#generation++;
    this.#states = this.#states.map((s) =>
      emptyState<T>(s.next, s.end, s.size)
    );
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
    // The sizes learnt stay: the round trip did not change.
    this.#states = positions.map((offset, p) =>
      emptyState<T>(offset, this.#states[p].end, this.#states[p].size)
    );
    this.#ends.reset();
  }

  /** Marks the reads in flight that the consumer now waits for. */
  #noteWaits(): void {
    for (const s of this.#states) {
      if (s.fetching && s.values.length === s.pos) s.starved = true;
    }
  }

  /** Starts a read for each partition whose buffer runs low. */
  #refill(): void {
    if (this.#closed || this.#failure !== null) return;
    this.#states.forEach((s, p) => {
      if (
        s.fetching || s.values.length - s.pos > s.size / 2 ||
        (s.end !== null && s.fetchFrom >= s.end) || this.#lastNow < s.retryAt
      ) return;
      this.#fetch(s, this.#indices[p]);
    });
  }

  #fetch(s: PartitionState<T>, partition: number): void {
    s.fetching = true;
    s.starved = false;
    const generation = this.#generation;
    const from = s.fetchFrom;
    const startedAt = this.#lastNow;
    const heldAtStart = s.values.length - s.pos;
    let asked = 0;
    const read = async (): Promise<[number | null, LogRecord<T>[]]> => {
      const end = s.end ??
        (this.#bounded ? await this.#log.head(partition) : null);
      asked = end === null ? s.size : Math.min(s.size, end - from);
      return [
        end,
        // Whole batches: the next read starts at a batch, one list call.
        asked > 0
          ? await this.#log.read(partition, from, asked, { wholeBatches: true })
          : [],
      ];
    };
    const done = read().then(([end, records]) => {
      if (generation !== this.#generation) return;
      s.size = nextReadSize(s.size, {
        asked,
        got: records.length,
        starved: s.starved,
        heldAtStart,
        leftAtLanding: s.values.length - s.pos,
      }, this.#sizes);
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

function emptyState<T>(
  offset: number,
  end: number | null,
  size: number,
): PartitionState<T> {
  return {
    next: offset,
    values: [],
    timestamps: [],
    pos: 0,
    fetchFrom: offset,
    end,
    fetching: false,
    size,
    starved: false,
    retryAt: -Infinity,
  };
}
