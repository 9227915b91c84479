// One fired window handed to its window function, as the general and the
// session engine hand it.

import type { OutputTag } from "./output_tag.ts";
import type { TimeWindow } from "./time_window.ts";
import type {
  ProcessWindowContext,
  WindowFunction,
} from "./window_function.ts";
import type { WindowOutput } from "./window_output.ts";

/**
 * Calls `fn.emit` for `key`'s `window`, with a context of plain data and a
 * collector made for this window alone: a kept `out` or `context.output`
 * stamps this window's `maxTimestamp()` and counts toward its results. A
 * throw goes to `output.rejectFire` with the results given before it (and
 * is rethrown without one).
 */
export function emitWindow<T, K, ACC, OUT>(
  fn: WindowFunction<T, ACC, OUT, K>,
  output: WindowOutput<OUT>,
  key: K,
  window: TimeWindow,
  contents: ACC,
  watermark: number,
  now: number,
): void {
  const timestamp = window.maxTimestamp();
  let emitted = 0;
  const context: ProcessWindowContext = {
    window,
    currentWatermark: watermark,
    currentProcessingTime: now,
    output<X>(tag: OutputTag<X>, value: X): void {
      output.sideOutput(tag as OutputTag<unknown>, value, timestamp);
    },
  };
  try {
    fn.emit(key, context, contents, function collect(value: OUT) {
      output.collect(value, timestamp);
      emitted++;
    });
  } catch (error) {
    // One try per fired window, not per record.
    if (output.rejectFire === undefined) throw error;
    output.rejectFire(key, window, error, emitted);
  }
}
