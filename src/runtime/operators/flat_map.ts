/**
 * The one-to-many record transformation.
 *
 * @module
 */

import { StatelessOperator } from "../stateless_operator.ts";
import { requireFunction } from "./_validate.ts";

/**
 * Calls `fn` for every record with a collector (Flink's `StreamFlatMap`):
 * zero or more output records per input record, each with the input
 * record's timestamp.
 *
 * Everything one input batch produces goes out as one output batch (none
 * when it produced nothing). Watermarks and statuses are forwarded as they
 * come. There is no processing-time work and no state: the snapshot is
 * `null`. Cost: one call of `fn` per record; one collector per batch.
 *
 * A record for which `fn` throws goes to the subtask's error policy
 * (`OperatorContext.reject`), and what it collected before the throw is
 * dropped.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export class FlatMapOperator<IN, OUT> extends StatelessOperator<IN, OUT> {
  /**
   * Creates the operator.
   *
   * @param fn Emits the outputs of one record through `out`; `out` is valid
   * only during the call.
   * @throws {TypeError} If `fn` is not a function.
   */
  constructor(fn: (value: IN, out: (value: OUT) => void) => void) {
    requireFunction(fn, { action: "create FlatMapOperator", param: "fn" });
    super(function flatMapBatch(values, timestamps, output, reject) {
      const produced: OUT[] = [];
      const producedTimestamps: number[] = [];
      let timestamp = -Infinity;
      const out = function collect(value: OUT): void {
        produced.push(value);
        producedTimestamps.push(timestamp);
      };
      // A record whose fn throws is set aside with what it produced before
      // the throw, and the loop resumes after it.
      const n = values.length;
      let i = 0;
      let before = 0;
      while (i < n) {
        try {
          for (; i < n; i++) {
            timestamp = timestamps[i];
            before = produced.length;
            fn(values[i], out);
          }
        } catch (error) {
          produced.length = producedTimestamps.length = before;
          reject(values[i], timestamps[i], error, i);
          i++;
        }
      }
      if (produced.length > 0) output.emitBatch(produced, producedTimestamps);
    });
  }
}
