// What the window function is handed when a pane engine window fires: one
// PaneFire per fired window (its collector, side output and clock read),
// and a small context object of plain data per pane, as the general engine
// hands one per emit.

import type { OutputTag } from "./output_tag.ts";
import type { TimeWindow } from "./time_window.ts";
import type { ProcessWindowContext } from "./window_function.ts";
import type { WindowOutput } from "./window_output.ts";

/**
 * The firing of one window's panes. The clock is read once per fired
 * window, not per pane as the general engine reads it: that read was a
 * measurable part of firing. Panes of one window fired in one sweep so see
 * one instant; they differ from the general engine's only if the clock
 * moves during the sweep (e.g. a window function advancing a ManualClock
 * around a WindowOperator used on its own: in a job, the operator reads
 * its clock once per call).
 * The collector is bound to the window's timestamp, so a kept `out` called
 * later stamps this window's results; its count of results is shared by
 * the window's panes, so one kept from a pane and called during another
 * pane's emit counts toward the latter's rejectFire count.
 */
export class PaneFire<OUT> {
  /** Results collected since the pane's emit began (for rejectFire). */
  emitted = 0;
  /** Collects a result at the window's maxTimestamp. */
  readonly collect: (value: OUT) => void;
  readonly #window: TimeWindow;
  readonly #watermark: number;
  readonly #now: number;
  readonly #side: <X>(tag: OutputTag<X>, value: X) => void;

  constructor(
    window: TimeWindow,
    timestamp: number,
    watermark: number,
    now: number,
    output: WindowOutput<OUT>,
  ) {
    this.#window = window;
    this.#watermark = watermark;
    this.#now = now;
    this.collect = (value: OUT): void => {
      output.collect(value, timestamp);
      this.emitted++;
    };
    this.#side = <X>(tag: OutputTag<X>, value: X): void => {
      output.sideOutput(tag as OutputTag<unknown>, value, timestamp);
    };
  }

  /** A pane's own context: plain data properties, read once. */
  context(): ProcessWindowContext {
    return {
      window: this.#window,
      currentWatermark: this.#watermark,
      currentProcessingTime: this.#now,
      output: this.#side,
    };
  }
}
