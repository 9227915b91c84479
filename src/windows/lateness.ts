/**
 * When a window is cleaned up, and when a window or a record is late.
 *
 * @module
 */

import type { TimeWindow } from "./time_window.ts";

/**
 * The time at which a window's state is dropped (Flink's `cleanupTime`):
 * `maxTimestamp() + allowedLatenessMs` for event-time windows,
 * `maxTimestamp()` for processing-time windows (lateness does not apply).
 * A result beyond `Number.MAX_SAFE_INTEGER` is `Infinity`: the window is
 * never cleaned up by a timer, only by the final watermark's end of input.
 * This is Flink's saturation of `cleanupTime` to `Long.MAX_VALUE`, for
 * which it sets no cleanup timer either.
 *
 * @param window The window.
 * @param allowedLatenessMs Allowed lateness in milliseconds (event time only).
 * @param isEventTime Whether the window is in event time.
 * @returns The cleanup time in milliseconds, or `Infinity`.
 */
export function cleanupTime(
  window: TimeWindow,
  allowedLatenessMs: number,
  isEventTime: boolean,
): number {
  const time = isEventTime
    ? window.maxTimestamp() + allowedLatenessMs
    : window.maxTimestamp();
  return time > Number.MAX_SAFE_INTEGER ? Infinity : time;
}

/**
 * Whether an event-time window is past its cleanup time:
 * `maxTimestamp() + allowedLatenessMs <= watermark`. Records
 * for such a window are not added to it.
 *
 * @param window The window.
 * @param allowedLatenessMs Allowed lateness in milliseconds.
 * @param watermark The operator's current watermark.
 * @returns `true` if the window is late.
 */
export function isWindowLate(
  window: TimeWindow,
  allowedLatenessMs: number,
  watermark: number,
): boolean {
  return cleanupTime(window, allowedLatenessMs, true) <= watermark;
}

/**
 * Whether a record is late: `timestamp + allowedLatenessMs <= watermark`.
 * A record dropped by all its windows goes to the late side
 * output only if it is also late by this rule.
 *
 * @param timestamp The record's event timestamp in milliseconds.
 * @param allowedLatenessMs Allowed lateness in milliseconds.
 * @param watermark The operator's current watermark.
 * @returns `true` if the record is late.
 */
export function isElementLate(
  timestamp: number,
  allowedLatenessMs: number,
  watermark: number,
): boolean {
  // The sum may pass the safe range near its end; it is only compared, and
  // rounding is monotone, so a sum past MAX_SAFE_INTEGER stays above every
  // finite watermark, as the exact one is: no saturation needed.
  return timestamp + allowedLatenessMs <= watermark;
}
