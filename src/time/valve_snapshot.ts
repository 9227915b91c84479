/**
 * The state of a valve as plain data, for checkpoints.
 *
 * @module
 */

import type { WatermarkStatus } from "./watermark_output.ts";

/**
 * The state of a `StatusWatermarkValve` as plain data, one array
 * entry per channel, for checkpoints.
 */
export interface ValveSnapshot {
  /** The policy the valve ran with; a restore must use the same one. */
  policy: "min" | "max";
  /** Each channel's last accepted watermark, `-Infinity` if none. */
  watermarks: number[];
  /** Each channel's status. */
  statuses: WatermarkStatus[];
  /** Whether each channel takes part in the output (see `channelAligned`). */
  aligned: boolean[];
  /** The last watermark emitted, `-Infinity` if none. */
  outputWatermark: number;
  /** The last status emitted (`"active"` at the start). */
  outputStatus: WatermarkStatus;
}
