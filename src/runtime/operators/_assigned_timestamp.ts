// What the timestamps operator checks of the timestamp an assigner gives:
// a safe integer of epoch milliseconds, or
// the record is rejected; and a warning, once, for one that looks like
// epoch seconds.

/**
 * Epoch milliseconds below this (3 March 1973) are almost always epoch
 * seconds: the most common cause of a watermark stuck in 1970.
 */
export const SECONDS_THRESHOLD = 1e11;

/** The warning for record `index`'s timestamp below the seconds threshold. */
export function secondsWarning(timestamp: number, index: number): string {
  return `Timestamp ${timestamp} of record ${index} looks like seconds, not epoch milliseconds: multiply it by 1000 in the timestamp assigner, or the watermark stays in 1970 and windows never fire`;
}

/**
 * Rejects record `index`'s timestamp, which is not a safe integer.
 *
 * @throws {RangeError} If it is a number.
 * @throws {TypeError} If it is not.
 */
export function rejectTimestamp(timestamp: unknown, index: number): never {
  const shown = typeof timestamp === "string"
    ? JSON.stringify(timestamp)
    : String(timestamp);
  const hint = timestamp === -Infinity
    ? ": the record carries no timestamp, so set one with withTimestampAssigner()"
    : "";
  const message =
    `Cannot assign the event time of record ${index} of the batch as 'timestamp' must be a safe integer of epoch milliseconds: current value is ${shown}${hint}`;
  throw typeof timestamp === "number"
    ? new RangeError(message)
    : new TypeError(message);
}
