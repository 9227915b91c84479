/**
 * Event-time windows: the windows themselves, assigners, triggers, the timer
 * service and the window operator with allowed lateness, late side output
 * and session merging. Pure: no I/O.
 *
 * @example Which windows a record belongs to
 * ```ts
 * import { ManualClock } from "../time/mod.ts";
 * import { SlidingEventTimeWindows, TumblingEventTimeWindows } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const context = { clock: new ManualClock() };
 * const [tumbling] = TumblingEventTimeWindows.of(5_000).assignWindows(null, 4_999, context);
 * assert.deepEqual([tumbling.start, tumbling.end], [0, 5_000]);
 * const sliding = SlidingEventTimeWindows.of(5_000, 1_000).assignWindows(null, 4_999, context);
 * assert.equal(sliding.length, 5);
 * ```
 *
 * @module
 */

export * from "./time_window.ts";
export * from "./window_assigner.ts";
export * from "./tumbling.ts";
export * from "./tumbling_processing_time.ts";
export * from "./sliding.ts";
export * from "./session.ts";
export * from "./global.ts";
export * from "./trigger.ts";
export * from "./event_time_trigger.ts";
export * from "./processing_time_trigger.ts";
export * from "./never_trigger.ts";
export * from "./count_trigger.ts";
export * from "./purging_trigger.ts";
export * from "./early_firing_trigger.ts";
export * from "./timer_service.ts";
export * from "./lateness.ts";
export * from "./output_tag.ts";
export * from "./window_function.ts";
export * from "./window_operator.ts";
