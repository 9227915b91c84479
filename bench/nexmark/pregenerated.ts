/**
 * Nexmark events made once, ahead of a run, so that a run measures the
 * engine without the generator ("generator excluded").
 *
 * @module
 */

import type { Source, SourceBatch, SourceReader } from "../../src/mod.ts";
import type { NexmarkConfig } from "./config.ts";
import { NexmarkGenerator } from "./generator.ts";
import type { Event } from "./model.ts";

/** The events of each partition, and all of them merged in timestamp order. */
export interface PregeneratedEvents<T = Event> {
  /** Per partition: the events of its sub-generator, in order. */
  readonly partitions: readonly (readonly T[])[];
  /** Per partition: each event's `dateTime`. */
  readonly timestamps: readonly (readonly number[])[];
  /** Every event, merged by timestamp (stable): what a kernel reads. */
  readonly merged: readonly T[];
  /** How many events in all. */
  readonly count: number;
}

/**
 * Generates the events of `config`, split over `partitions` sub-generators
 * on parallel timelines (Beam's `split`).
 *
 * @param config The checked generator config.
 * @param partitions How many sub-generators.
 * @returns The events.
 */
export function pregenerate(
  config: NexmarkConfig,
  partitions: number,
): PregeneratedEvents {
  const generators = new NexmarkGenerator(config).split(partitions);
  const events: Event[][] = [];
  const timestamps: number[][] = [];
  for (const generator of generators) {
    const values: Event[] = [];
    const times: number[] = [];
    while (generator.fill(values, times, 1 << 30) > 0);
    events.push(values);
    timestamps.push(times);
  }
  return {
    partitions: events,
    timestamps,
    merged: mergeByTimestamp(events, timestamps),
    count: events.reduce((sum, p) => sum + p.length, 0),
  };
}

/**
 * Merges partitions by timestamp (stable: ties go to the lower partition).
 *
 * @param events Per partition, the records in timestamp order.
 * @param timestamps Per partition, each record's timestamp.
 * @returns Every record, merged.
 */
export function mergeByTimestamp<T>(
  events: readonly (readonly T[])[],
  timestamps: readonly (readonly number[])[],
): T[] {
  if (events.length === 1) return [...events[0]];
  const at = new Array<number>(events.length).fill(0);
  const out: T[] = [];
  for (;;) {
    let best = -1;
    for (let p = 0; p < events.length; p++) {
      if (at[p] < events[p].length) {
        if (best < 0 || timestamps[p][at[p]] < timestamps[best][at[best]]) {
          best = p;
        }
      }
    }
    if (best < 0) return out;
    out.push(events[best][at[best]++]);
  }
}

/**
 * Serves pregenerated events: partition `p` is read by subtask
 * `p % parallelism`; each poll hands out a slice (fresh arrays, as batches
 * may be kept downstream) with each event's `dateTime` as its timestamp;
 * the batch owns them, so the runtime copies neither.
 */
export class PregeneratedSource<T = Event> implements Source<T> {
  /** `"nexmark"`, as the generating source. */
  readonly name = "nexmark";
  readonly #events: PregeneratedEvents<T>;

  /**
   * Wraps the events.
   *
   * @param events From {@linkcode pregenerate}.
   */
  constructor(events: PregeneratedEvents<T>) {
    this.#events = events;
  }

  /**
   * The reader of subtask `subtaskIndex`.
   *
   * @param subtaskIndex The subtask, from 0.
   * @param parallelism The number of source subtasks.
   * @returns Its reader.
   */
  createReader(subtaskIndex: number, parallelism: number): SourceReader<T> {
    if (
      !Number.isSafeInteger(parallelism) || parallelism < 1 ||
      !Number.isSafeInteger(subtaskIndex) || subtaskIndex < 0 ||
      subtaskIndex >= parallelism
    ) {
      throw new RangeError(
        `Cannot create a PregeneratedSource reader as 'subtaskIndex' must be an integer in [0, parallelism): current values are ${subtaskIndex} and ${parallelism}`,
      );
    }
    const mine: number[] = [];
    const all = this.#events;
    for (let p = subtaskIndex; p < all.partitions.length; p += parallelism) {
      mine.push(p);
    }
    const positions = mine.map(() => 0);
    let cursor = 0;
    const remaining = () =>
      mine.some((p, i) => positions[i] < all.partitions[p].length);
    return {
      partitions: mine.map((p) => `nexmark-${p}`),
      get finished() {
        return !remaining();
      },
      poll(_now: number, maxRecords: number): SourceBatch<T> | null {
        for (let tries = 0; tries < mine.length; tries++) {
          const i = cursor;
          cursor = (cursor + 1) % mine.length;
          const p = mine[i];
          const from = positions[i];
          if (from >= all.partitions[p].length) continue;
          const to = Math.min(from + maxRecords, all.partitions[p].length);
          positions[i] = to;
          return {
            partition: i,
            values: all.partitions[p].slice(from, to),
            timestamps: all.timestamps[p].slice(from, to),
            ownTimestamps: true,
          };
        }
        return null;
      },
      nextAvailableAt(now: number): number {
        return remaining() ? now : Infinity;
      },
      snapshotState(): unknown {
        return { partitions: [...mine], positions: [...positions], cursor };
      },
      restoreState(state: unknown): void {
        const saved = state as Partial<
          { partitions: number[]; positions: number[]; cursor: number }
        >;
        if (
          JSON.stringify(saved?.partitions) !== JSON.stringify(mine) ||
          !Array.isArray(saved.positions) ||
          saved.positions.some((n, i) =>
            !Number.isSafeInteger(n) || n < 0 ||
            n > all.partitions[mine[i]].length
          ) ||
          !Number.isSafeInteger(saved.cursor) || saved.cursor! < 0 ||
          saved.cursor! >= Math.max(1, mine.length)
        ) {
          throw new TypeError(
            `Cannot restore a PregeneratedSource reader as 'state' must be the snapshot of a reader of partitions ${
              JSON.stringify(mine)
            }: current value is ${JSON.stringify(state)}`,
          );
        }
        saved.positions.forEach((n, i) => positions[i] = n);
        cursor = saved.cursor!;
      },
    };
  }
}
