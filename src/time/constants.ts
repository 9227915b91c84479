/**
 * The two ends of event time.
 *
 * Flink encodes them as `Long.MIN_VALUE` and `Long.MAX_VALUE`; weir uses the
 * IEEE infinities, so Flink's overflow guards become plain arithmetic:
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
