/**
 * A source that replays an exact script of records in processing time: the
 * "time machine" for tests and demos.
 *
 * @module
 */

import {
  describeValue,
  requireIndex,
  requireNonNegativeInteger,
  requirePositiveInteger,
  requireSafeInteger,
} from "../../time/validate.ts";
import type {
  Source,
  SourceBatch,
  SourceReader,
} from "../../runtime/source.ts";
import { checkPositionsSnapshot, snapshotPositions } from "./_positions.ts";
import { EndReports } from "./_end_reports.ts";

/**
 * One step of a {@linkcode ScriptedSource}: a record, or the end of a
 * partition, that becomes available at processing time `at`.
 *
 * `at` is milliseconds on the runtime's clock (e.g. a `ManualClock`), not
 * event time; `partition` defaults to 0. A record's `timestamp` is what the
 * source reports (a strategy's timestamp assigner may override it) and
 * defaults to `-Infinity` (none). `{ end: true }` ends its partition at `at`;
 * without one, a partition ends after its last record.
 *
 * @typeParam T The record type.
 */
export type ScriptStep<T> =
  | { at: number; partition?: number; value: T; timestamp?: number }
  | { at: number; partition?: number; end: true };

/** Options of a {@linkcode ScriptedSource}. */
export interface ScriptedSourceOptions {
  /**
   * How many partitions the script uses; each step's `partition` must be
   * below it. Each partition gets its own watermark generator.
   * @default {1}
   */
  readonly partitions?: number;
}

/**
 * Replays a script: each record becomes available when processing time
 * reaches its step's `at`.
 *
 * Within a partition, steps must come in non-decreasing `at`; steps of
 * different partitions interleave freely. A gap between two steps of a
 * partition is a pause in which that partition reads nothing, which is where
 * `withIdleness` marks it idle. A partition ends after its last record, or at
 * its `{ end: true }` step (a partition without steps has ended from the
 * start); the reader is `finished` when all its partitions ended, and
 * reports each end (`SourceBatch.ended`): with the partition's last records,
 * or on its own once processing time reaches its end step. Partition `p` is
 * read by subtask `p % parallelism`; a subtask without a partition gets a
 * reader with no partitions that is finished at once.
 *
 * `poll(now, maxRecords)` returns up to `maxRecords` records of one partition
 * whose `at <= now`, taking the reader's partitions in turn, and `null` when
 * none is due (an end due alone comes as a batch without records).
 * `nextAvailableAt(now)` is the smallest `at` of a step not yet read
 * (records and ends alike), which is at or before `now` while one is due or
 * an end waits to be reported, and `Infinity` once every partition ended and
 * was reported. The reader's snapshot is
 * `{ partitions, positions, cursor }`: its partition names, how many steps of
 * each it has read, and which partition it reads next.
 *
 * The script is validated and copied once, in the constructor; records are
 * then handed out without further checks.
 *
 * @typeParam T The record type.
 *
 * @example Records released as processing time passes
 * ```ts
 * import { ScriptedSource } from "./scripted.ts";
 * import assert from "node:assert/strict";
 *
 * const source = new ScriptedSource([
 *   { at: 0, value: "a", timestamp: 1_000 },
 *   { at: 500, value: "b", timestamp: 1_200 },
 * ]);
 * const reader = source.createReader(0, 1);
 * assert.deepEqual(reader.poll(0, 10)?.values, ["a"]);
 * assert.equal(reader.poll(499, 10), null);
 * assert.equal(reader.nextAvailableAt(499), 500);
 * assert.deepEqual(reader.poll(500, 10)?.timestamps, [1_200]);
 * assert.equal(reader.finished, true);
 * ```
 */
export class ScriptedSource<T> implements Source<T> {
  /** `"scripted"`; partitions are named `scripted-<p>`. */
  readonly name = "scripted";
  // The steps of each partition, in order; an end step is always last.
  readonly #steps: readonly Step<T>[][];

  /**
   * Validates and copies the script.
   *
   * @param script The steps, in any order across partitions.
   * @param options The number of partitions.
   * @throws {TypeError} If `script` is not an array, a step is not an object,
   *   or a step's `at`, `partition`, `timestamp` or `end` has the wrong type.
   * @throws {RangeError} If `partitions` is not a positive integer, a step's
   *   `at` is below the previous `at` of its partition, its `partition` is out
   *   of range, its `timestamp` is not a safe integer, or it follows the end
   *   of its partition.
   */
  constructor(
    script: readonly ScriptStep<T>[],
    options: ScriptedSourceOptions = {},
  ) {
    const action = "create ScriptedSource";
    if (!Array.isArray(script)) {
      throw new TypeError(
        `Cannot ${action} as 'script' must be an array of steps: current value is ${
          describeValue(script)
        }`,
      );
    }
    const numPartitions = requirePositiveInteger(options.partitions ?? 1, {
      action,
      param: "partitions",
    });
    const steps: Step<T>[][] = Array.from({ length: numPartitions }, () => []);
    // Index into `script` of the last step of each partition, for messages.
    const lastIndex: number[] = new Array(numPartitions).fill(-1);
    script.forEach((step, i) => {
      const normalized = normalizeStep<T>(step, i, numPartitions);
      const p = step.partition ?? 0;
      const own = steps[p];
      const previous = own.at(-1);
      if (previous?.end) {
        throw new RangeError(
          `Cannot ${action} as 'script[${i}]' must not follow the end of partition ${p} at step ${
            lastIndex[p]
          }: current value is ${describeValue(step)}`,
        );
      }
      if (previous !== undefined && normalized.at < previous.at) {
        throw new RangeError(
          `Cannot ${action} as 'script[${i}].at' must be at least ${previous.at}, the 'at' of step ${
            lastIndex[p]
          } in partition ${p}: current value is ${normalized.at}`,
        );
      }
      own.push(normalized);
      lastIndex[p] = i;
    });
    this.#steps = steps;
  }

  /**
   * Builds a script of records `stepMs` apart in processing time: item `i`
   * becomes available at `startAt + i * stepMs`.
   *
   * @typeParam T The record type.
   * @param startAt Processing time of the first item, in milliseconds.
   * @param stepMs Processing time between two items, in milliseconds.
   * @param items The records with their event timestamps and partitions.
   * @returns The script, to pass to the constructor (alone or with more steps).
   * @throws {RangeError} If `startAt` is not a safe integer or `stepMs` is negative or fractional.
   * @throws {TypeError} If `items` is not an array.
   *
   * @example Three records a second apart
   * ```ts
   * import { ScriptedSource } from "./scripted.ts";
   * import assert from "node:assert/strict";
   *
   * const script = ScriptedSource.everyMs(0, 1_000, [
   *   { value: "a", timestamp: 10 },
   *   { value: "b", timestamp: 20 },
   *   { value: "c", timestamp: 30 },
   * ]);
   * assert.deepEqual(script.map((step) => step.at), [0, 1_000, 2_000]);
   * ```
   */
  static everyMs<T>(
    startAt: number,
    stepMs: number,
    items: ReadonlyArray<{ value: T; timestamp: number; partition?: number }>,
  ): ScriptStep<T>[] {
    const action = "build a script with ScriptedSource.everyMs";
    requireSafeInteger(startAt, { action, param: "startAt" });
    requireNonNegativeInteger(stepMs, { action, param: "stepMs" });
    if (!Array.isArray(items)) {
      throw new TypeError(
        `Cannot ${action} as 'items' must be an array: current value is ${
          describeValue(items)
        }`,
      );
    }
    return items.map((item, i) => {
      const step: ScriptStep<T> = {
        at: startAt + i * stepMs,
        value: item.value,
        timestamp: item.timestamp,
      };
      if (item.partition !== undefined) step.partition = item.partition;
      return step;
    });
  }

  /** The number of partitions. */
  get numPartitions(): number {
    return this.#steps.length;
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
    const action = "create a reader of ScriptedSource";
    requirePositiveInteger(parallelism, { action, param: "parallelism" });
    requireIndex(subtaskIndex, parallelism, { action, param: "subtaskIndex" });
    const names: string[] = [];
    const steps: Step<T>[][] = [];
    for (let p = subtaskIndex; p < this.#steps.length; p += parallelism) {
      names.push(`${this.name}-${p}`);
      steps.push(this.#steps[p]);
    }
    return new ScriptedReader(names, steps);
  }
}

/** A validated step; `end` steps carry no value. */
interface Step<T> {
  readonly at: number;
  readonly end: boolean;
  readonly value: T | undefined;
  readonly timestamp: number;
}

function normalizeStep<T>(
  step: ScriptStep<T>,
  i: number,
  numPartitions: number,
): Step<T> {
  const action = "create ScriptedSource";
  if (typeof step !== "object" || step === null) {
    throw new TypeError(
      `Cannot ${action} as 'script[${i}]' must be a step object: current value is ${
        describeValue(step)
      }`,
    );
  }
  const at = requireSafeInteger(step.at, { action, param: `script[${i}].at` });
  if (step.partition !== undefined) {
    requireIndex(step.partition, numPartitions, {
      action,
      param: `script[${i}].partition`,
    });
  }
  if ("end" in step) {
    if (step.end !== true) {
      throw new TypeError(
        `Cannot ${action} as 'script[${i}].end' must be true: current value is ${
          describeValue(step.end)
        }`,
      );
    }
    return { at, end: true, value: undefined, timestamp: -Infinity };
  }
  const timestamp = step.timestamp === undefined
    ? -Infinity
    : requireSafeInteger(step.timestamp, {
      action,
      param: `script[${i}].timestamp`,
    });
  return { at, end: false, value: step.value, timestamp };
}

class ScriptedReader<T> implements SourceReader<T> {
  readonly partitions: readonly string[];
  readonly #steps: readonly (readonly Step<T>[])[];
  // Steps read so far of each partition; equal to its length once it ended.
  readonly #positions: number[];
  // The partition the next poll tries first.
  #cursor = 0;
  readonly #ends: EndReports;

  constructor(partitions: readonly string[], steps: readonly Step<T>[][]) {
    this.partitions = partitions;
    this.#steps = steps;
    this.#positions = steps.map(() => 0);
    this.#ends = new EndReports(
      steps.length,
      (p) => this.#positions[p] === this.#steps[p].length,
    );
  }

  get finished(): boolean {
    for (let p = 0; p < this.#steps.length; p++) {
      if (this.#positions[p] < this.#steps[p].length) return false;
    }
    return true;
  }

  poll(now: number, maxRecords: number): SourceBatch<T> | null {
    // An end reached before (no steps, or a restore) goes first, alone.
    const unreported = this.#ends.nextUnreported();
    if (unreported >= 0) return this.#ends.endOnly(unreported);
    const n = this.#steps.length;
    for (let i = 0; i < n; i++) {
      const p = (this.#cursor + i) % n;
      const steps = this.#steps[p];
      const from = this.#positions[p];
      let to = from;
      while (
        to < steps.length && to - from < maxRecords && !steps[to].end &&
        steps[to].at <= now
      ) to++;
      // A due end step right after the records is taken now, so `finished`
      // is true as soon as the last poll that could return anything returns.
      const end = to < steps.length && steps[to].end && steps[to].at <= now;
      this.#positions[p] = end ? steps.length : to;
      if (to === from) {
        // An end step due with no record before it: reported on its own.
        if (end) return this.#ends.endOnly(p);
        continue;
      }
      const values = new Array<T>(to - from);
      const timestamps = new Array<number>(to - from);
      for (let k = from; k < to; k++) {
        values[k - from] = steps[k].value as T;
        timestamps[k - from] = steps[k].timestamp;
      }
      this.#cursor = (p + 1) % n;
      return this.#ends.reportWith({ partition: p, values, timestamps });
    }
    return null;
  }

  nextAvailableAt(now: number): number {
    if (this.#ends.nextUnreported() >= 0) return now;
    let next = Infinity;
    for (let p = 0; p < this.#steps.length; p++) {
      const step = this.#steps[p][this.#positions[p]];
      if (step !== undefined && step.at < next) next = step.at;
    }
    return next;
  }

  snapshotState(): unknown {
    return snapshotPositions(this.partitions, this.#positions, this.#cursor);
  }

  restoreState(state: unknown): void {
    const { positions, cursor } = checkPositionsSnapshot(state, {
      action: "restore a reader of ScriptedSource",
      partitions: this.partitions,
      lengths: this.#steps.map((steps) => steps.length),
    });
    this.#positions.splice(0, positions.length, ...positions);
    this.#cursor = cursor;
    this.#ends.reset();
  }
}
