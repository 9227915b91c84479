// Argument checks shared by the window assigners. Factories check their
// arguments once; the per-record checks here are the two
// that Flink also makes on the hot path: a record must carry a timestamp,
// and a dynamic session gap must be positive.

import { describeValue, type Subject } from "../time/validate.ts";

/**
 * Builds a RangeError in std's message shape for a rule that relates two
 * arguments (`abs(offsetMs) < sizeMs`), which the single-value checks of
 * `../time/_validate.ts` cannot express. The caller throws it.
 */
export function relationError(
  subject: Subject,
  rule: string,
  value: unknown,
): RangeError {
  return new RangeError(
    `Cannot ${subject.action} as '${subject.param}' must ${rule}: current value is ${
      describeValue(value)
    }`,
  );
}

/**
 * Checks that an event-time assigner got a record with a timestamp; returns
 * nothing on the hot path. `-Infinity` is the "no timestamp" marker (Flink's
 * `Long.MIN_VALUE`), which is what a record carries when no timestamp
 * assigner ran; `Infinity` and `NaN` cannot be placed in a window either.
 *
 * @param timestamp The record's timestamp.
 * @param assigner The assigner's name, for the message.
 * @throws {RangeError} If `timestamp` is not finite.
 */
export function requireRecordTimestamp(
  timestamp: number,
  assigner: string,
): void {
  if (Number.isFinite(timestamp)) return;
  throw new RangeError(
    `Cannot assign windows with ${assigner} as 'timestamp' must be finite: current value is ${
      describeValue(timestamp)
    } (the record has no timestamp: call assignTimestampsAndWatermarks() before an event-time window, or use a processing-time window)`,
  );
}

/**
 * Checks that `value` is one of `allowed`; returns it typed.
 *
 * @throws {TypeError} If `value` is not a string.
 * @throws {RangeError} If `value` is a string outside `allowed`.
 */
export function requireOneOf<V extends string>(
  value: unknown,
  allowed: readonly V[],
  subject: Subject,
): V {
  if (allowed.includes(value as V)) return value as V;
  const rule = `one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
  const message =
    `Cannot ${subject.action} as '${subject.param}' must be ${rule}: current value is ${
      describeValue(value)
    }`;
  throw typeof value === "string"
    ? new RangeError(message)
    : new TypeError(message);
}

/**
 * Checks Flink's grid rule `abs(offsetMs) < periodMs` for an offset that
 * shifts windows of `periodMs` (a tumbling size or a sliding slide). The
 * rule also rejects a period `<= 0`, and then the period is what to fix, so
 * the message names it; otherwise it names the offset.
 *
 * @param action The action in the message, e.g. "create TumblingEventTimeWindows".
 * @param periodParam The period's parameter name, e.g. "sizeMs".
 * @param periodMs The validated period.
 * @param offsetMs The validated offset.
 * @param rule The rule as the message states it, e.g. "abs(offsetMs) < sizeMs".
 * @throws {RangeError} If `abs(offsetMs) >= periodMs`.
 */
export function requireOffsetWithinPeriod(
  action: string,
  periodParam: string,
  periodMs: number,
  offsetMs: number,
  rule: string,
): void {
  if (Math.abs(offsetMs) < periodMs) return;
  if (periodMs <= 0) {
    throw relationError(
      { action, param: periodParam },
      `satisfy ${rule}, with offsetMs ${offsetMs}`,
      periodMs,
    );
  }
  throw relationError(
    { action, param: "offsetMs" },
    `satisfy ${rule}, with ${periodParam} ${periodMs}`,
    offsetMs,
  );
}
