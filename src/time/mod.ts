/**
 * Event time: watermarks, their generators and strategies, idleness, and
 * the parts that merge the watermarks of several inputs. Pure: no I/O, and
 * processing time only through an injected {@linkcode Clock}.
 *
 * A generator turns records into watermarks; a {@linkcode WatermarkEmitter}
 * keeps them strictly increasing and turns idleness into status changes; a
 * {@linkcode StatusWatermarkValve} merges the inputs of a subtask.
 *
 * @example A bounded generator feeding one channel of a valve
 * ```ts
 * import { StatusWatermarkValve, WatermarkEmitter, WatermarkStrategy } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const out: number[] = [];
 * const valve = new StatusWatermarkValve(1, { emitWatermark: (w) => out.push(w), emitWatermarkStatus() {} });
 * const emitter = new WatermarkEmitter({
 *   emitWatermark: (w) => valve.inputWatermark(w, 0),
 *   emitWatermarkStatus: (s) => valve.inputWatermarkStatus(s, 0),
 * });
 * const generator = WatermarkStrategy.forBoundedOutOfOrderness<null>(100)
 *   .createWatermarkGenerator({ clock: { now: () => 0 }, subtaskIndex: 0, metrics: { gauge() {} } });
 * generator.onEvent(null, 1_000, emitter);
 * generator.onPeriodicEmit(emitter);
 * assert.deepEqual(out, [899]);
 * ```
 *
 * @module
 */

export * from "./constants.ts";
export * from "./watermark_output.ts";
export * from "./watermark_generator.ts";
export * from "./emitting_output.ts";
export * from "./bounded_out_of_orderness.ts";
export * from "./ascending_timestamps.ts";
export * from "./no_watermarks.ts";
export * from "./punctuated.ts";
export * from "./time_lag.ts";
export * from "./adaptive_out_of_orderness.ts";
export * from "./lateness_histogram.ts";
export * from "./auto_tuned_out_of_orderness.ts";
export * from "./idleness_timer.ts";
export * from "./watermarks_with_idleness.ts";
export * from "./timestamp_assigner.ts";
export * from "./generator_context.ts";
export * from "./watermark_strategy.ts";
export * from "./partial_watermark.ts";
export * from "./combined_watermark_status.ts";
export * from "./valve.ts";
export * from "./multiplexer.ts";
export * from "./alignment.ts";
export * from "./clock.ts";
export * from "./pausable_clock.ts";
