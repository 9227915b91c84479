// A hand-written TriggerContext for trigger unit tests: it keeps timers and
// state for one window at a time, as the window operator would.

import type { OnMergeContext } from "../../src/windows/trigger.ts";

/** Records timers as "e:<ts>" and "p:<ts>" and holds one state value. */
export class RecordingTriggerContext implements OnMergeContext {
  /** The watermark the trigger sees. */
  currentWatermark = -Infinity;
  /** The processing time the trigger sees. */
  currentProcessingTime = 0;
  /** Live timers, e.g. "e:1999". */
  readonly timers = new Set<string>();
  /** States of merged windows, for onMerge. */
  mergedStates: readonly number[] = [];
  #state: number | undefined;

  registerEventTimeTimer(timestamp: number): void {
    this.timers.add(`e:${timestamp}`);
  }
  deleteEventTimeTimer(timestamp: number): void {
    this.timers.delete(`e:${timestamp}`);
  }
  registerProcessingTimeTimer(timestamp: number): void {
    this.timers.add(`p:${timestamp}`);
  }
  deleteProcessingTimeTimer(timestamp: number): void {
    this.timers.delete(`p:${timestamp}`);
  }
  getState(): number | undefined {
    return this.#state;
  }
  setState(value: number | undefined): void {
    this.#state = value;
  }
}
