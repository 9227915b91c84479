// A late record (one no window takes, behind the watermark by more than the
// allowed lateness), the same in every engine of a window operator.

import type { OutputTag } from "./output_tag.ts";
import type { WindowOutput } from "./window_output.ts";

/**
 * Sends a late record to the late data side output, if the operator has
 * one; else the record is dropped. Returns the number of records dropped
 * (0 or 1), which the engine adds to its count.
 *
 * @param output The operator's output.
 * @param lateTag The late data side output, or null.
 * @param value The record.
 * @param timestamp Its timestamp.
 */
export function lateRecord<T, OUT>(
  output: WindowOutput<OUT>,
  lateTag: OutputTag<T> | null,
  value: T,
  timestamp: number,
): number {
  if (lateTag === null) return 1;
  output.sideOutput(lateTag as OutputTag<unknown>, value, timestamp);
  return 0;
}
