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
      const kept: T[] = [];
      const keptTimestamps: number[] = [];
      // A record whose fn throws is set aside (neither kept nor dropped
      // silently) and the loop resumes after it.
      const n = values.length;
      let i = 0;
      while (i < n) {
        try {
          for (; i < n; i++) {
            if (fn(values[i])) {
              kept.push(values[i]);
              keptTimestamps.push(timestamps[i]);
            }
          }
        } catch (error) {
          reject(values[i], timestamps[i], error, i);
          i++;
        }
      }
      if (kept.length > 0) output.emitBatch(kept, keptTimestamps);
    });
  }
}
