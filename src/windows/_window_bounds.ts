// Window bounds that stay exact and inside the safe range for any safe
// timestamp. Flink computes them in
// longs and would wrap around at the ends; weir clips each window to the
// safe range instead. No record lies outside it, so clipping removes no
// record from any window, and it keeps the window's last timestamp (its
// timer and its results' timestamp) a safe integer.
//
// The helpers take a `start` or `end` computed as the sum or difference of
// two safe integers. Such a value is exact while it is a safe integer, and
// otherwise rounded; rounding is monotone, so a result past a bound still
// lands past it (2^53 + 1 rounds to 2^53, never below), and clipping it
// gives the right value.

/**
 * The end a window clips to: one past `Number.MAX_SAFE_INTEGER`, so the
 * window's `maxTimestamp()` is `MAX_SAFE_INTEGER` and still holds a record at
 * that timestamp. It is `2^53`, a double that is exact though not a safe
 * integer; it is only ever a window's end, never a timestamp.
 */
export const MAX_WINDOW_END: number = Number.MAX_SAFE_INTEGER + 1;

/**
 * Clips a window start below `Number.MIN_SAFE_INTEGER` to it. A window that
 * would begin before the safe range holds its records from its start on.
 */
export function clipStart(start: number): number {
  return start < Number.MIN_SAFE_INTEGER ? Number.MIN_SAFE_INTEGER : start;
}

/** Clips a window end above {@linkcode MAX_WINDOW_END} to it. */
export function clipEnd(end: number): number {
  return end > MAX_WINDOW_END ? MAX_WINDOW_END : end;
}

/**
 * How far `timestamp` lies past the start of its cell on a grid of `period`
 * shifted by `offset`: `timestamp - start`, in `[0, period)`. The start is
 * then `timestamp - distance` (Flink's `getWindowStartWithOffset`).
 *
 * Flink computes `(timestamp - offset) % period`, which leaves the safe range
 * (and so rounds) when `timestamp` is within `|offset|` of its end. Here both
 * remainders stay below `period` in magnitude: `timestamp % period` is exact
 * for any double, and it is first moved to the sign of `offset` (by one
 * period, keeping it congruent), so the difference cannot overflow.
 *
 * @param timestamp A safe integer.
 * @param offset A safe integer with `|offset| < period`.
 * @param period A positive safe integer.
 * @returns The distance, an integer in `[0, period)`; `NaN` if `timestamp`
 * is not finite.
 */
export function gridDistance(
  timestamp: number,
  offset: number,
  period: number,
): number {
  let remainder = timestamp % period;
  if (remainder > 0 && offset < 0) remainder -= period;
  else if (remainder < 0 && offset > 0) remainder += period;
  remainder -= offset;
  // `+ 0` turns a -0 (a negative timestamp on the grid) into 0.
  return remainder < 0 ? remainder + period : remainder + 0;
}
