/**
 * The arithmetic of watermark alignment (Flink's FLIP-182): sources of one
 * alignment group report their watermarks to a coordinator, which announces
 * how far each may run ahead of the slowest; a source subtask whose watermark
 * is past that pauses reading. Pure: the runtime sends the reports and
 * announcements every update interval.
 *
 * @module
 */

import {
  describeValue,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requireWatermark,
} from "./validate.ts";

/**
 * The minimum of the latest watermark reported per key (per subtask of a
 * source, or per source of an alignment group).
 *
 * A report replaces the key's previous value, which may be lower: a subtask
 * that was idle (reported `Infinity`) and resumes reports a real watermark
 * again. With no keys the aggregate is `-Infinity`.
 *
 * Cost: a report is O(1) unless the key that held the minimum goes up or is
 * removed, which rescans all keys.
 *
 * @typeParam K The key type, compared as `Map` keys.
 *
 * @example The minimum of the latest reports
 * ```ts
 * import { WatermarkAggregator } from "./alignment.ts";
 * import assert from "node:assert/strict";
 *
 * const subtasks = new WatermarkAggregator<number>();
 * assert.equal(subtasks.aggregate(0, 10), 10);
 * assert.equal(subtasks.aggregate(1, 12), 10);
 * assert.equal(subtasks.aggregate(0, Infinity), 12);
 * assert.equal(subtasks.aggregate(0, 8), 8);
 * ```
 */
export class WatermarkAggregator<K> {
  readonly #latest = new Map<K, number>();
  #min = -Infinity;

  /**
   * Records `watermark` as the latest value of `key`.
   *
   * @param key Whose watermark this is.
   * @param watermark Event time in milliseconds, or `±Infinity` (`Infinity`
   *   for an idle or finished reporter).
   * @returns The new aggregate: the minimum over all keys.
   * @throws {RangeError} If `watermark` is not a safe integer or an infinity.
   * @throws {TypeError} If `watermark` is not a number.
   */
  aggregate(key: K, watermark: number): number {
    requireWatermark(watermark, {
      action: "aggregate watermark",
      param: "watermark",
    });
    const previous = this.#latest.get(key);
    this.#latest.set(key, watermark);
    if (this.#latest.size === 1 || watermark <= this.#min) {
      this.#min = watermark;
    } else if (previous === this.#min) {
      // The key that may have held the minimum went up: find the new one.
      this.#min = this.#scan();
    }
    return this.#min;
  }

  /**
   * Forgets a key.
   *
   * @param key The key to forget.
   * @returns `true` if the key had a value.
   */
  remove(key: K): boolean {
    if (!this.#latest.has(key)) return false;
    const previous = this.#latest.get(key);
    this.#latest.delete(key);
    if (this.#latest.size === 0) this.#min = -Infinity;
    else if (previous === this.#min) this.#min = this.#scan();
    return true;
  }

  /** The current aggregate; `-Infinity` with no keys. */
  getAggregatedWatermark(): number {
    return this.#min;
  }

  #scan(): number {
    let min = Infinity;
    for (const watermark of this.#latest.values()) {
      if (watermark < min) min = watermark;
    }
    return min;
  }
}

/** How a source takes part in watermark alignment. */
export interface WatermarkAlignmentOptions {
  /** The alignment group: sources sharing it are held to its slowest one. */
  group: string;
  /**
   * How far, in milliseconds, a subtask's watermark may run ahead of the
   * group's minimum. All sources of a group must use the same value.
   */
  maxDriftMs: number;
}

/** What the coordinator tells one source subtask every update interval. */
export interface WatermarkAlignmentAnnouncement {
  /** The source the subtask belongs to. */
  sourceId: string;
  /** The subtask index. */
  subtask: number;
  /** The subtask may emit up to this watermark; past it, it waits. */
  maxAllowedWatermark: number;
}

interface GroupState {
  readonly maxDriftMs: number;
  /** The minimum of each source of the group that has reported. */
  readonly sources: WatermarkAggregator<string>;
}

interface SourceState {
  readonly group: GroupState;
  /** The latest report of each subtask. */
  readonly subtasks: WatermarkAggregator<number>;
  /** The subtasks that have reported at least once, ascending. */
  readonly reported: number[];
}

/**
 * The coordinator side of watermark alignment: aggregates the reports of every
 * source subtask and computes how far each may go.
 *
 * Per source, the minimum of its subtasks' latest reports; per group, the
 * minimum of its sources' minimums, counting only sources that have reported.
 * The maximum allowed watermark of a group is its minimum plus `maxDriftMs`.
 * Idle or finished subtasks report `Infinity` and so drop out of the minimum;
 * when every reporter of a group is at `Infinity`, the allowed watermark is
 * `Infinity`. Before any report in a group it is `-Infinity`.
 *
 * The runtime calls {@linkcode WatermarkAlignmentCoordinator.announcements}
 * every update interval and sends each entry to its subtask, which then
 * decides with {@linkcode shouldWaitForAlignment}.
 *
 * Not safe for concurrent use.
 *
 * @example A fast subtask is held to the slow one plus the drift
 * ```ts
 * import { WatermarkAlignmentCoordinator } from "./alignment.ts";
 * import assert from "node:assert/strict";
 *
 * const coordinator = new WatermarkAlignmentCoordinator();
 * coordinator.registerSource("orders", { group: "g", maxDriftMs: 1000 });
 * coordinator.reportWatermark("orders", 0, 42);
 * coordinator.reportWatermark("orders", 1, 5000);
 * assert.deepEqual(coordinator.announcements(), [
 *   { sourceId: "orders", subtask: 0, maxAllowedWatermark: 1042 },
 *   { sourceId: "orders", subtask: 1, maxAllowedWatermark: 1042 },
 * ]);
 * ```
 */
export class WatermarkAlignmentCoordinator {
  readonly #groups = new Map<string, GroupState>();
  readonly #sources = new Map<string, SourceState>();

  /**
   * Adds a source to an alignment group, creating the group on first use.
   *
   * @param sourceId The source's unique id (Flink uses the operator name).
   * @param options The group and the allowed drift in milliseconds.
   * @throws {TypeError} If `sourceId` or `options.group` is not a string, or
   *   `options.maxDriftMs` is not a number.
   * @throws {RangeError} If `sourceId` or `options.group` is empty,
   *   `sourceId` is already registered, or `options.maxDriftMs` is negative,
   *   not a safe integer, or differs from the drift of the group's other
   *   sources.
   */
  registerSource(sourceId: string, options: WatermarkAlignmentOptions): void {
    const action = "register source";
    requireNonEmptyString(sourceId, { action, param: "sourceId" });
    const name = requireNonEmptyString(options?.group, {
      action,
      param: "options.group",
    });
    const maxDriftMs = requireNonNegativeInteger(options.maxDriftMs, {
      action,
      param: "options.maxDriftMs",
    });
    if (this.#sources.has(sourceId)) {
      throw new RangeError(
        `Cannot ${action} as 'sourceId' must not be registered already: current value is ${
          describeValue(sourceId)
        }`,
      );
    }
    let group = this.#groups.get(name);
    if (group === undefined) {
      group = { maxDriftMs, sources: new WatermarkAggregator() };
      this.#groups.set(name, group);
    } else if (group.maxDriftMs !== maxDriftMs) {
      // One drift per group keeps maxAllowedWatermark(group) a single number.
      throw new RangeError(
        `Cannot ${action} as 'options.maxDriftMs' must equal the drift of group ${
          describeValue(name)
        } (${group.maxDriftMs}): current value is ${maxDriftMs}`,
      );
    }
    this.#sources.set(sourceId, {
      group,
      subtasks: new WatermarkAggregator(),
      reported: [],
    });
  }

  /**
   * Records a subtask's latest watermark and feeds its source's new minimum
   * into the group.
   *
   * @param sourceId A registered source.
   * @param subtask The reporting subtask's index.
   * @param watermark The subtask's current combined watermark in
   *   milliseconds; `Infinity` when it is idle or has finished.
   * @throws {RangeError} If `sourceId` is not registered, `subtask` is not a
   *   non-negative safe integer, or `watermark` is not a safe integer or an
   *   infinity.
   * @throws {TypeError} If `subtask` or `watermark` is not a number.
   */
  reportWatermark(sourceId: string, subtask: number, watermark: number): void {
    const action = "report watermark";
    const source = this.#lookupSource(sourceId, action);
    requireNonNegativeInteger(subtask, { action, param: "subtask" });
    requireWatermark(watermark, { action, param: "watermark" });
    insertSorted(source.reported, subtask);
    const sourceMin = source.subtasks.aggregate(subtask, watermark);
    // Feeding the group on every report (not only when the source's minimum
    // changed) is idempotent and also counts a source whose first report
    // equals the empty aggregate, -Infinity.
    source.group.sources.aggregate(sourceId, sourceMin);
  }

  /**
   * The highest watermark the sources of a group may reach now: the group's
   * minimum plus its drift. `Infinity` when all reporters are idle or the
   * sum passes `Number.MAX_SAFE_INTEGER`, `-Infinity` before the first report.
   *
   * @param group A group some source was registered in.
   * @returns The maximum allowed watermark in milliseconds.
   * @throws {RangeError} If no source was registered in `group`.
   */
  maxAllowedWatermark(group: string): number {
    const state = this.#groups.get(group);
    if (state === undefined) {
      throw new RangeError(
        `Cannot get max allowed watermark as 'group' must be registered: current value is ${
          describeValue(group)
        }`,
      );
    }
    return allowedAbove(state);
  }

  /**
   * What to send now: one entry per subtask that has reported at least once,
   * sources in registration order and subtasks ascending. A subtask that
   * never reported gets nothing and stays unpaused.
   *
   * @returns A new array of announcements.
   */
  announcements(): WatermarkAlignmentAnnouncement[] {
    const result: WatermarkAlignmentAnnouncement[] = [];
    for (const [sourceId, source] of this.#sources) {
      const maxAllowedWatermark = allowedAbove(source.group);
      for (const subtask of source.reported) {
        result.push({ sourceId, subtask, maxAllowedWatermark });
      }
    }
    return result;
  }

  #lookupSource(sourceId: string, action: string): SourceState {
    const source = this.#sources.get(sourceId);
    if (source === undefined) {
      throw new RangeError(
        `Cannot ${action} as 'sourceId' must be registered: current value is ${
          describeValue(sourceId)
        }`,
      );
    }
    return source;
  }
}

/**
 * What a source subtask reports to the coordinator this update interval.
 *
 * Nothing while no watermark has been emitted (`-Infinity`), even if the
 * subtask is idle: a subtask without data does not hold its group back, and
 * one that never reported is never paused. Otherwise `Infinity` when idle (the
 * caller also passes `idle = true` at the end of input), else the latest
 * watermark.
 *
 * @param latestWatermark The subtask's emitted combined watermark, which is
 *   monotonic, so the report never goes down while the subtask is active.
 * @param idle Whether the subtask is idle or has finished.
 * @returns The watermark to report, or `null` to send nothing.
 * @throws {RangeError} If `latestWatermark` is not a safe integer or an infinity.
 * @throws {TypeError} If `latestWatermark` is not a number or `idle` not a boolean.
 *
 * @example Idle subtasks report Infinity
 * ```ts
 * import { reportableWatermark } from "./alignment.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(reportableWatermark(-Infinity, false), null);
 * assert.equal(reportableWatermark(1000, false), 1000);
 * assert.equal(reportableWatermark(1000, true), Infinity);
 * ```
 */
export function reportableWatermark(
  latestWatermark: number,
  idle: boolean,
): number | null {
  const action = "compute reportable watermark";
  requireWatermark(latestWatermark, { action, param: "latestWatermark" });
  if (typeof idle !== "boolean") {
    throw new TypeError(
      `Cannot ${action} as 'idle' must be a boolean: current value is ${
        describeValue(idle)
      }`,
    );
  }
  // Flink checks "no watermark yet" before idleness: such a subtask sends nothing.
  if (latestWatermark === -Infinity) return null;
  return idle ? Infinity : latestWatermark;
}

/**
 * Whether a source subtask must stop reading until the next announcement.
 *
 * It waits when its watermark is strictly past the maximum allowed; reaching
 * it exactly is allowed. Before the first announcement the maximum is
 * `Infinity`, so a subtask never waits. Check after every change of the
 * combined watermark and on every announcement.
 *
 * @param latestWatermark The subtask's emitted combined watermark.
 * @param maxDesiredWatermark The last announced maximum, `Infinity` before any.
 * @returns `true` if the subtask must pause.
 * @throws {RangeError} If either argument is not a safe integer or an infinity.
 * @throws {TypeError} If either argument is not a number.
 *
 * @example Equal is allowed
 * ```ts
 * import { shouldWaitForAlignment } from "./alignment.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(shouldWaitForAlignment(1042, 1042), false);
 * assert.equal(shouldWaitForAlignment(1043, 1042), true);
 * ```
 */
export function shouldWaitForAlignment(
  latestWatermark: number,
  maxDesiredWatermark: number,
): boolean {
  const action = "check watermark alignment";
  requireWatermark(latestWatermark, { action, param: "latestWatermark" });
  requireWatermark(maxDesiredWatermark, {
    action,
    param: "maxDesiredWatermark",
  });
  return maxDesiredWatermark < latestWatermark;
}

/** The group's minimum plus its drift, saturating at `Infinity`. */
function allowedAbove(group: GroupState): number {
  // ±Infinity + drift stays infinite by itself. A finite sum past the safe
  // range becomes Infinity, as Flink's addExact overflow becomes MAX: the
  // result must stay a valid watermark for shouldWaitForAlignment().
  const sum = group.sources.getAggregatedWatermark() + group.maxDriftMs;
  return sum > Number.MAX_SAFE_INTEGER ? Infinity : sum;
}

/** Inserts `value` into the ascending `array` unless present (binary search). */
function insertSorted(array: number[], value: number): void {
  let low = 0;
  let high = array.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (array[mid] < value) low = mid + 1;
    else high = mid;
  }
  if (array[low] !== value) array.splice(low, 0, value);
}
