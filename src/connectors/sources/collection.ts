/**
 * A bounded source over an in-memory array.
 *
 * @module
 */

import {
  describeValue,
  requireFunction,
  requireIndex,
  requirePositiveInteger,
} from "../../time/validate.ts";
import type {
  Source,
  SourceBatch,
  SourceReader,
} from "../../runtime/source.ts";
import { checkPositionsSnapshot, snapshotPositions } from "./_positions.ts";
import { EndReports } from "./_end_reports.ts";

/** Options of a {@linkcode CollectionSource}. */
export interface CollectionSourceOptions<T> {
  /**
   * How many contiguous partitions the items are split into; each partition
   * gets its own watermark generator in the source subtask.
   * @default {1}
   */
  readonly partitions?: number;
  /**
   * The timestamp the source reports for each item, in epoch milliseconds;
   * a strategy's timestamp assigner may still override it.
   * @default {undefined} every item reports `-Infinity` (no timestamp)
   */
  readonly timestampOf?: (item: T) => number;
}

/**
 * Reads a fixed array of items (Flink's `fromCollection`), split into
 * contiguous partitions.
 *
 * Partition `p` of `n` holds `items[floor(p * len / n) ... floor((p + 1) * len
 * / n))`, so every item is in exactly one partition, in array order. Partition
 * `p` is read by subtask `p % parallelism`; a subtask without a partition gets
 * a reader with no partitions that is finished at once.
 *
 * Everything is available at once: `nextAvailableAt(now)` is `now` while
 * records remain (or an end waits to be reported) and `Infinity` after. Each
 * `poll` returns up to `maxRecords` records of one partition, taking the
 * reader's partitions in turn, so one large partition does not hold back the
 * watermarks of the others; the poll that takes a partition's last records
 * reports its end (`SourceBatch.ended`), and an empty partition's end comes
 * on its own at the first poll. The
 * reader's snapshot is `{ partitions, positions, cursor }`: its partition
 * names, how many records of each it has read, and which partition it reads
 * next, as plain data.
 *
 * The items are not copied: changing the array while a job reads it changes
 * what the job reads.
 *
 * @typeParam T The record type.
 *
 * @example Reading two partitions in turn
 * ```ts
 * import { CollectionSource } from "./collection.ts";
 * import assert from "node:assert/strict";
 *
 * const source = new CollectionSource([1, 2, 3, 4], {
 *   partitions: 2,
 *   timestampOf: (n) => n * 1_000,
 * });
 * const reader = source.createReader(0, 1);
 * assert.deepEqual(reader.poll(0, 10), { partition: 0, values: [1, 2], timestamps: [1_000, 2_000], ended: true });
 * assert.deepEqual(reader.poll(0, 1)?.values, [3]);
 * assert.deepEqual(reader.poll(0, 10)?.values, [4]);
 * assert.equal(reader.poll(0, 10), null);
 * assert.equal(reader.finished, true);
 * ```
 */
export class CollectionSource<T> implements Source<T> {
  /** `"collection"`; partitions are named `collection-<p>`. */
  readonly name = "collection";
  readonly #items: readonly T[];
  readonly #partitions: number;
  readonly #timestampOf: ((item: T) => number) | undefined;

  /**
   * Creates a source over `items`.
   *
   * @param items The records, in order.
   * @param options The number of partitions and the timestamp of each item.
   * @throws {TypeError} If `items` is not an array, or `timestampOf` is not a function.
   * @throws {RangeError} If `partitions` is not a positive integer.
   */
  constructor(items: readonly T[], options: CollectionSourceOptions<T> = {}) {
    const action = "create CollectionSource";
    if (!Array.isArray(items)) {
      throw new TypeError(
        `Cannot ${action} as 'items' must be an array: current value is ${
          describeValue(items)
        }`,
      );
    }
    this.#items = items;
    this.#partitions = requirePositiveInteger(options.partitions ?? 1, {
      action,
      param: "partitions",
    });
    this.#timestampOf = options.timestampOf === undefined
      ? undefined
      : requireFunction(options.timestampOf, { action, param: "timestampOf" });
  }

  /** The number of partitions. */
  get numPartitions(): number {
    return this.#partitions;
  }

  /**
   * Creates the reader of one subtask: partitions `p` with
   * `p % parallelism === subtaskIndex`.
   *
   * @param subtaskIndex The subtask, from 0.
   * @param parallelism The number of source subtasks.
   * @returns A reader of this subtask's partitions, possibly none.
   * @throws {RangeError} If `parallelism` is not a positive integer or `subtaskIndex` is out of range.
   */
  createReader(subtaskIndex: number, parallelism: number): SourceReader<T> {
    const action = "create a reader of CollectionSource";
    requirePositiveInteger(parallelism, { action, param: "parallelism" });
    requireIndex(subtaskIndex, parallelism, { action, param: "subtaskIndex" });
    const len = this.#items.length;
    const n = this.#partitions;
    const ranges: Range[] = [];
    for (let p = subtaskIndex; p < n; p += parallelism) {
      ranges.push({
        name: `${this.name}-${p}`,
        start: Math.floor(p * len / n),
        end: Math.floor((p + 1) * len / n),
      });
    }
    return new CollectionReader(this.#items, ranges, this.#timestampOf);
  }
}

/** One partition: a slice of the items. */
interface Range {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

class CollectionReader<T> implements SourceReader<T> {
  readonly partitions: readonly string[];
  readonly #items: readonly T[];
  readonly #ranges: readonly Range[];
  readonly #timestampOf: ((item: T) => number) | undefined;
  // Records read so far of each partition, relative to its start.
  readonly #positions: number[];
  // The partition the next poll tries first.
  #cursor = 0;
  readonly #ends: EndReports;

  constructor(
    items: readonly T[],
    ranges: readonly Range[],
    timestampOf: ((item: T) => number) | undefined,
  ) {
    this.#items = items;
    this.#ranges = ranges;
    this.#timestampOf = timestampOf;
    this.partitions = ranges.map((range) => range.name);
    this.#positions = ranges.map(() => 0);
    this.#ends = new EndReports(ranges.length, (p) => this.#remaining(p) <= 0);
  }

  get finished(): boolean {
    for (let p = 0; p < this.#ranges.length; p++) {
      if (this.#remaining(p) > 0) return false;
    }
    return true;
  }

  poll(_now: number, maxRecords: number): SourceBatch<T> | null {
    // An end reached before (an empty partition, or a restore) goes first.
    const unreported = this.#ends.nextUnreported();
    if (unreported >= 0) return this.#ends.endOnly(unreported);
    const n = this.#ranges.length;
    for (let i = 0; i < n; i++) {
      const p = (this.#cursor + i) % n;
      const count = Math.min(this.#remaining(p), maxRecords);
      if (count <= 0) continue;
      const from = this.#ranges[p].start + this.#positions[p];
      const values = this.#items.slice(from, from + count);
      const timestampOf = this.#timestampOf;
      const timestamps = timestampOf === undefined
        ? new Array<number>(count).fill(-Infinity)
        : values.map((value) => timestampOf(value));
      this.#positions[p] += count;
      this.#cursor = (p + 1) % n;
      return this.#ends.reportWith({ partition: p, values, timestamps });
    }
    return null;
  }

  nextAvailableAt(now: number): number {
    return this.finished && this.#ends.nextUnreported() < 0 ? Infinity : now;
  }

  snapshotState(): unknown {
    return snapshotPositions(this.partitions, this.#positions, this.#cursor);
  }

  restoreState(state: unknown): void {
    const { positions, cursor } = checkPositionsSnapshot(state, {
      action: "restore a reader of CollectionSource",
      partitions: this.partitions,
      lengths: this.#ranges.map((range) => range.end - range.start),
    });
    this.#positions.splice(0, positions.length, ...positions);
    this.#cursor = cursor;
    this.#ends.reset();
  }

  #remaining(p: number): number {
    const range = this.#ranges[p];
    return range.end - range.start - this.#positions[p];
  }
}
