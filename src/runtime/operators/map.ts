/**
 * The one-to-one record transformation.
 *
 * @module
 */

import { StatelessOperator } from "../_stateless_operator.ts";
import { requireFunction } from "./_validate.ts";

/**
 * Applies `fn` to every record (Flink's `StreamMap`): one output record per
 * input record, with the input's timestamp.
 *
 * Each input batch becomes one output batch (none for an empty batch); the
 * timestamps array is passed on unchanged. Watermarks and statuses are
 * forwarded as they come. There is no processing-time work and no state: the
 * snapshot is `null`. Cost: one call of `fn` per record.
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
    super(function mapBatch(values, timestamps, output) {
      const n = values.length;
      if (n === 0) return;
      const mapped = new Array<OUT>(n);
      for (let i = 0; i < n; i++) mapped[i] = fn(values[i]);
      // Arrays are never modified once emitted, so the timestamps can be shared.
      output.emitBatch(mapped, timestamps as number[]);
    });
  }
}
