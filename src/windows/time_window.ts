/**
 * The window of event time that results are computed over.
 *
 * @module
 */

import { clipStart, gridDistance } from "./_window_bounds.ts";

/**
 * A half-open interval `[start, end)` of event time in milliseconds (Flink's
 * `TimeWindow`). Immutable.
 *
 * `maxTimestamp()` is `end - 1`, the last millisecond inside: a window's
 * results carry it as their timestamp, and an event-time trigger fires once
 * the watermark reaches it. {@linkcode TimeWindow.GLOBAL} spans all of event
 * time and its `maxTimestamp()` is `Infinity`.
 *
 * The assigners clip their windows to the safe range, where all timestamps
 * lie: a start before `Number.MIN_SAFE_INTEGER` becomes
 * `MIN_SAFE_INTEGER`, and an end past `Number.MAX_SAFE_INTEGER + 1` becomes
 * `MAX_SAFE_INTEGER + 1`, so `maxTimestamp()` is at most `MAX_SAFE_INTEGER`
 * and a record at that timestamp is still inside. Clipping drops no record
 * from a window; it makes the window shorter than its size, and two sliding
 * windows that begin before the safe range then share a start (their ends
 * differ).
 *
 * @example Two touching windows intersect and cover their union
 * ```ts
 * import { TimeWindow } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const a = new TimeWindow(10, 20);
 * const b = new TimeWindow(20, 30);
 * assert.equal(a.maxTimestamp(), 19);
 * assert.equal(a.intersects(b), true);
 * assert.ok(a.cover(b).equals(new TimeWindow(10, 30)));
 * ```
 */
export class TimeWindow {
  /** The window over all of event time, used by `GlobalWindows`. */
  static readonly GLOBAL: TimeWindow = new TimeWindow(-Infinity, Infinity);

  /** First millisecond inside the window. */
  readonly start: number;
  /** First millisecond after the window. */
  readonly end: number;

  /**
   * Creates the window `[start, end)`. Not validated: assigners compute the
   * bounds from validated sizes, and this is on the per-record path.
   *
   * @param start Inclusive start, in milliseconds of event time.
   * @param end Exclusive end, in milliseconds of event time.
   */
  constructor(start: number, end: number) {
    this.start = start;
    this.end = end;
  }

  /** The last timestamp inside the window: `end - 1`. */
  maxTimestamp(): number {
    return this.end - 1;
  }

  /** Whether both windows have the same bounds. */
  equals(other: TimeWindow): boolean {
    return this.start === other.start && this.end === other.end;
  }

  /**
   * Whether the windows overlap or touch: `start <= other.end && end >= other.start`,
   * so `[10, 20)` and `[20, 30)` intersect (session windows that touch merge).
   */
  intersects(other: TimeWindow): boolean {
    return this.start <= other.end && this.end >= other.start;
  }

  /** The smallest window containing both: `[min(starts), max(ends))`. */
  cover(other: TimeWindow): TimeWindow {
    return new TimeWindow(
      Math.min(this.start, other.start),
      Math.max(this.end, other.end),
    );
  }

  /** Renders `[start, end)` for messages and logs. */
  toString(): string {
    return `[${this.start}, ${this.end})`;
  }

  /**
   * The start of the window of `size` that contains `timestamp`, with windows
   * shifted by `offset` (Flink's `getWindowStartWithOffset`). Works for
   * negative timestamps and offsets: `-8` in windows of 7 starts at `-14`.
   *
   * Exact for any safe integers, also where Flink's `timestamp - offset`
   * would leave the range. A start before `Number.MIN_SAFE_INTEGER`
   * saturates to `MIN_SAFE_INTEGER` (the window is clipped to the safe
   * range, where its records lie), so the result is always a safe integer.
   *
   * @param timestamp Event time in milliseconds, a safe integer.
   * @param offset Shift of the window grid in milliseconds, `|offset| < size`.
   * @param size Window size (or slide) in milliseconds, positive.
   * @returns The window start, `<= timestamp`.
   */
  static getWindowStartWithOffset(
    timestamp: number,
    offset: number,
    size: number,
  ): number {
    return clipStart(timestamp - gridDistance(timestamp, offset, size));
  }
}

/**
 * Receives each group of windows that {@linkcode mergeWindows} merges.
 *
 * @param merged The windows that merge, in ascending start order (two or more).
 * @param result The window covering them.
 */
export type MergeCallback = (merged: TimeWindow[], result: TimeWindow) => void;

/**
 * Merges overlapping or touching windows (Flink's `TimeWindow.mergeWindows`):
 * sorts by start, sweeps while the next window intersects the running cover,
 * and calls `onMerge` once per group of two or more. Single windows produce
 * no call.
 *
 * @param windows The windows of one key; not modified.
 * @param onMerge Called once per merged group.
 *
 * @example Two groups merge
 * ```ts
 * import { mergeWindows, TimeWindow } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const groups: string[] = [];
 * mergeWindows(
 *   [new TimeWindow(0, 1), new TimeWindow(1, 2), new TimeWindow(4, 5), new TimeWindow(5, 6)],
 *   (merged, result) => groups.push(`${merged.length} -> ${result}`),
 * );
 * assert.deepEqual(groups, ["2 -> [0, 2)", "2 -> [4, 6)"]);
 * ```
 */
export function mergeWindows(
  windows: TimeWindow[],
  onMerge: MergeCallback,
): void {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  let group: TimeWindow[] = [];
  let cover: TimeWindow | null = null;
  for (const window of sorted) {
    if (cover !== null && cover.intersects(window)) {
      group.push(window);
      cover = cover.cover(window);
      continue;
    }
    if (group.length > 1) onMerge(group, cover!);
    group = [window];
    cover = window;
  }
  if (group.length > 1) onMerge(group, cover!);
}
