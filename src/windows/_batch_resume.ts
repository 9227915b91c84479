// A batch of records after one of them threw: what both window engines do
// so that the records of a batch pay for no try of their own.

import type { WindowOutput } from "./window_output.ts";

/** How a batch goes on: the record path, and the take-back of a failed record. */
export interface BatchSteps<T> {
  /** Processes one record (throws what its user code threw). */
  process(value: T, timestamp: number): void;
  /** Undoes what the record that threw left behind. */
  takeBack(): void;
}

/**
 * Goes on with a batch from the record at `failed`, whose user code threw
 * `error`: it is taken back and rejected (see `WindowOutput.rejectRecord`),
 * and the batch goes on after it; without `rejectRecord` the error is
 * rethrown and the rest of the batch is not processed.
 */
export function resumeBatch<T>(
  values: readonly T[],
  timestamps: ArrayLike<number>,
  failed: number,
  error: unknown,
  steps: BatchSteps<T>,
  output: WindowOutput<unknown>,
): void {
  const reject = output.rejectRecord;
  let i = failed;
  for (;;) {
    steps.takeBack();
    if (reject === undefined) throw error;
    reject(values[i], timestamps[i], error, i);
    try {
      for (i++; i < values.length; i++) steps.process(values[i], timestamps[i]);
      return;
    } catch (thrown) {
      error = thrown;
    }
  }
}
