/**
 * Combining the watermarks and idleness of several partial streams (splits,
 * multiplexed outputs, operator inputs) into one, as Flink's
 * `CombinedWatermarkStatus` does, with the 2025–2026 fixes.
 *
 * @module
 */

import {
  describeValue,
  requireIndex,
  requirePositiveInteger,
  requireWatermark,
} from "./validate.ts";
import { PartialWatermark } from "./partial_watermark.ts";

/**
 * How the watermarks of the partials that are not idle are combined.
 *
 * - `"min"` (Flink): the slowest partial holds the combined watermark back, so
 *   no partial's records become late because of another's progress.
 * - `"max"` (Spark's `multipleWatermarkPolicy = "max"`): the fastest partial
 *   drives event time; records of slower partials may be dropped as late.
 *
 * Either way, when every partial is idle the maximum of all partials is taken
 * (FLINK-38454), and the combined watermark never goes down.
 */
export type WatermarkCombinePolicy = "min" | "max";

/**
 * The combined watermark and idleness of a changing set of
 * {@linkcode PartialWatermark}s: what a source subtask makes of its splits.
 *
 * {@linkcode CombinedWatermarkStatus.updateCombinedWatermark} recomputes the
 * status from the partials; nothing changes until it is called. The combined
 * status is idle when every partial is idle. The candidate watermark is:
 *
 * - when some partial is active: the minimum (policy `"min"`) or maximum
 *   (policy `"max"`) watermark of the active partials;
 * - when all partials are idle: the maximum watermark of all partials, so the
 *   result does not depend on the order in which they went idle (FLINK-38454).
 *
 * The combined watermark moves to the candidate only if that is greater: it
 * starts at `-Infinity` and never goes down. With no partials at all nothing
 * is computed; the status becomes idle if the combined watermark ever advanced
 * (FLINK-39586), since nothing is left that could hold it active.
 *
 * Cost: each update scans all partials. Not safe for concurrent use.
 *
 * @example Flushing the maximum when all partials go idle
 * ```ts
 * import { CombinedWatermarkStatus } from "./combined_watermark_status.ts";
 * import { PartialWatermark } from "./partial_watermark.ts";
 * import assert from "node:assert/strict";
 *
 * const [a, b] = [new PartialWatermark(), new PartialWatermark()];
 * const status = new CombinedWatermarkStatus();
 * status.add(a);
 * status.add(b);
 * a.setWatermark(5);
 * b.setWatermark(2);
 * status.updateCombinedWatermark();
 * assert.equal(status.getCombinedWatermark(), 2);
 * a.setIdle(true);
 * b.setIdle(true);
 * status.updateCombinedWatermark();
 * assert.deepEqual([status.getCombinedWatermark(), status.isIdle()], [5, true]);
 * ```
 */
export class CombinedWatermarkStatus {
  readonly #partials = new Set<PartialWatermark>();
  readonly #max: boolean;
  #combined = -Infinity;
  #idle = false;

  /**
   * Creates an empty combination, at `-Infinity` and not idle.
   *
   * @param policy How active partials are combined; `"min"` by default.
   * @throws {TypeError} If `policy` is not a string.
   * @throws {RangeError} If `policy` is a string other than `"min"` or `"max"`.
   */
  constructor(policy: WatermarkCombinePolicy = "min") {
    this.#max =
      requirePolicy(policy, "create CombinedWatermarkStatus") === "max";
  }

  /** The combined watermark as of the last update; `-Infinity` at first. */
  getCombinedWatermark(): number {
    return this.#combined;
  }

  /** Whether all partials were idle at the last update; `false` at first. */
  isIdle(): boolean {
    return this.#idle;
  }

  /**
   * Adds a partial; it counts from the next update. Adding it twice has no
   * effect.
   *
   * @param partial The partial to combine.
   */
  add(partial: PartialWatermark): void {
    this.#partials.add(partial);
  }

  /**
   * Removes a partial; it no longer counts from the next update. Neither the
   * combined watermark nor the idle flag change until then.
   *
   * @param partial The partial to remove.
   * @returns `true` if it had been added.
   */
  remove(partial: PartialWatermark): boolean {
    return this.#partials.delete(partial);
  }

  /**
   * Puts back a combined watermark and idle flag taken from
   * {@linkcode CombinedWatermarkStatus.getCombinedWatermark} and
   * {@linkcode CombinedWatermarkStatus.isIdle}, for a restore that keeps
   * event time; the partials are restored by their owner. Nothing is
   * recomputed.
   *
   * @param watermark The combined watermark, `-Infinity` if none yet.
   * @param idle Whether all partials were idle.
   * @throws {RangeError} If `watermark` is not a safe integer or an infinity.
   * @throws {TypeError} If `watermark` is not a number or `idle` not a boolean.
   */
  restore(watermark: number, idle: boolean): void {
    const action = "restore CombinedWatermarkStatus";
    requireWatermark(watermark, { action, param: "watermark" });
    if (typeof idle !== "boolean") {
      throw new TypeError(
        `Cannot ${action} as 'idle' must be a boolean: current value is ${
          describeValue(idle)
        }`,
      );
    }
    this.#combined = watermark;
    this.#idle = idle;
  }

  /**
   * Recomputes the idle flag and the combined watermark from the partials.
   * Check {@linkcode CombinedWatermarkStatus.isIdle} separately: the idle
   * flag can change while the watermark does not.
   *
   * @returns `true` if the combined watermark advanced.
   */
  updateCombinedWatermark(): boolean {
    if (this.#partials.size === 0) {
      // Flink returns early here so that the empty minimum (MAX) is never
      // emitted. FLINK-39586: once event time has advanced and the last
      // partial is gone, nothing can hold the stream active, so it goes idle.
      // Before that (no split assigned yet) the idle flag is left alone.
      if (this.#combined > -Infinity) this.#idle = true;
      return false;
    }
    const max = this.#max;
    let allIdle = true;
    let active = max ? -Infinity : Infinity;
    let overall = -Infinity;
    for (const partial of this.#partials) {
      const watermark = partial.getWatermark();
      if (watermark > overall) overall = watermark;
      if (partial.isIdle()) continue;
      allIdle = false;
      if (max ? watermark > active : watermark < active) active = watermark;
    }
    this.#idle = allIdle;
    // FLINK-38454: with every partial idle, flush the maximum of all of them.
    // Flink before it kept the minimum of the last active ones, so the result
    // depended on the order in which the partials went idle.
    const candidate = allIdle ? overall : active;
    if (candidate > this.#combined) {
      this.#combined = candidate;
      return true;
    }
    return false;
  }
}

/**
 * A {@linkcode CombinedWatermarkStatus} over a fixed number of inputs
 * addressed by index: what a two-input or multiple-input operator keeps after
 * each input's own valve.
 *
 * Each update sets one input's partial and recomputes the combination at once.
 * An operator processes the combined watermark when an update returns `true`,
 * and forwards a status change when {@linkcode IndexedCombinedWatermarkStatus.isIdle}
 * differs from its value before the update: idle only when all inputs are
 * idle, active as soon as one is active again.
 *
 * Cost: each update scans all inputs. Not safe for concurrent use.
 *
 * @example The operator watermark of a two-input operator
 * ```ts
 * import { IndexedCombinedWatermarkStatus } from "./combined_watermark_status.ts";
 * import assert from "node:assert/strict";
 *
 * const inputs = IndexedCombinedWatermarkStatus.forInputsCount(2);
 * assert.equal(inputs.updateWatermark(0, 100), false);
 * assert.equal(inputs.updateWatermark(1, 40), true);
 * assert.equal(inputs.getCombinedWatermark(), 40);
 * assert.equal(inputs.updateStatus(1, true), true);
 * assert.equal(inputs.getCombinedWatermark(), 100);
 * ```
 */
export class IndexedCombinedWatermarkStatus {
  readonly #status: CombinedWatermarkStatus;
  readonly #partials: PartialWatermark[];

  /**
   * Creates the combination of `inputsCount` inputs, each at `-Infinity` and
   * active. Same as {@linkcode IndexedCombinedWatermarkStatus.forInputsCount}.
   *
   * @param inputsCount The number of inputs, at least 1.
   * @param policy How active inputs are combined; `"min"` by default.
   * @throws {RangeError} If `inputsCount` is not a positive safe integer, or
   *   `policy` is a string other than `"min"` or `"max"`.
   * @throws {TypeError} If `inputsCount` is not a number or `policy` not a string.
   */
  constructor(inputsCount: number, policy: WatermarkCombinePolicy = "min") {
    const action = "create IndexedCombinedWatermarkStatus";
    requirePositiveInteger(inputsCount, { action, param: "inputsCount" });
    this.#status = new CombinedWatermarkStatus(requirePolicy(policy, action));
    this.#partials = Array.from(
      { length: inputsCount },
      () => new PartialWatermark(),
    );
    for (const partial of this.#partials) this.#status.add(partial);
  }

  /**
   * Creates the combination of `inputsCount` inputs (Flink's factory name).
   *
   * @param inputsCount The number of inputs, at least 1.
   * @param policy How active inputs are combined; `"min"` by default.
   * @returns The new combination.
   * @throws {RangeError} If `inputsCount` is not a positive safe integer, or
   *   `policy` is a string other than `"min"` or `"max"`.
   * @throws {TypeError} If `inputsCount` is not a number or `policy` not a string.
   */
  static forInputsCount(
    inputsCount: number,
    policy: WatermarkCombinePolicy = "min",
  ): IndexedCombinedWatermarkStatus {
    return new IndexedCombinedWatermarkStatus(inputsCount, policy);
  }

  /**
   * Sets one input's watermark (marking it active) and recomputes.
   *
   * @param index The input, from 0 to `inputsCount - 1`.
   * @param watermark Event time in milliseconds, or `±Infinity`.
   * @returns `true` if the combined watermark advanced.
   * @throws {RangeError} If `index` is out of range or `watermark` is not a
   *   safe integer or an infinity.
   * @throws {TypeError} If either argument is not a number.
   */
  updateWatermark(index: number, watermark: number): boolean {
    const action = "update IndexedCombinedWatermarkStatus";
    requireIndex(index, this.#partials.length, { action, param: "index" });
    requireWatermark(watermark, { action, param: "watermark" });
    this.#partials[index].setWatermark(watermark);
    return this.#status.updateCombinedWatermark();
  }

  /**
   * Sets one input's idle flag and recomputes.
   *
   * @param index The input, from 0 to `inputsCount - 1`.
   * @param idle `true` when the input became idle, `false` when active.
   * @returns `true` if the combined watermark advanced; check
   *   {@linkcode IndexedCombinedWatermarkStatus.isIdle} for the status.
   * @throws {RangeError} If `index` is out of range.
   * @throws {TypeError} If `index` is not a number or `idle` not a boolean.
   */
  updateStatus(index: number, idle: boolean): boolean {
    const action = "update IndexedCombinedWatermarkStatus";
    requireIndex(index, this.#partials.length, { action, param: "index" });
    if (typeof idle !== "boolean") {
      throw new TypeError(
        `Cannot ${action} as 'idle' must be a boolean: current value is ${
          describeValue(idle)
        }`,
      );
    }
    this.#partials[index].setIdle(idle);
    return this.#status.updateCombinedWatermark();
  }

  /** The combined watermark; `-Infinity` until every active input has one. */
  getCombinedWatermark(): number {
    return this.#status.getCombinedWatermark();
  }

  /** Whether all inputs are idle. */
  isIdle(): boolean {
    return this.#status.isIdle();
  }
}

function requirePolicy(value: unknown, action: string): WatermarkCombinePolicy {
  if (value === "min" || value === "max") return value;
  const message =
    `Cannot ${action} as 'policy' must be "min" or "max": current value is ${
      describeValue(value)
    }`;
  // A string of the wrong value is out of range, anything else the wrong type.
  throw typeof value === "string"
    ? new RangeError(message)
    : new TypeError(message);
}
