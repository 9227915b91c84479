/**
 * The record filter.
 *
 * @module
 */

import { StatelessOperator } from "../stateless_operator.ts";
import { requireFunction } from "./_validate.ts";

/**
 * Keeps the records for which `fn` returns `true` (Flink's `StreamFilter`),
 * each with its timestamp.
 *
 * Each input batch becomes at most one output batch (none when every record
 * is dropped). Watermarks and statuses are forwarded as they come. There is
 * no processing-time work and no state: the snapshot is `null`. Cost: one
 * call of `fn` per record.
 *
 * A record for which `fn` throws goes to the subtask's error policy
 * (`OperatorContext.reject`).
 *
 * @typeParam T The record type.
 */
export class FilterOperator<T> extends StatelessOperator<T, T> {
  /**
   * Creates the operator.
   *
   * @param fn Returns `true` for the records to keep.
   * @throws {TypeError} If `fn` is not a function.
   */
  constructor(fn: (value: T) => boolean) {
    requireFunction(fn, { action: "create FilterOperator", param: "fn" });
    super(function filterBatch(values, timestamps, output, reject) {
      // The kept records are moved down in copies of the input, then cut
      // to length: a copy costs less than growing arrays push by push.
      const n = values.length;
      const kept = values.slice();
      const keptTimestamps = timestamps.slice();
      let k = 0;
      // A record whose fn throws is set aside (neither kept nor dropped
      // silently) and the loop resumes after it.
      let i = 0;
      while (i < n) {
        try {
          for (; i < n; i++) {
            const value = values[i];
            if (fn(value)) {
              kept[k] = value;
              keptTimestamps[k++] = timestamps[i];
            }
          }
        } catch (error) {
          reject(values[i], timestamps[i], error, i);
          i++;
        }
      }
      if (k === 0) return;
      kept.length = k;
      keptTimestamps.length = k;
      output.emitBatch(kept, keptTimestamps);
    });
  }
}
