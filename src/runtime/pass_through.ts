/**
 * The operator that forwards everything: the head of a source subtask.
 *
 * @module
 */

import { StatelessOperator } from "./stateless_operator.ts";

/**
 * Forwards records, watermarks and statuses unchanged; holds no state and
 * has no processing-time work. Every batch is forwarded as it is, even an
 * empty one, and the arrays are passed on without copying.
 *
 * @typeParam T The record type.
 */
export class PassThroughOperator<T> extends StatelessOperator<T, T> {
  /** Creates the operator. */
  constructor() {
    super(function forwardBatch(values, timestamps, output) {
      output.emitBatch(values as T[], timestamps as number[]);
    });
  }
}
