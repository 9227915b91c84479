// The context a window function sees when a pane engine window fires: one
// per fired window, shared by its panes, with processing time read only if
// the function asks for it.

import type { Clock } from "../time/mod.ts";
import type { OutputTag } from "./output_tag.ts";
import type { TimeWindow } from "./time_window.ts";
import type { ProcessWindowContext } from "./window_function.ts";
import type { WindowOutput } from "./window_output.ts";

/** A {@linkcode ProcessWindowContext} for the panes of one fired window. */
export class PaneFireContext implements ProcessWindowContext {
  readonly window: TimeWindow;
  readonly currentWatermark: number;
  readonly #clock: Clock;
  readonly #output: WindowOutput<unknown>;

  constructor(
    window: TimeWindow,
    watermark: number,
    clock: Clock,
    output: WindowOutput<unknown>,
  ) {
    this.window = window;
    this.currentWatermark = watermark;
    this.#clock = clock;
    this.#output = output;
  }

  // Read when asked, not per pane: the clock read per fired window was a
  // measurable part of firing.
  get currentProcessingTime(): number {
    return this.#clock.now();
  }

  output<X>(tag: OutputTag<X>, value: X): void {
    this.#output.sideOutput(
      tag as OutputTag<unknown>,
      value,
      this.window.maxTimestamp(),
    );
  }
}
