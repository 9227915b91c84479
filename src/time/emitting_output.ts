/**
 * The adapter between a generator and a subtask's output channels.
 *
 * @module
 */

import { MIN_WATERMARK } from "./constants.ts";
import type {
  WatermarkOutput,
  WatermarkStatusOutput,
} from "./watermark_output.ts";
import { saturateWatermark } from "./_saturate.ts";

/** The emitter's state as plain data, for checkpoints that persist event time. */
export interface WatermarkEmitterSnapshot {
  /** The highest watermark passed on so far. */
  currentWatermark: number;
  /** Whether the output is idle. */
  idle: boolean;
}

/**
 * Turns a generator's calls into a clean element stream: strictly increasing
 * watermarks and status changes exactly once per transition (Flink's
 * `WatermarkEmitter` and `WatermarkToDataOutput`).
 *
 * - `emitWatermark(w)` drops `w` unless it is strictly greater than every
 *   watermark passed on before (so `-Infinity` and `NaN` are never passed on);
 *   if the output was idle it emits `"active"` first, then the watermark.
 *   A finite `w` outside the safe range saturates first: below
 *   `Number.MIN_SAFE_INTEGER` to `-Infinity` (so it is dropped), above
 *   `Number.MAX_SAFE_INTEGER` to `MAX_SAFE_INTEGER`. Every generator,
 *   a user's too, emits through here, so `ts - bound - 1` computed from an
 *   extreme but valid timestamp never reaches the valve as an invalid
 *   watermark.
 * - `markIdle()` emits `"idle"` unless already idle.
 * - `markActive()` emits `"active"` if idle, even when no watermark follows
 *   (FLINK-40504: a resumed stream whose watermark did not move must not stay
 *   idle downstream).
 *
 * Cost: four comparisons per call; no allocation.
 *
 * @example Dropping a watermark that does not advance
 * ```ts
 * import { WatermarkEmitter } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const seen: unknown[] = [];
 * const emitter = new WatermarkEmitter({
 *   emitWatermark: (w) => seen.push(w),
 *   emitWatermarkStatus: (s) => seen.push(s),
 * });
 * emitter.emitWatermark(10);
 * emitter.emitWatermark(7);
 * emitter.markIdle();
 * emitter.emitWatermark(12);
 * assert.deepEqual(seen, [10, "idle", "active", 12]);
 * ```
 */
export class WatermarkEmitter implements WatermarkOutput {
  readonly #downstream: WatermarkStatusOutput;
  #currentWatermark = MIN_WATERMARK;
  #idle = false;

  /**
   * Creates an active emitter that has passed on no watermark.
   *
   * @param downstream Where watermarks and status changes go.
   */
  constructor(downstream: WatermarkStatusOutput) {
    this.#downstream = downstream;
  }

  /** The highest watermark passed on so far; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#currentWatermark;
  }

  /** Whether the output is idle. */
  get idle(): boolean {
    return this.#idle;
  }

  /**
   * Passes `watermark` on if it advances, saturated into the safe range;
   * re-activates an idle output first.
   */
  emitWatermark(watermark: number): void {
    watermark = saturateWatermark(watermark);
    // `!(a > b)` rather than `a <= b`, so NaN is dropped too.
    if (!(watermark > this.#currentWatermark)) return;
    this.#currentWatermark = watermark;
    this.markActive();
    this.#downstream.emitWatermark(watermark);
  }

  /** Emits `"idle"` once per idle period. */
  markIdle(): void {
    if (this.#idle) return;
    this.#idle = true;
    this.#downstream.emitWatermarkStatus("idle");
  }

  /** Emits `"active"` if the output was idle. */
  markActive(): void {
    if (!this.#idle) return;
    this.#idle = false;
    this.#downstream.emitWatermarkStatus("active");
  }

  /** Returns the state as plain data. */
  snapshotState(): WatermarkEmitterSnapshot {
    return { currentWatermark: this.#currentWatermark, idle: this.#idle };
  }

  /** Puts back a snapshot; emits nothing. */
  restoreState(state: WatermarkEmitterSnapshot): void {
    this.#currentWatermark = state.currentWatermark;
    this.#idle = state.idle;
  }
}
