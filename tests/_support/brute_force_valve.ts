// An obviously-correct model of StatusWatermarkValve, written straight from
// Flink's StatusWatermarkValve rules (newer variants, FLINK-40475) plus the
// "max" policy. No fast paths and no counters: every decision rescans the
// channels. The property tests check the real valve against it.

import type {
  WatermarkStatus,
  WatermarkStatusOutput,
} from "../../src/time/watermark_output.ts";

/** A reference valve: same inputs as StatusWatermarkValve, state in plain arrays. */
export class BruteForceValve {
  /** Each channel's last accepted watermark. */
  readonly watermarks: number[];
  /** Whether each channel is idle. */
  readonly idle: boolean[];
  /** Whether each channel takes part in the merge. */
  readonly aligned: boolean[];
  /** The last emitted watermark. */
  outputWatermark = -Infinity;
  /** The last emitted status is "idle". */
  outputIdle = false;
  readonly #output: WatermarkStatusOutput;
  readonly #max: boolean;

  constructor(
    numChannels: number,
    output: WatermarkStatusOutput,
    options?: { policy?: "min" | "max" },
  ) {
    this.watermarks = new Array(numChannels).fill(-Infinity);
    this.idle = new Array(numChannels).fill(false);
    this.aligned = new Array(numChannels).fill(true);
    this.#output = output;
    this.#max = options?.policy === "max";
  }

  inputWatermark(watermark: number, channel: number): void {
    // 1a: ignored on an idle valve or an idle channel, not stored.
    if (this.outputIdle || this.idle[channel]) return;
    // 1b: only strictly higher watermarks count.
    if (!(watermark > this.watermarks[channel])) return;
    // 1c: store; an unaligned channel that caught up becomes aligned.
    this.watermarks[channel] = watermark;
    if (!this.aligned[channel] && watermark >= this.outputWatermark) {
      this.aligned[channel] = true;
    }
    // 1d: find the new merged watermark.
    this.#emitMerged();
  }

  inputWatermarkStatus(status: WatermarkStatus, channel: number): void {
    if (status === "idle" && !this.idle[channel]) {
      // 3a
      this.idle[channel] = true;
      this.aligned[channel] = false;
      if (this.idle.every((idle) => idle)) {
        // 3b newer: flush the max of all channels, then IDLE.
        this.#emitIfAbove(Math.max(...this.watermarks));
        this.outputIdle = true;
        this.#output.emitWatermarkStatus("idle");
      } else if (
        this.#max || this.watermarks[channel] === this.outputWatermark
      ) {
        // 3c ("max" simply recomputes after every change).
        this.#emitMerged();
      }
    } else if (status === "active" && this.idle[channel]) {
      // 4a: under "min" aligned only if not behind the output.
      this.idle[channel] = false;
      this.aligned[channel] = this.#max ||
        this.watermarks[channel] >= this.outputWatermark;
      // 4b
      if (this.outputIdle) {
        this.outputIdle = false;
        this.#output.emitWatermarkStatus("active");
      }
      // 4c newer: re-derive after ACTIVE.
      this.#emitMerged();
    }
    // 5: anything else is no change and emits nothing.
  }

  #emitMerged(): void {
    const counted = this.watermarks.filter((_, i) => this.aligned[i]);
    // Never emit from an empty set (FLINK-7721).
    if (counted.length === 0) return;
    this.#emitIfAbove(this.#max ? Math.max(...counted) : Math.min(...counted));
  }

  #emitIfAbove(watermark: number): void {
    if (watermark > this.outputWatermark) {
      this.outputWatermark = watermark;
      this.#output.emitWatermark(watermark);
    }
  }
}
