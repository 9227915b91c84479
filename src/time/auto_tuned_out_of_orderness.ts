/**
 * Bounded out-of-orderness whose delay is tuned from observed lateness.
 *
 * @module
 */

import type { Clock } from "./clock.ts";
import { MIN_WATERMARK } from "./constants.ts";
import {
  LatenessHistogram,
  type LatenessHistogramSnapshot,
} from "./lateness_histogram.ts";
import type { CheckpointedWatermarkGenerator } from "./watermark_generator.ts";
import type { WatermarkOutput } from "./watermark_output.ts";
import { saturateWatermark } from "./_saturate.ts";
import {
  describeValue,
  requireNonNegativeInteger,
  requireOpenFraction,
  requirePositiveInteger,
} from "./validate.ts";

/** Options of {@linkcode AutoTunedOutOfOrdernessWatermarks}. */
export interface AutoTunedOutOfOrdernessOptions {
  /**
   * The delay before the first tuning step, in milliseconds; from `floorMs`
   * to `ceilingMs`. When omitted, 1000 moved into that range.
   * @default {1000}
   */
  initialDelayMs?: number;
  /**
   * The smallest delay, in milliseconds.
   * @default {0}
   */
  floorMs?: number;
  /**
   * The largest delay, in milliseconds, so a burst of stragglers cannot stall
   * event time.
   * @default {60000}
   */
  ceilingMs?: number;
  /**
   * How often, in milliseconds of processing time, the delay is tuned from
   * the lateness seen since the previous tuning.
   * @default {10000}
   */
  tuneIntervalMs?: number;
  /**
   * The tolerated fraction of late records per interval, above 0 and below 1.
   * @default {0.01}
   */
  targetLateRatio?: number;
  /**
   * How many steps {@linkcode AutoTunedOutOfOrdernessWatermarks.history}
   * keeps; older ones are dropped.
   * @default {100}
   */
  historyLimit?: number;
}

/** One change of the delay, or the decision to stop tuning. */
export interface AutoTuneStep {
  /** Processing time of the tuning, in milliseconds. */
  at: number;
  /** The delay before the step, in milliseconds. */
  fromMs: number;
  /** The delay after the step, in milliseconds (equal to `fromMs` when stopping). */
  toMs: number;
  /** Why the delay changed, or why tuning stopped. */
  reason:
    | "widen: late ratio above target"
    | "narrow: delay above 1.5 × suggested delay"
    | "stopped: narrowing did not reduce lag";
  /** Fraction of the interval's records later than `fromMs`. */
  lateRatio: number;
  /** The interval's p99 lateness, in milliseconds. */
  p99Ms: number;
  /** Processing time minus the watermark in force at `at`, in milliseconds. */
  lagMs: number;
}

/** The state of an {@linkcode AutoTunedOutOfOrdernessWatermarks} as plain data. */
export interface AutoTunedOutOfOrdernessSnapshot {
  /** The delay in force, in milliseconds. */
  delayMs: number;
  /** The highest watermark emitted, or `-Infinity`. */
  watermark: number;
  /** Whether tuning has stopped. */
  frozen: boolean;
  /** Consecutive narrowing steps after which the lag did not fall. */
  ineffectiveNarrows: number;
  /** The lag when the last step narrowed, until the next tuning judges it. */
  narrowLagMs: number | null;
  /** The kept steps, oldest first. */
  history: AutoTuneStep[];
  /** The lateness of the current interval and the highest timestamp. */
  histogram: LatenessHistogramSnapshot;
  /**
   * When the current tuning interval started, on the generator's clock;
   * absent in snapshots of older versions (the interval then restarts).
   */
  intervalStartMs?: number;
}

/**
 * Bounded out-of-orderness whose delay follows the stream's lateness, tuned
 * gradually, within limits, and stopped when tuning does not help.
 *
 * Each record's lateness against the highest timestamp seen goes into a
 * {@linkcode LatenessHistogram}. `onPeriodicEmit` reads the injected clock;
 * once `tuneIntervalMs` has passed since the last tuning it judges the
 * interval, then clears the histogram:
 *
 * - late ratio (records later than the delay) above `targetLateRatio`:
 *   widen by 20%, at least to the suggested delay (`ceil(p99 * 1.2)`), at
 *   most to `ceilingMs`;
 * - late ratio below a tenth of the target and delay above 1.5 times the
 *   suggested delay: narrow by 20%, not below the suggested delay nor
 *   `floorMs`;
 * - an interval without records changes nothing.
 *
 * If three narrowing steps in a row were each followed by a lag
 * (processing time minus watermark, measured at each tuning) no smaller
 * than before, the lag does not come from the delay (a backlog, a slow
 * source): tuning stops, `frozen` turns `true` and the history says why.
 * A widening step resets that count.
 *
 * The watermark is `maxTimestamp - delay - 1` but never decreases: after
 * widening it holds where it was until the data catches up with the new
 * delay (the emitter would drop a lower watermark anyway). Before the first
 * record nothing is emitted, and `-Infinity` while `maxTimestamp - delay - 1`
 * is below `Number.MIN_SAFE_INTEGER`.
 *
 * Cost: O(1) per record; about 2,400 steps per tuning.
 *
 * @typeParam T The record type.
 *
 * @example Widening after a late burst
 * ```ts
 * import { AutoTunedOutOfOrdernessWatermarks, ManualClock } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock();
 * const generator = new AutoTunedOutOfOrdernessWatermarks(clock, { initialDelayMs: 100, tuneIntervalMs: 1_000 });
 * const output = { emitWatermark() {}, markIdle() {}, markActive() {} };
 * generator.onEvent(null, 10_000, output);
 * for (let i = 0; i < 10; i++) generator.onEvent(null, 9_500, output); // 500 ms late
 * clock.advance(1_000);
 * generator.onPeriodicEmit(output);
 * assert.equal(generator.currentDelayMs, 600); // ceil(500 * 1.2)
 * assert.equal(generator.history[0].reason, "widen: late ratio above target");
 * ```
 */
export class AutoTunedOutOfOrdernessWatermarks<T>
  implements
    CheckpointedWatermarkGenerator<T, AutoTunedOutOfOrdernessSnapshot> {
  readonly #clock: Clock;
  readonly #floor: number;
  readonly #ceiling: number;
  readonly #interval: number;
  readonly #target: number;
  readonly #historyLimit: number;
  readonly #histogram = new LatenessHistogram();
  #history: AutoTuneStep[] = [];
  #delay: number;
  #watermark = MIN_WATERMARK;
  #intervalStart: number;
  #frozen = false;
  #ineffectiveNarrows = 0;
  #narrowLag: number | null = null;

  /**
   * Creates a generator that has seen no record; the first interval starts now.
   *
   * @param clock The processing-time clock tuning runs on.
   * @param options Delay limits, tuning interval and target; every field has a default.
   * @throws {RangeError} If a duration is negative or not a safe integer, if
   * `tuneIntervalMs` or `historyLimit` is 0, if `floorMs <= initialDelayMs <=
   * ceilingMs` does not hold, or `targetLateRatio` is not between 0 and 1.
   * @throws {TypeError} If `clock` has no `now()` or `targetLateRatio` is not a number.
   */
  constructor(clock: Clock, options: AutoTunedOutOfOrdernessOptions = {}) {
    const action = "create AutoTunedOutOfOrdernessWatermarks";
    if (typeof clock?.now !== "function") {
      throw new TypeError(
        `Cannot ${action} as 'clock' must be a Clock with a now() method: current value is ${
          describeValue(clock)
        }`,
      );
    }
    this.#clock = clock;
    this.#floor = requireNonNegativeInteger(options.floorMs ?? 0, {
      action,
      param: "floorMs",
    });
    this.#ceiling = requireNonNegativeInteger(options.ceilingMs ?? 60_000, {
      action,
      param: "ceilingMs",
    });
    if (this.#ceiling < this.#floor) {
      throw new RangeError(
        `Cannot ${action} as 'ceilingMs' must be at least 'floorMs' (${this.#floor}): current value is ${this.#ceiling}`,
      );
    }
    const initial = options.initialDelayMs ??
      Math.min(Math.max(1_000, this.#floor), this.#ceiling);
    this.#delay = requireNonNegativeInteger(initial, {
      action,
      param: "initialDelayMs",
    });
    if (this.#delay < this.#floor || this.#delay > this.#ceiling) {
      throw new RangeError(
        `Cannot ${action} as 'initialDelayMs' must be from 'floorMs' (${this.#floor}) to 'ceilingMs' (${this.#ceiling}): current value is ${this.#delay}`,
      );
    }
    this.#interval = requirePositiveInteger(options.tuneIntervalMs ?? 10_000, {
      action,
      param: "tuneIntervalMs",
    });
    this.#target = requireOpenFraction(options.targetLateRatio ?? 0.01, {
      action,
      param: "targetLateRatio",
    });
    this.#historyLimit = requirePositiveInteger(options.historyLimit ?? 100, {
      action,
      param: "historyLimit",
    });
    this.#intervalStart = clock.now();
  }

  /** The delay in force, in milliseconds. */
  get currentDelayMs(): number {
    return this.#delay;
  }

  /** The watermark the next emit produces; `-Infinity` before any record. */
  get currentWatermark(): number {
    // Saturated to -Infinity below the safe range, as the bounded generator.
    const candidate = saturateWatermark(
      this.#histogram.maxTimestamp - this.#delay - 1,
    );
    return candidate > this.#watermark ? candidate : this.#watermark;
  }

  /** The tuning steps, oldest first (at most `historyLimit`); a copy. */
  get history(): AutoTuneStep[] {
    return this.#history.map((step) => ({ ...step }));
  }

  /** Whether tuning stopped because narrowing did not reduce the lag. */
  get frozen(): boolean {
    return this.#frozen;
  }

  /** Counts the record's lateness and raises the highest timestamp; never emits. */
  onEvent(_event: T, timestamp: number, _output: WatermarkOutput): void {
    this.#histogram.record(timestamp);
  }

  /** Tunes the delay when an interval has passed, then emits the watermark. */
  onPeriodicEmit(output: WatermarkOutput): void {
    const now = this.#clock.now();
    if (!this.#frozen && now - this.#intervalStart >= this.#interval) {
      this.#tune(now);
    }
    if (this.#histogram.maxTimestamp === MIN_WATERMARK) return;
    this.#watermark = this.currentWatermark;
    output.emitWatermark(this.#watermark);
  }

  #tune(now: number): void {
    const histogram = this.#histogram;
    // An empty interval says nothing about lateness, and a lag measured
    // without records would grow for reasons the delay cannot fix.
    if (histogram.count === 0) {
      this.#intervalStart = now;
      return;
    }
    const lag = now - this.currentWatermark;
    const lateRatio = histogram.lateRatio(this.#delay);
    const p99 = histogram.quantile(0.99);
    const suggested = histogram.suggestedDelayMs();
    const step = (toMs: number, reason: AutoTuneStep["reason"]) =>
      this.#record({
        at: now,
        fromMs: this.#delay,
        toMs,
        reason,
        lateRatio,
        p99Ms: p99,
        lagMs: lag,
      });
    histogram.reset();
    this.#intervalStart = now;

    // If narrowing three times in a row did not bring the
    // lag down, the lag is not the delay's doing: stop and report.
    if (this.#narrowLag !== null) {
      this.#ineffectiveNarrows = lag >= this.#narrowLag
        ? this.#ineffectiveNarrows + 1
        : 0;
      this.#narrowLag = null;
      if (this.#ineffectiveNarrows >= 3) {
        this.#frozen = true;
        step(this.#delay, "stopped: narrowing did not reduce lag");
        return;
      }
    }

    // Steps of 20% avoid oscillation; widening goes at
    // least to the suggested delay so a jump in lateness is covered after
    // one interval, and at least 1 ms so a zero delay can grow.
    if (lateRatio > this.#target) {
      const to = Math.min(
        this.#ceiling,
        Math.max(Math.ceil((this.#delay * 6) / 5), this.#delay + 1, suggested),
      );
      if (to > this.#delay) {
        step(to, "widen: late ratio above target");
        this.#delay = to;
        this.#ineffectiveNarrows = 0;
      }
    } else if (
      // Narrow only with a wide margin on both sides, so a delay that just
      // widened does not shrink back on the next quiet interval.
      lateRatio < this.#target / 10 && this.#delay > suggested * 1.5
    ) {
      const to = Math.max(
        this.#floor,
        suggested,
        Math.floor((this.#delay * 4) / 5),
      );
      if (to < this.#delay) {
        step(to, "narrow: delay above 1.5 × suggested delay");
        this.#delay = to;
        this.#narrowLag = lag;
      }
    }
  }

  #record(step: AutoTuneStep): void {
    this.#history.push(step);
    if (this.#history.length > this.#historyLimit) this.#history.shift();
  }

  /** Returns the delay, the tuning state, the history and the histogram. */
  snapshotState(): AutoTunedOutOfOrdernessSnapshot {
    return {
      delayMs: this.#delay,
      watermark: this.#watermark,
      frozen: this.#frozen,
      ineffectiveNarrows: this.#ineffectiveNarrows,
      narrowLagMs: this.#narrowLag,
      history: this.history,
      histogram: this.#histogram.snapshot(),
      intervalStartMs: this.#intervalStart,
    };
  }

  /**
   * Puts back a snapshot: tuning goes on at the interval's time on the
   * clock (restore the input-activity clock with it), or from `clock.now()`
   * for a snapshot without it.
   *
   * @throws {RangeError} If the snapshot's delay is outside `[floorMs,
   * ceilingMs]` of this generator, or its histogram is malformed.
   */
  restoreState(state: AutoTunedOutOfOrdernessSnapshot): void {
    if (
      !Number.isSafeInteger(state.delayMs) || state.delayMs < this.#floor ||
      state.delayMs > this.#ceiling
    ) {
      throw new RangeError(
        `Cannot restore AutoTunedOutOfOrdernessWatermarks as 'delayMs' must be from 'floorMs' (${this.#floor}) to 'ceilingMs' (${this.#ceiling}): current value is ${
          describeValue(state.delayMs)
        }`,
      );
    }
    this.#histogram.restore(state.histogram);
    this.#delay = state.delayMs;
    this.#watermark = state.watermark;
    this.#frozen = state.frozen;
    this.#ineffectiveNarrows = state.ineffectiveNarrows;
    this.#narrowLag = state.narrowLagMs;
    this.#history = state.history.slice(-this.#historyLimit).map((step) => ({
      ...step,
    }));
    // The tuning schedule decides the delay, so event time (persist
    // mode snapshots everything that decides event time).
    this.#intervalStart = typeof state.intervalStartMs === "number"
      ? state.intervalStartMs
      : this.#clock.now();
  }
}
