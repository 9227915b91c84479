/**
 * An endless source of generated records, paced by processing time.
 *
 * @module
 */

import type {
  Source,
  SourceBatch,
  SourceReader,
} from "../../runtime/source.ts";

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
 * time, forever: the traffic of the demo job and of soak tests. Record `i`
 * of a partition is due at `start + i * 1000 / ratePerSecond`; the reader's
 * position (records generated per partition) is its snapshot, so a restored
 * job continues the sequence.
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

class GeneratorReader<T> implements SourceReader<T> {
  readonly partitions: readonly string[];
  readonly finished = false;
  readonly #options: GeneratorSourceOptions<T>;
  readonly #ids: number[];
  #positions: number[];
  // Pacing: record `offset + k` is due `k / rate` seconds after `start`.
  #start: number | null = null;
  #offset = 0;
  #cursor = 0;

  constructor(options: GeneratorSourceOptions<T>, ids: number[]) {
    this.#options = options;
    this.#ids = ids;
    this.partitions = ids.map((p) => `generator-${p}`);
    this.#positions = ids.map(() => 0);
  }

  #due(now: number): number {
    this.#start ??= now;
    return this.#offset +
      Math.floor(((now - this.#start) * this.#options.ratePerSecond) / 1_000);
  }

  poll(now: number, maxRecords: number): SourceBatch<T> | null {
    const due = this.#due(now);
    for (let k = 0; k < this.#ids.length; k++) {
      const i = (this.#cursor + k) % this.#ids.length;
      if (this.#positions[i] > due) continue;
      this.#cursor = (i + 1) % this.#ids.length;
      const values: T[] = [];
      while (this.#positions[i] <= due && values.length < maxRecords) {
        const value = this.#options.generate(
          this.#positions[i]++,
          this.#ids[i],
          now,
        );
        if (value !== null) values.push(value);
      }
      if (values.length > 0) {
        return {
          partition: i,
          values,
          timestamps: values.map(() => -Infinity),
        };
      }
    }
    return null;
  }

  nextAvailableAt(now: number): number {
    this.#start ??= now;
    if (this.#ids.length === 0) return Infinity;
    const next = Math.min(...this.#positions) - this.#offset;
    return this.#start +
      Math.ceil((next * 1_000) / this.#options.ratePerSecond);
  }

  snapshotState(): unknown {
    return {
      partitions: [...this.partitions],
      positions: [...this.#positions],
    };
  }

  restoreState(state: unknown): void {
    const { partitions, positions } = state as {
      partitions: string[];
      positions: number[];
    };
    if (partitions.join() !== this.partitions.join()) {
      throw new RangeError(
        `Cannot restore GeneratorSource reader as 'partitions' must be ${
          this.partitions.join(", ")
        }: current value is ${partitions.join(", ")}`,
      );
    }
    this.#positions = [...positions];
    // Pace from the restored position on, from the next poll.
    this.#start = null;
    this.#offset = positions.length > 0 ? Math.min(...positions) : 0;
  }
}
