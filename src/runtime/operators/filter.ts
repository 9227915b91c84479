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
 * is dropped), in new arrays of the kept records' exact size. Watermarks
 * and statuses are forwarded as they come. There is no processing-time work
 * and no state: the snapshot is `null`. Cost: one call of `fn` per record.
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
    // The indices of the records kept after the first one dropped, reused
    // from batch to batch. A call of the batch function inside another (fn
    // filtering through this operator) finds it taken and gets its own.
    let spare = EMPTY_INDICES;
    super(function filterBatch(values, timestamps, output, reject) {
      const n = values.length;
      // Up to the first record dropped nothing is written, and a batch
      // that keeps none allocates nothing. One that keeps every record
      // goes on as a copy, not as the input itself: a record's dead-letter
      // id after the filter then never depends on how the source's polls
      // were cut (an operator handed its input array gets exact input
      // positions, which at a source go into the id).
      let first = 0;
      try {
        while (first < n && fn(values[first])) first++;
      } catch (error) {
        reject(values[first], timestamps[first], error, first);
      }
      if (first === n) {
        if (n > 0) output.emitBatch(values.slice(), timestamps.slice());
        return;
      }
      const kept = spare.length >= n ? spare : new Int32Array(n);
      spare = EMPTY_INDICES;
      let k = 0;
      // A record whose fn throws is set aside (neither kept nor dropped
      // silently) and the loop resumes after it.
      let i = first + 1;
      while (i < n) {
        try {
          for (; i < n; i++) if (fn(values[i])) kept[k++] = i;
        } catch (error) {
          reject(values[i], timestamps[i], error, i);
          i++;
        }
      }
      // Arrays of the exact size, packed: the records before the first
      // dropped are already in place, the others are moved down.
      const size = first + k;
      let keptValues: T[] | null = null;
      let keptTimestamps: number[] | null = null;
      if (size > 0) {
        keptValues = values.slice(0, size);
        keptTimestamps = timestamps.slice(0, size);
        for (let j = 0; j < k; j++) {
          const from = kept[j];
          keptValues[first + j] = values[from];
          keptTimestamps[first + j] = timestamps[from];
        }
      }
      spare = kept;
      if (keptValues !== null) output.emitBatch(keptValues, keptTimestamps!);
    });
  }
}

const EMPTY_INDICES = new Int32Array(0);
