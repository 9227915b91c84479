// A source subtask's timestamp assignment over one polled batch, under the
// error policy: a record whose assigner throws, or whose timestamp is not a
// safe integer (DESIGN: "Time and numbers"), is rejected on its own and the
// batch goes on without it.

import type { TimestampAssigner } from "../time/mod.ts";
import type { RejectRecord } from "./stream_operator.ts";

/** A polled batch's timestamps, and which records were rejected. */
export interface StampedBatch {
  /** One timestamp per record (a rejected record's slot is meaningless). */
  readonly timestamps: number[];
  /** Which records were rejected, or `null` when none was (the usual case). */
  readonly rejected: boolean[] | null;
}

/**
 * Assigns the timestamps of one polled batch.
 *
 * @param values The records.
 * @param given The timestamps the source knows (`-Infinity` for none).
 * @param assign The strategy's timestamp assigner.
 * @param reject Sets a record aside (throws under `"fail"`).
 * @param partition The partition's name, for messages.
 */
export function stampBatch<T>(
  values: readonly T[],
  given: readonly number[],
  assign: TimestampAssigner<T>,
  reject: RejectRecord,
  partition: string,
): StampedBatch {
  const n = values.length;
  const timestamps = new Array<number>(n);
  let rejected: boolean[] | null = null;
  let i = 0;
  // The bad timestamp of a rejected record (NaN when the assigner threw):
  // set only on the failure path.
  let bad = NaN;
  while (i < n) {
    try {
      for (; i < n; i++) {
        const ts = assign(values[i], given[i]);
        // -Infinity is "no timestamp" (a processing-time stream); event-time
        // windows reject such records with their own message.
        if (!Number.isSafeInteger(ts) && ts !== -Infinity) {
          bad = typeof ts === "number" ? ts : NaN;
          throw new RangeError(
            `Cannot read from partition '${partition}' as 'timestamp' of record ${i} must be a safe integer of epoch milliseconds (or -Infinity for none): current value is ${ts}`,
          );
        }
        timestamps[i] = ts;
      }
    } catch (error) {
      reject(values[i], bad, error, i);
      bad = NaN;
      (rejected ??= new Array<boolean>(n).fill(false))[i++] = true;
    }
  }
  return { timestamps, rejected };
}
