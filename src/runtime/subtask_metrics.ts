/**
 * What a subtask reports about itself: its counters and gauges, and each
 * input channel, for metrics and diagnosis.
 *
 * @module
 */

/** One input channel of a subtask, for diagnosis. */
export interface InputChannelStatus {
  /** The channel's last watermark. */
  watermark: number;
  /** Whether the channel is idle. */
  idle: boolean;
  /** Whether it takes part in the minimum (see `StatusWatermarkValve`). */
  aligned: boolean;
  /** Whether the channel has ended. */
  ended: boolean;
  /** Whether it is held by checkpoint barrier alignment. */
  blocked: boolean;
}

/** Counters and gauges of a subtask, read by the runtime's metrics. */
export interface SubtaskMetrics {
  /** Records received. */
  recordsIn: number;
  /** Records sent on the main output. */
  recordsOut: number;
  /** The merged input watermark. */
  inputWatermark: number;
  /** The last watermark sent downstream. */
  outputWatermark: number;
  /** Whether the subtask's output is idle. */
  idle: boolean;
}
