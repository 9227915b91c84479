// The context a window function sees when a pane engine window fires: one
// per fired window, shared by its panes, with processing time read only if
// the function asks for it.

import type { Clock } from "../time/mod.ts";
import type { OutputTag } from "./output_tag.ts";
import type { TimeWindow } from "./time_window.ts";
import type { ProcessWindowContext } from "./window_function.ts";
import type { WindowOutput } from "./window_output.ts";

/**
 * A {@linkcode ProcessWindowContext} for the panes of one fired window: a
 * plain object, as the general engine's, so a function may destructure or
 * spread it. Processing time is read when asked, not per pane: the clock
 * read per fired window was a measurable part of firing.
 */
export function paneFireContext(
  window: TimeWindow,
  watermark: number,
  clock: Clock,
  output: WindowOutput<unknown>,
): ProcessWindowContext {
  const timestamp = window.maxTimestamp();
  return {
    window,
    currentWatermark: watermark,
    get currentProcessingTime(): number {
      return clock.now();
    },
    output<X>(tag: OutputTag<X>, value: X): void {
      output.sideOutput(tag as OutputTag<unknown>, value, timestamp);
    },
  };
}
