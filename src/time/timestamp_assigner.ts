/**
 * How a record gets its event timestamp.
 *
 * @module
 */

/**
 * Extracts a record's event timestamp in epoch milliseconds (Flink's
 * `TimestampAssigner`). It runs once per record, so it must be cheap and
 * must not throw for valid records.
 *
 * @param event The record.
 * @param recordTimestamp The timestamp the record already carries (from its
 * source), or `-Infinity` if it has none.
 * @returns The event timestamp: a safe integer of milliseconds.
 */
export type TimestampAssigner<T> = (
  event: T,
  recordTimestamp: number,
) => number;

/**
 * The default assigner: keeps the timestamp the record already carries, as
 * set by its source (Flink's `RecordTimestampAssigner`).
 *
 * @param _event The record (unused).
 * @param recordTimestamp The timestamp it carries.
 * @returns `recordTimestamp`.
 */
export function recordTimestampAssigner(
  _event: unknown,
  recordTimestamp: number,
): number {
  return recordTimestamp;
}
