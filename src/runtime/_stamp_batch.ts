// A source subtask's timestamp assignment over one polled batch, under the
// error policy: a record whose assigner throws, or whose timestamp is not a
// safe integer, is rejected on its own and the
// batch goes on without it.

import {
  recordTimestampAssigner,
  type TimestampAssigner,
} from "../time/mod.ts";
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
 * @param own Whether `given` is the batch's own array, never changed
 * afterwards (`SourceBatch.ownTimestamps`): then it may be handed on.
 */
export function stampBatch<T>(
  values: readonly T[],
  given: readonly number[],
  assign: TimestampAssigner<T>,
  reject: RejectRecord,
  partition: string,
  own = false,
): StampedBatch {
  const n = values.length;
  // The default assigner keeps the source's timestamps: when they are all
  // valid (the usual case) the batch's are those, with no call per record:
  // a copy, as a reader may refill its array for the next poll while this
  // batch waits downstream, unless they are the batch's own. Otherwise (an
  // invalid timestamp, or no array of them from a plain-JS reader) the
  // general loop below rejects exactly what it would have.
  if (
    assign === recordTimestampAssigner && Array.isArray(given) &&
    given.length === n
  ) {
    let i = 0;
    while (i < n && isTimestamp(given[i])) i++;
    if (i === n) {
      return {
        timestamps: own ? given as number[] : given.slice(),
        rejected: null,
      };
    }
  }
  const timestamps = new Array<number>(n);
  // A plain loop up to the first record that fails, if one does; the rest
  // of the batch goes on in stampRest. The bad timestamp of the failed
  // record stays NaN when its assigner threw.
  let i = 0;
  let bad = NaN;
  let error: unknown = undefined;
  try {
    for (; i < n; i++) {
      const ts = assign(values[i], given[i]);
      if (!isTimestamp(ts)) {
        bad = typeof ts === "number" ? ts : NaN;
        error = invalidTimestamp(ts, i, partition);
        break;
      }
      timestamps[i] = ts;
    }
  } catch (thrown) {
    error = thrown;
  }
  if (i === n) return { timestamps, rejected: null };
  const rest = { values, given, assign, reject, partition, timestamps };
  return { timestamps, rejected: stampRest(rest, i, bad, error) };
}

// Adding 1.5 * 2^52 rounds any double of magnitude at most 2^51 to an
// integer: such a value is an integer if it comes back unchanged. Two
// additions and a few compares cost half of Number.isSafeInteger per
// record; larger magnitudes take the exact test, and a value that is not a
// number is never coerced (an assigner may return anything).
const ROUND = 1.5 * 2 ** 52;
const SMALL = 2 ** 51;

// -Infinity is "no timestamp" (a processing-time stream); event-time
// windows reject such records with their own message.
function isTimestamp(ts: number): boolean {
  return (typeof ts === "number" && ts >= -SMALL && ts <= SMALL &&
    ts + ROUND - ROUND === ts) ||
    Number.isSafeInteger(ts) || ts === -Infinity;
}

function invalidTimestamp(ts: unknown, i: number, partition: string): Error {
  return new RangeError(
    `Cannot read from partition '${partition}' as 'timestamp' of record ${i} must be a safe integer of epoch milliseconds (or -Infinity for none): current value is ${ts}`,
  );
}

// What stampRest works on: stampBatch's arguments and its timestamps.
interface Rest<T> {
  readonly values: readonly T[];
  readonly given: readonly number[];
  readonly assign: TimestampAssigner<T>;
  readonly reject: RejectRecord;
  readonly partition: string;
  readonly timestamps: number[];
}

// stampBatch from record `failed`, which failed with `error` (its bad
// timestamp `bad`): it is rejected, and the batch goes on after it, each
// record that fails rejected on its own. Returns which records were.
function stampRest<T>(
  rest: Rest<T>,
  failed: number,
  bad: number,
  error: unknown,
): boolean[] {
  const { values, given, assign, reject, partition, timestamps } = rest;
  const n = values.length;
  const rejected = new Array<boolean>(n).fill(false);
  let i = failed;
  while (i < n) {
    rejected[i] = true;
    reject(values[i], bad, error, i);
    bad = NaN;
    try {
      for (i++; i < n; i++) {
        const ts = assign(values[i], given[i]);
        if (!isTimestamp(ts)) {
          bad = typeof ts === "number" ? ts : NaN;
          error = invalidTimestamp(ts, i, partition);
          break;
        }
        timestamps[i] = ts;
      }
    } catch (thrown) {
      error = thrown;
    }
  }
  return rejected;
}
