/**
 * The two ends of event time, and the range of timestamps ingest accepts.
 *
 * Flink encodes the ends as `Long.MIN_VALUE` and `Long.MAX_VALUE`; weir uses
 * the IEEE infinities, so Flink's overflow guards become plain arithmetic:
 * `MIN_WATERMARK - 5 === MIN_WATERMARK` and `MAX_WATERMARK + 1 === MAX_WATERMARK`.
 *
 * @module
 */

/**
 * The watermark before any event: event time starts here, so nothing is late
 * yet. A `Watermark(MIN_WATERMARK)` is never emitted (it cannot advance).
 */
export const MIN_WATERMARK: number = -Infinity;

/**
 * The end of event time: sources emit it at the end of bounded input so every
 * pending window and timer fires.
 */
export const MAX_WATERMARK: number = Infinity;

/**
 * The earliest timestamp ingest accepts: 0001-01-01T00:00:00.000Z, in epoch
 * milliseconds.
 *
 * Timestamps are safe integers, but the core computes with them: window
 * ends (`start + size`), watermarks (`maxTimestamp - bound - 1`), cleanup
 * times (`maxTimestamp + allowedLateness`) and user timers
 * (`timestamp + timeout`). Ingest refuses timestamps outside
 * `[MIN_TIMESTAMP, MAX_TIMESTAMP]`, so that arithmetic stays exact, with
 * thousands of years of room on either side for any realistic size, bound
 * or lateness. The range is that of ISO 8601 years without a sign, so every
 * accepted timestamp prints as a plain `YYYY-MM-DD` date.
 *
 * The core does not rely on it: it accepts any safe integer and saturates
 * where the arithmetic would leave the safe range (a window end clips to
 * `Number.MAX_SAFE_INTEGER + 1`, a watermark below `Number.MIN_SAFE_INTEGER`
 * becomes {@linkcode MIN_WATERMARK}), so an extreme but valid timestamp
 * that reaches it another way is handled, never fatal.
 *
 * @example The range as dates
 * ```ts
 * import { MAX_TIMESTAMP, MIN_TIMESTAMP } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(new Date(MIN_TIMESTAMP).toISOString(), "0001-01-01T00:00:00.000Z");
 * assert.equal(new Date(MAX_TIMESTAMP).toISOString(), "9999-12-31T23:59:59.999Z");
 * ```
 */
export const MIN_TIMESTAMP: number = -62_135_596_800_000;

/**
 * The latest timestamp ingest accepts: 9999-12-31T23:59:59.999Z, in epoch
 * milliseconds. See {@linkcode MIN_TIMESTAMP} for why the range exists and
 * what the core does beyond it.
 */
export const MAX_TIMESTAMP: number = 253_402_300_799_999;
