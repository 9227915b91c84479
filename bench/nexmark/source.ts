/**
 * A weir source of Nexmark events.
 *
 * @module
 */

import type { Source, SourceBatch, SourceReader } from "../../src/mod.ts";
import { type NexmarkConfig, nexmarkConfig } from "./config.ts";
import { NexmarkGenerator } from "./generator.ts";
import type { Event } from "./model.ts";

/** Options of a {@linkcode NexmarkSource}. */
export interface NexmarkSourceOptions {
  /**
   * Partitions, each a sub-generator from `split(partitions)` with its own
   * contiguous id range, all on parallel timelines from `baseTime`. Keep it
   * equal to `numEventGenerators` for the events to have the configured
   * overall rate.
   * @default {config.numEventGenerators}
   */
  readonly partitions?: number;
}

/**
 * Reads the Nexmark event stream of {@linkcode NexmarkGenerator}, split into
 * partitions; partition `p` is read by subtask `p % parallelism`.
 *
 * Everything is available at once (the generator is not paced by wall
 * time): `nextAvailableAt(now)` is `now` while events remain and `Infinity`
 * after. Each `poll` makes up to `maxRecords` events of one partition, taking
 * the partitions in turn, into fresh arrays, with each event's `dateTime` as
 * its timestamp. The snapshot is `{ partitions, positions, cursor }`: the
 * events made per partition, from which a restore resumes without
 * regenerating.
 *
 * @example Reading one partition
 * ```ts
 * import { NexmarkSource } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const source = new NexmarkSource({ numEvents: 100 });
 * const reader = source.createReader(0, 1);
 * const batch = reader.poll(0, 60);
 * assert.equal(batch?.values.length, 60);
 * assert.equal(reader.poll(0, 60)?.values.length, 40);
 * assert.equal(reader.finished, true);
 * ```
 */
export class NexmarkSource implements Source<Event> {
  /** `"nexmark"`; partitions are named `nexmark-<p>`. */
  readonly name = "nexmark";
  /** The checked generator config. */
  readonly config: NexmarkConfig;
  readonly #partitions: number;

  /**
   * Creates the source.
   *
   * @param config Generator fields to override; see `nexmarkConfig`.
   * @param options The number of partitions.
   * @throws {RangeError} If a config field is out of range, or `partitions`
   *   is not an integer from 1 to `numEvents`.
   * @throws {TypeError} If a config field is not a number.
   */
  constructor(
    config: Partial<NexmarkConfig> = {},
    options: NexmarkSourceOptions = {},
  ) {
    this.config = nexmarkConfig(config);
    const partitions = options.partitions ?? this.config.numEventGenerators;
    if (
      !Number.isSafeInteger(partitions) || partitions < 1 ||
      partitions > this.config.numEvents
    ) {
      throw new RangeError(
        `Cannot create NexmarkSource as 'partitions' must be an integer from 1 to ${this.config.numEvents} (numEvents): current value is ${partitions}`,
      );
    }
    this.#partitions = partitions;
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
   * @throws {RangeError} If `parallelism` is not a positive integer or
   *   `subtaskIndex` is not an integer below it.
   */
  createReader(subtaskIndex: number, parallelism: number): SourceReader<Event> {
    if (!Number.isSafeInteger(parallelism) || parallelism < 1) {
      throw new RangeError(
        `Cannot create a reader of NexmarkSource as 'parallelism' must be a positive integer: current value is ${parallelism}`,
      );
    }
    if (
      !Number.isSafeInteger(subtaskIndex) || subtaskIndex < 0 ||
      subtaskIndex >= parallelism
    ) {
      throw new RangeError(
        `Cannot create a reader of NexmarkSource as 'subtaskIndex' must be an integer from 0 to ${
          parallelism - 1
        }: current value is ${subtaskIndex}`,
      );
    }
    const all = new NexmarkGenerator(this.config).split(this.#partitions);
    const names: string[] = [];
    const generators: NexmarkGenerator[] = [];
    for (let p = subtaskIndex; p < all.length; p += parallelism) {
      names.push(`${this.name}-${p}`);
      generators.push(all[p]);
    }
    return new NexmarkReader(names, generators);
  }
}

/** A reader's progress as plain data. */
interface NexmarkSnapshot {
  partitions: string[];
  positions: number[];
  cursor: number;
}

class NexmarkReader implements SourceReader<Event> {
  readonly partitions: readonly string[];
  readonly #generators: readonly NexmarkGenerator[];
  // The partition the next poll tries first.
  #cursor = 0;

  constructor(names: string[], generators: NexmarkGenerator[]) {
    this.partitions = names;
    this.#generators = generators;
  }

  get finished(): boolean {
    for (const generator of this.#generators) {
      if (generator.hasNext) return false;
    }
    return true;
  }

  poll(_now: number, maxRecords: number): SourceBatch<Event> | null {
    const n = this.#generators.length;
    for (let i = 0; i < n; i++) {
      const p = (this.#cursor + i) % n;
      const generator = this.#generators[p];
      if (!generator.hasNext || !(maxRecords >= 1)) continue;
      // Fresh arrays every poll, never touched again: batches are handed
      // downstream as they are, timestamps included.
      const values: Event[] = [];
      const timestamps: number[] = [];
      generator.fill(values, timestamps, maxRecords);
      this.#cursor = (p + 1) % n;
      return { partition: p, values, timestamps, ownTimestamps: true };
    }
    return null;
  }

  nextAvailableAt(now: number): number {
    return this.finished ? Infinity : now;
  }

  snapshotState(): unknown {
    const snapshot: NexmarkSnapshot = {
      partitions: [...this.partitions],
      positions: this.#generators.map((g) => g.eventsGenerated),
      cursor: this.#cursor,
    };
    return snapshot;
  }

  restoreState(state: unknown): void {
    const action = "restore a reader of NexmarkSource";
    const snapshot = state as Partial<NexmarkSnapshot> | null;
    if (
      typeof snapshot !== "object" || snapshot === null ||
      !Array.isArray(snapshot.partitions) ||
      !Array.isArray(snapshot.positions) ||
      typeof snapshot.cursor !== "number"
    ) {
      throw new TypeError(
        `Cannot ${action} as 'state' must be { partitions, positions, cursor }: current value is ${
          JSON.stringify(state)
        }`,
      );
    }
    const { partitions, positions, cursor } = snapshot;
    if (
      partitions.length !== this.partitions.length ||
      partitions.some((name, p) => name !== this.partitions[p])
    ) {
      throw new RangeError(
        `Cannot ${action} as 'state.partitions' must be this reader's partitions ${
          JSON.stringify(this.partitions)
        } (same partitions, parallelism and subtask): current value is ${
          JSON.stringify(partitions)
        }`,
      );
    }
    if (positions.length !== partitions.length) {
      throw new RangeError(
        `Cannot ${action} as 'state.positions' must have one entry per partition (${partitions.length}): current value is ${
          JSON.stringify(positions)
        }`,
      );
    }
    const n = this.#generators.length;
    if (
      !Number.isSafeInteger(cursor) || cursor < 0 || cursor >= Math.max(n, 1)
    ) {
      throw new RangeError(
        `Cannot ${action} as 'state.cursor' must be an integer below ${
          Math.max(n, 1)
        }: current value is ${cursor}`,
      );
    }
    // Check every position before moving any generator.
    positions.forEach((position, p) => {
      const max = this.#generators[p].config.numEvents;
      if (!Number.isSafeInteger(position) || position < 0 || position > max) {
        throw new RangeError(
          `Cannot ${action} as 'state.positions[${p}]' must be an integer from 0 to ${max}: current value is ${position}`,
        );
      }
    });
    positions.forEach((position, p) => this.#generators[p].skipTo(position));
    this.#cursor = cursor;
  }
}
