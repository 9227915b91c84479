/**
 * The one-to-one record transformation.
 *
 * @module
 */

import { StatelessOperator } from "../stateless_operator.ts";
import { requireFunction } from "./_validate.ts";
import { withoutRejected } from "../_record_guard.ts";

/**
 * Applies `fn` to every record (Flink's `StreamMap`): one output record per
 * input record, with the input's timestamp.
 *
 * Each input batch becomes one output batch (none for an empty batch); the
 * timestamps array is passed on unchanged. Watermarks and statuses are
 * forwarded as they come. There is no processing-time work and no state: the
 * snapshot is `null`. Cost: one call of `fn` per record.
 *
 * A record for which `fn` throws goes to the subtask's error policy
 * (`OperatorContext.reject`) and is left out of the output batch.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export class MapOperator<IN, OUT> extends StatelessOperator<IN, OUT> {
  /**
   * Creates the operator.
   *
   * @param fn Maps one record; must not throw for valid records.
   * @throws {TypeError} If `fn` is not a function.
   */
  constructor(fn: (value: IN) => OUT) {
    requireFunction(fn, { action: "create MapOperator", param: "fn" });
    super(function mapBatch(values, timestamps, output, reject) {
      const n = values.length;
      if (n === 0) return;
      const mapped = new Array<OUT>(n);
      let rejected: number[] | null = null;
      // A record whose fn throws is set aside and the loop resumes after it.
      let i = 0;
      while (i < n) {
        try {
          for (; i < n; i++) mapped[i] = fn(values[i]);
        } catch (error) {
          reject(values[i], timestamps[i], error, i);
          (rejected ??= []).push(i++);
        }
      }
      // Arrays are never modified once emitted, so the timestamps can be shared.
      if (rejected === null) output.emitBatch(mapped, timestamps as number[]);
      else {
        const [kept, keptTimestamps] = withoutRejected(
          mapped,
          timestamps,
          rejected,
        );
        if (kept.length > 0) output.emitBatch(kept, keptTimestamps);
      }
    });
  }
}
