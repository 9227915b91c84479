/**
 * An endless source of generated records, paced by processing time.
 *
 * @module
 */

import type {
  Source,
  SourceBatch,
  SourceReader,
  SourceRestoreOptions,
} from "../../runtime/source.ts";
import { EndReports } from "./_end_reports.ts";

/** Options of a {@linkcode GeneratorSource}. */
export interface GeneratorSourceOptions<T> {
  /** Records per second per partition. */
  readonly ratePerSecond: number;
  /**
   * Number of partitions, spread over the source subtasks.
   * @default {1}
   */
  readonly partitions?: number;
  /**
   * How many records each partition generates (skipped ones included), or
   * a function of the partition that says it; a partition then ends, and
   * the source once every partition ended (Flink's `DataGeneratorSource`
   * with a count).
   * @default {Infinity}
   */
  readonly recordsPerPartition?: number | ((partition: number) => number);
  /**
   * Makes record `index` of `partition` at processing time `now`; returns
   * `null` to skip it (a silent partition).
   */
  readonly generate: (
    index: number,
    partition: number,
    now: number,
  ) => T | null;
}

/**
 * Generates `ratePerSecond` records per partition per second of processing
 * time, forever or `recordsPerPartition` records per partition: the traffic
 * of the demo job and of soak tests. Record `i` of a partition is due at
 * `start + i * 1000 / ratePerSecond`; the poll that generates a partition's
 * last record reports its end (`SourceBatch.ended`).
 *
 * The reader's snapshot holds its position (records generated per
 * partition), the partition it polls first and its schedule, so a restored
 * job continues the sequence. In persist mode (`SourceRestoreOptions.exact`)
 * the schedule goes on as it was: a restart at the same processing time
 * generates the same records at the same times, and records due while the
 * job was down come at once, as a log's backlog would. Otherwise the
 * schedule starts afresh at the first poll after the restore.
 *
 * @typeParam T The record type.
 */
export class GeneratorSource<T> implements Source<T> {
  /** The source's name. */
  readonly name = "generator";
  readonly #options: GeneratorSourceOptions<T>;

  /**
   * Creates the source.
   *
   * @param options Rate, partitions and the record factory.
   * @throws {RangeError} If the rate or the partition count is not positive.
   */
  constructor(options: GeneratorSourceOptions<T>) {
    if (
      !(options.ratePerSecond > 0) || !Number.isFinite(options.ratePerSecond)
    ) {
      throw new RangeError(
        `Cannot create GeneratorSource as 'ratePerSecond' must be a positive number: current value is ${options.ratePerSecond}`,
      );
    }
    const partitions = options.partitions ?? 1;
    if (!Number.isSafeInteger(partitions) || partitions < 1) {
      throw new RangeError(
        `Cannot create GeneratorSource as 'partitions' must be a positive integer: current value is ${partitions}`,
      );
    }
    for (let p = 0; p < partitions; p++) countOf(options, p);
    this.#options = options;
  }

  /** Creates the reader of one subtask: partitions `p` with `p % parallelism === subtaskIndex`. */
  createReader(subtaskIndex: number, parallelism: number): SourceReader<T> {
    const all = this.#options.partitions ?? 1;
    const mine: number[] = [];
    for (let p = subtaskIndex; p < all; p += parallelism) mine.push(p);
    return new GeneratorReader(this.#options, mine);
  }
}

/** A generator reader's snapshot. */
interface GeneratorSnapshot {
  partitions: string[];
  positions: number[];
  /** Absent in snapshots of older versions: 0. */
  cursor?: number;
  /** The schedule; absent in snapshots of older versions. */
  schedule?: { start: number | null; offset: number };
}

class GeneratorReader<T> implements SourceReader<T> {
  readonly partitions: readonly string[];
  readonly #options: GeneratorSourceOptions<T>;
  readonly #ids: number[];
  // Records each partition generates before it ends.
  readonly #counts: number[];
  #positions: number[];
  // Pacing: record `offset + k` is due `k / rate` seconds after `start`.
  #start: number | null = null;
  #offset = 0;
  #cursor = 0;
  readonly #ends: EndReports;

  constructor(options: GeneratorSourceOptions<T>, ids: number[]) {
    this.#options = options;
    this.#ids = ids;
    this.#counts = ids.map((p) => countOf(options, p));
    this.partitions = ids.map((p) => `generator-${p}`);
    this.#positions = ids.map(() => 0);
    this.#ends = new EndReports(
      ids.length,
      (i) => this.#positions[i] >= this.#counts[i],
    );
  }

  get finished(): boolean {
    // An endless generator never finishes, even a reader without
    // partitions: a finished subtask would stop the job's checkpoints.
    return this.#counts.every((count) => count !== Infinity) &&
      this.#positions.every((position, i) => position >= this.#counts[i]);
  }

  #due(now: number): number {
    this.#start ??= now;
    return this.#offset +
      Math.floor(((now - this.#start) * this.#options.ratePerSecond) / 1_000);
  }

  poll(now: number, maxRecords: number): SourceBatch<T> | null {
    // An end known before (no records to make, or a restore) goes first.
    const unreported = this.#ends.nextUnreported();
    if (unreported >= 0) return this.#ends.endOnly(unreported);
    const due = this.#due(now);
    for (let k = 0; k < this.#ids.length; k++) {
      const i = (this.#cursor + k) % this.#ids.length;
      const last = Math.min(due, this.#counts[i] - 1);
      if (this.#positions[i] > last) continue;
      this.#cursor = (i + 1) % this.#ids.length;
      const values: T[] = [];
      while (this.#positions[i] <= last && values.length < maxRecords) {
        const value = this.#options.generate(
          this.#positions[i]++,
          this.#ids[i],
          now,
        );
        if (value !== null) values.push(value);
      }
      const batch = this.#ends.reportWith({
        partition: i,
        values,
        timestamps: values.map(() => -Infinity),
      });
      if (values.length > 0 || batch.ended === true) return batch;
    }
    return null;
  }

  nextAvailableAt(now: number): number {
    this.#start ??= now;
    if (this.#ends.nextUnreported() >= 0) return now;
    let next = Infinity;
    this.#positions.forEach((position, i) => {
      if (position < this.#counts[i] && position < next) next = position;
    });
    if (next === Infinity) return Infinity;
    return this.#start +
      Math.ceil(((next - this.#offset) * 1_000) / this.#options.ratePerSecond);
  }

  snapshotState(): unknown {
    const snapshot: GeneratorSnapshot = {
      partitions: [...this.partitions],
      positions: [...this.#positions],
      cursor: this.#cursor,
      schedule: { start: this.#start, offset: this.#offset },
    };
    return snapshot;
  }

  restoreState(state: unknown, options?: SourceRestoreOptions): void {
    const { partitions, positions, cursor, schedule } =
      state as GeneratorSnapshot;
    if (partitions.join() !== this.partitions.join()) {
      throw new RangeError(
        `Cannot restore GeneratorSource reader as 'partitions' must be ${
          this.partitions.join(", ")
        }: current value is ${partitions.join(", ")}`,
      );
    }
    this.#positions = [...positions];
    this.#cursor = typeof cursor === "number" && cursor < positions.length
      ? cursor
      : 0;
    this.#ends.reset();
    if (options?.exact === true && schedule !== undefined) {
      // Persist mode: the schedule decides which records a restart at the
      // same processing time generates, and when (persist
      // snapshots everything that decides event time).
      this.#start = schedule.start;
      this.#offset = schedule.offset;
      return;
    }
    // Pace from the restored position on, from the next poll.
    this.#start = null;
    this.#offset = positions.length > 0 ? Math.min(...positions) : 0;
  }
}

/**
 * The number of records partition `p` generates, checked.
 *
 * @throws {RangeError} If it is not a non-negative safe integer or `Infinity`.
 */
function countOf(options: GeneratorSourceOptions<unknown>, p: number): number {
  const option = options.recordsPerPartition ?? Infinity;
  const count = typeof option === "function" ? option(p) : option;
  if (count !== Infinity && (!Number.isSafeInteger(count) || count < 0)) {
    throw new RangeError(
      `Cannot create GeneratorSource as 'recordsPerPartition' must be a non-negative safe integer or Infinity${
        typeof option === "function" ? ` for partition ${p}` : ""
      }: current value is ${count}`,
    );
  }
  return count;
}
