/**
 * The merge of watermarks and idleness from the input channels of a subtask
 * (Flink's `StatusWatermarkValve`).
 *
 * @module
 */

import { MIN_WATERMARK } from "./constants.ts";
import type {
  WatermarkStatus,
  WatermarkStatusOutput,
} from "./watermark_output.ts";
import type { ValveSnapshot } from "./valve_snapshot.ts";
import { checkValveSnapshot } from "./_valve_restore.ts";
import {
  describeValue,
  requireIndex,
  requirePositiveInteger,
  requireWatermark,
  type Subject,
} from "./validate.ts";

export type { ValveSnapshot } from "./valve_snapshot.ts";

/** Options for {@linkcode StatusWatermarkValve}. */
export interface StatusWatermarkValveOptions {
  /**
   * How channel watermarks combine: `"min"` is Flink's rule (the slowest
   * active channel holds the output back); `"max"` is Spark's
   * `multipleWatermarkPolicy = max` (the fastest active channel drives the
   * output, and records of slower channels may turn late).
   *
   * @default {"min"}
   */
  policy?: "min" | "max";
}

const CREATE = "create StatusWatermarkValve";
const INPUT_WATERMARK = "input a watermark into StatusWatermarkValve";
const INPUT_STATUS = "input a watermark status into StatusWatermarkValve";
const READ = "read a channel of StatusWatermarkValve";
// Built once: the hot path must not allocate a subject per call.
const WATERMARK_SUBJECT: Subject = {
  action: INPUT_WATERMARK,
  param: "watermark",
};

const ACTIVE = 0;
const IDLE = 1;

/**
 * Merges the watermarks and statuses of `numChannels` input channels into one
 * strictly increasing watermark and one status, as Flink's
 * `StatusWatermarkValve` does, with the 2026 fixes (FLINK-40475, FLINK-38454).
 *
 * Under the default `"min"` policy the output is the minimum watermark over
 * the *aligned* channels: active channels whose watermark has caught up with
 * the output. A channel that comes back from idle behind the output stays
 * unaligned, and so does not pull the output back, until a watermark at or
 * above the output arrives. No output appears until every aligned channel has
 * passed `-Infinity`, and nothing is ever emitted from an empty aligned set,
 * so `Infinity` is not emitted by accident (FLINK-7721).
 *
 * Idleness: a watermark on an idle channel is dropped and not stored (it does
 * not re-activate the channel). When the last active channel goes idle, the
 * valve emits the maximum watermark of all channels if it advances, then
 * `"idle"`, whatever the order the channels went idle in (FLINK-40475,
 * FLINK-38454). When the first channel comes back, it emits `"active"` and
 * then the minimum over the aligned channels if that advanced (FLINK-40475).
 * A status that does not change its channel's status emits nothing.
 *
 * Under `"max"` the output is the highest watermark accepted from an active
 * channel. Idle channels do not count, statuses follow the same rules, and
 * every channel that is active counts as aligned. Since every accepted
 * watermark above the output is emitted at once, no channel ever holds one
 * above the output, so the flush on all-idle and the re-derivation on
 * `"active"` never emit under `"max"`.
 *
 * Watermarks are safe integers or `±Infinity` (milliseconds of event time);
 * one that is not above its channel's last one is dropped. Emitted watermarks
 * strictly increase, and statuses alternate: the valve starts `"active"`, so
 * the first status it emits is `"idle"`.
 *
 * Cost: no allocation per call. Under `"min"`, a watermark scans the channels
 * (one comparison each) only when it moves the last aligned channel sitting at
 * the output; other calls, and every call under `"max"`, take constant time,
 * as do status changes except the one that makes the valve idle (one scan for
 * the flush) and, rarely, the release of the minimum by an idling channel.
 * Not thread safe.
 *
 * @example The maximum is flushed when every channel goes idle
 * ```ts
 * import { StatusWatermarkValve } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const seen: Array<number | string> = [];
 * const valve = new StatusWatermarkValve(2, {
 *   emitWatermark: (w) => seen.push(w),
 *   emitWatermarkStatus: (s) => seen.push(s),
 * });
 * valve.inputWatermark(10, 0);
 * valve.inputWatermark(7, 1);
 * valve.inputWatermarkStatus("idle", 0);
 * valve.inputWatermarkStatus("idle", 1);
 * assert.deepEqual(seen, [7, 10, "idle"]);
 * ```
 */
export class StatusWatermarkValve {
  readonly #output: WatermarkStatusOutput;
  readonly #numChannels: number;
  readonly #max: boolean;
  // Channel state as parallel typed arrays: the scan stays on flat memory.
  readonly #watermarks: Float64Array;
  readonly #statuses: Uint8Array;
  // A channel's watermark while it is aligned, NaN while it is not. NaN fails
  // every comparison, so the min scan skips unaligned channels with the one
  // comparison it makes anyway, instead of a flag lookup per channel.
  readonly #alignedWatermarks: Float64Array;
  #activeCount: number;
  #alignedCount: number;
  // Under "min": how many aligned channels sit exactly at the output. While
  // it is above zero, advancing one of them cannot move the minimum.
  #atOutput: number;
  #outputWatermark = MIN_WATERMARK;
  #outputIdle = false;

  /**
   * Creates a valve whose channels all start active, aligned and at
   * `-Infinity`, with the output active at `-Infinity`.
   *
   * @param numChannels How many input channels are merged; channels are numbered from 0.
   * @param output Where merged watermarks and status changes go.
   * @param options The merge policy.
   * @throws {RangeError} If `numChannels` is not a positive safe integer.
   * @throws {TypeError} If `numChannels` is not a number or `options.policy` is not "min" or "max".
   */
  constructor(
    numChannels: number,
    output: WatermarkStatusOutput,
    options?: StatusWatermarkValveOptions,
  ) {
    const n = requirePositiveInteger(numChannels, {
      action: CREATE,
      param: "numChannels",
    });
    const policy = options?.policy ?? "min";
    if (policy !== "min" && policy !== "max") {
      throw new TypeError(
        `Cannot ${CREATE} as 'options.policy' must be "min" or "max": current value is ${
          describeValue(policy)
        }`,
      );
    }
    this.#output = output;
    this.#numChannels = n;
    this.#max = policy === "max";
    this.#watermarks = new Float64Array(n).fill(MIN_WATERMARK);
    this.#statuses = new Uint8Array(n);
    this.#alignedWatermarks = new Float64Array(n).fill(MIN_WATERMARK);
    this.#activeCount = n;
    this.#alignedCount = n;
    this.#atOutput = n;
  }

  /** How many channels the valve merges. */
  get numChannels(): number {
    return this.#numChannels;
  }

  /** The merge policy. */
  get policy(): "min" | "max" {
    return this.#max ? "max" : "min";
  }

  /** The last watermark emitted; `-Infinity` before the first. */
  get outputWatermark(): number {
    return this.#outputWatermark;
  }

  /** The last status emitted; `"active"` before the first. */
  get outputStatus(): WatermarkStatus {
    return this.#outputIdle ? "idle" : "active";
  }

  /**
   * Returns the last watermark accepted on a channel.
   *
   * @param channel The channel, from 0 to `numChannels - 1`.
   * @returns The watermark in milliseconds, or `-Infinity` if none was accepted.
   * @throws {RangeError} If `channel` is out of range or not an integer.
   * @throws {TypeError} If `channel` is not a number.
   */
  channelWatermark(channel: number): number {
    this.#checkChannel(channel, READ);
    return this.#watermarks[channel];
  }

  /**
   * Returns a channel's status.
   *
   * @param channel The channel, from 0 to `numChannels - 1`.
   * @returns `"idle"` or `"active"`.
   * @throws {RangeError} If `channel` is out of range or not an integer.
   * @throws {TypeError} If `channel` is not a number.
   */
  channelStatus(channel: number): WatermarkStatus {
    this.#checkChannel(channel, READ);
    return this.#statuses[channel] === IDLE ? "idle" : "active";
  }

  /**
   * Returns whether a channel takes part in the output. Under `"min"`: it is
   * active and its watermark has caught up with the output since it last
   * became active. Under `"max"`: it is active.
   *
   * @param channel The channel, from 0 to `numChannels - 1`.
   * @returns `true` if the channel's watermark counts towards the output.
   * @throws {RangeError} If `channel` is out of range or not an integer.
   * @throws {TypeError} If `channel` is not a number.
   */
  channelAligned(channel: number): boolean {
    this.#checkChannel(channel, READ);
    return !Number.isNaN(this.#alignedWatermarks[channel]);
  }

  /**
   * Takes a watermark from a channel and emits the merged watermark if it
   * advanced.
   *
   * Dropped without a trace when the channel is idle, or when the watermark
   * is not above the channel's last one.
   *
   * @param watermark The watermark in milliseconds of event time: a safe integer, `-Infinity` or `Infinity`.
   * @param channel The channel it arrived on, from 0 to `numChannels - 1`.
   * @throws {RangeError} If `watermark` is `NaN` or not a safe integer or infinity, or `channel` is out of range.
   * @throws {TypeError} If `watermark` or `channel` is not a number.
   */
  inputWatermark(watermark: number, channel: number): void {
    this.#checkChannel(channel, INPUT_WATERMARK);
    requireWatermark(watermark, WATERMARK_SUBJECT);
    // Rule 2.1a: an idle channel's watermark is not even stored. The valve is
    // idle only when every channel is, so this covers the idle valve too.
    if (this.#statuses[channel] === IDLE) return;
    const watermarks = this.#watermarks;
    const previous = watermarks[channel];
    // Rule 2.1b: only a strictly higher watermark counts (so -Infinity never does).
    if (!(watermark > previous)) return;
    watermarks[channel] = watermark;
    const alignedWatermarks = this.#alignedWatermarks;
    if (this.#max) {
      // The output is the running maximum of accepted watermarks: no scan.
      alignedWatermarks[channel] = watermark;
      if (watermark > this.#outputWatermark) this.#emitWatermark(watermark);
      return;
    }
    if (!Number.isNaN(alignedWatermarks[channel])) {
      alignedWatermarks[channel] = watermark;
      // Aligned channels are never below the output, and the output is their
      // minimum. One above the output was not the minimum, so raising it
      // cannot move the minimum; neither can raising one of several at the
      // output. Only the last one at the output needs a scan.
      if (previous !== this.#outputWatermark || --this.#atOutput > 0) return;
      this.#emitMinOfAligned();
    } else if (watermark >= this.#outputWatermark) {
      // Rule 2.1c: an unaligned channel that caught up re-joins the min.
      alignedWatermarks[channel] = watermark;
      if (this.#alignedCount++ === 0) {
        // It is alone, so it is the minimum.
        this.#atOutput = 1;
        if (watermark > this.#outputWatermark) this.#emitWatermark(watermark);
      } else if (watermark === this.#outputWatermark) {
        this.#atOutput++;
      }
    }
  }

  /**
   * Takes a status change from a channel and emits what it implies.
   *
   * `"idle"` on the last active channel emits the maximum watermark of all
   * channels (if it advances) and then `"idle"`; on another channel it may
   * advance the output past the channel's watermark. `"active"` on the first
   * channel to come back emits `"active"` and then, if it advanced, the new
   * minimum. A status equal to the channel's current one does nothing.
   *
   * @param status The channel's new status.
   * @param channel The channel, from 0 to `numChannels - 1`.
   * @throws {RangeError} If `channel` is out of range or not an integer.
   * @throws {TypeError} If `status` is not "idle" or "active", or `channel` is not a number.
   */
  inputWatermarkStatus(status: WatermarkStatus, channel: number): void {
    this.#checkChannel(channel, INPUT_STATUS);
    if (status === "idle") {
      if (this.#statuses[channel] === ACTIVE) this.#goIdle(channel);
    } else if (status === "active") {
      if (this.#statuses[channel] === IDLE) this.#goActive(channel);
    } else {
      throw new TypeError(
        `Cannot ${INPUT_STATUS} as 'status' must be "idle" or "active": current value is ${
          describeValue(status)
        }`,
      );
    }
  }

  /**
   * Returns the valve's state as plain data (numbers, strings, booleans and
   * `±Infinity`), detached from the valve.
   *
   * @returns A snapshot that {@linkcode StatusWatermarkValve.restore} accepts.
   */
  snapshot(): ValveSnapshot {
    const statuses: WatermarkStatus[] = [];
    const aligned: boolean[] = [];
    for (let i = 0; i < this.#numChannels; i++) {
      statuses.push(this.#statuses[i] === IDLE ? "idle" : "active");
      aligned.push(!Number.isNaN(this.#alignedWatermarks[i]));
    }
    return {
      policy: this.policy,
      watermarks: Array.from(this.#watermarks),
      statuses,
      aligned,
      outputWatermark: this.#outputWatermark,
      outputStatus: this.outputStatus,
    };
  }

  /**
   * Replaces the valve's state with a snapshot, without emitting anything.
   *
   * The snapshot must come from a valve with the same number of channels and
   * the same policy. Besides its shape, the invariants the valve relies on are
   * checked: the output status is `"idle"` exactly when every channel is
   * idle; aligned channels are active; under `"min"` the active channels at
   * or above the output are exactly the aligned ones and the output is their
   * minimum; under `"max"` aligned means active and no channel is above the
   * output.
   *
   * @param snapshot State from {@linkcode StatusWatermarkValve.snapshot}.
   * @throws {RangeError} If an array's length is not `numChannels`, the policy differs, a watermark is not a safe integer or infinity, or the invariants do not hold.
   * @throws {TypeError} If a field has the wrong type.
   */
  restore(snapshot: ValveSnapshot): void {
    const n = this.#numChannels;
    const { output, outputIdle, active, aligned, atOutput } =
      checkValveSnapshot(snapshot, n, this.policy);
    for (let i = 0; i < n; i++) {
      this.#watermarks[i] = snapshot.watermarks[i];
      this.#statuses[i] = snapshot.statuses[i] === "idle" ? IDLE : ACTIVE;
      this.#alignedWatermarks[i] = snapshot.aligned[i]
        ? snapshot.watermarks[i]
        : NaN;
    }
    this.#activeCount = active;
    this.#alignedCount = aligned;
    this.#atOutput = atOutput;
    this.#outputWatermark = output;
    this.#outputIdle = outputIdle;
  }

  #checkChannel(channel: number, action: string): void {
    // Two comparisons on the hot path; the helper builds the message.
    if ((channel >>> 0) !== channel || channel >= this.#numChannels) {
      requireIndex(channel, this.#numChannels, { action, param: "channel" });
    }
  }

  #emitWatermark(watermark: number): void {
    this.#outputWatermark = watermark;
    this.#output.emitWatermark(watermark);
  }

  // Rule 2.1d, called when no aligned channel is left at the output but the
  // aligned set is not empty: every aligned watermark is then strictly above
  // the output, so the minimum always advances.
  #emitMinOfAligned(): void {
    const alignedWatermarks = this.#alignedWatermarks;
    let min = Infinity;
    let count = 0;
    // One comparison per channel in the common case (NaN, i.e. unaligned,
    // fails it); ties are only counted for candidates.
    for (let i = 0; i < alignedWatermarks.length; i++) {
      const w = alignedWatermarks[i];
      if (w <= min) {
        if (w < min) {
          min = w;
          count = 0;
        }
        count++;
      }
    }
    this.#atOutput = count;
    if (min > this.#outputWatermark) this.#emitWatermark(min);
  }

  #goIdle(channel: number): void {
    this.#statuses[channel] = IDLE;
    const atOutput = this.#watermarks[channel] === this.#outputWatermark;
    // Rule 2.3a: an idle channel leaves the aligned set.
    if (!Number.isNaN(this.#alignedWatermarks[channel])) {
      this.#alignedWatermarks[channel] = NaN;
      this.#alignedCount--;
      if (atOutput) this.#atOutput--;
    }
    if (--this.#activeCount === 0) {
      // Rule 2.3b, newer variant: flush the maximum of all channels
      // unconditionally, so the result does not depend on the order the
      // channels went idle in (FLINK-40475, FLINK-38454). The watermark goes
      // out before "idle". Under "max" it never advances (see the class doc).
      const watermarks = this.#watermarks;
      let max = MIN_WATERMARK;
      for (let i = 0; i < watermarks.length; i++) {
        if (watermarks[i] > max) max = watermarks[i];
      }
      if (max > this.#outputWatermark) this.#emitWatermark(max);
      this.#outputIdle = true;
      this.#output.emitWatermarkStatus("idle");
    } else if (
      // Rule 2.3c: only the channel that held the minimum can release it, and
      // an empty aligned set never emits (FLINK-7721).
      !this.#max && atOutput && this.#atOutput === 0 && this.#alignedCount > 0
    ) {
      this.#emitMinOfAligned();
    }
  }

  #goActive(channel: number): void {
    this.#statuses[channel] = ACTIVE;
    this.#activeCount++;
    const watermark = this.#watermarks[channel];
    // Rule 2.4a: a channel behind the output stays unaligned until it catches
    // up, so it cannot pull the output back. Under "max" every active channel
    // counts.
    const joins = this.#max || watermark >= this.#outputWatermark;
    if (joins) {
      this.#alignedWatermarks[channel] = watermark;
      this.#alignedCount++;
      if (watermark === this.#outputWatermark) this.#atOutput++;
    }
    // Rule 2.4b: "active" goes out only when the valve itself was idle.
    if (this.#outputIdle) {
      this.#outputIdle = false;
      this.#output.emitWatermarkStatus("active");
    }
    // Rule 2.4c (FLINK-40475): re-derive the minimum after "active", so that
    // downstream does not drop it as arriving while idle. It can only advance
    // if this channel alone is aligned: otherwise the output already equals
    // the minimum of the others, which this channel (at or above it) cannot
    // lower or raise.
    if (
      !this.#max && joins && this.#alignedCount === 1 &&
      watermark > this.#outputWatermark
    ) {
      this.#atOutput = 1;
      this.#emitWatermark(watermark);
    }
  }
}
