// Hand-written test doubles that record what a part emits (Flink's
// TestingWatermarkOutput), so tests assert on the exact sequence.

import type {
  WatermarkOutput,
  WatermarkStatus,
  WatermarkStatusOutput,
} from "../../src/time/watermark_output.ts";

/** One thing a part emitted, in order. */
export type Emitted =
  | { watermark: number }
  | { status: WatermarkStatus };

/**
 * Records calls to a {@link WatermarkOutput}: every call in `calls`, plus the
 * last watermark and an idle flag that `emitWatermark` clears and `markIdle`
 * sets, as Flink's test output does.
 */
export class RecordingOutput implements WatermarkOutput {
  /** Every call in order: watermarks as numbers, the others by name. */
  readonly calls: Array<number | "markIdle" | "markActive"> = [];
  /** The last emitted watermark, or null before the first one. */
  lastWatermark: number | null = null;
  /** Set by markIdle, cleared by emitWatermark and markActive. */
  idle = false;

  emitWatermark(watermark: number): void {
    this.calls.push(watermark);
    this.lastWatermark = watermark;
    this.idle = false;
  }

  markIdle(): void {
    this.calls.push("markIdle");
    this.idle = true;
  }

  markActive(): void {
    this.calls.push("markActive");
    this.idle = false;
  }
}

/** Records what a {@link WatermarkStatusOutput} receives, and can hand it out step by step. */
export class RecordingStatusOutput implements WatermarkStatusOutput {
  /** Everything emitted so far, in order. */
  readonly emitted: Emitted[] = [];
  #taken = 0;

  emitWatermark(watermark: number): void {
    this.emitted.push({ watermark });
  }

  emitWatermarkStatus(status: WatermarkStatus): void {
    this.emitted.push({ status });
  }

  /** Returns what was emitted since the previous call. */
  take(): Emitted[] {
    const fresh = this.emitted.slice(this.#taken);
    this.#taken = this.emitted.length;
    return fresh;
  }
}
