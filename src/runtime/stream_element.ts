/**
 * What flows through a channel between two subtasks.
 *
 * @module
 */

import type { WatermarkStatus } from "../time/mod.ts";

/**
 * Records with their event timestamps, as two parallel arrays: the unit of
 * work on the hot path (never one message, Promise or string per record).
 * `timestamps[i]` is the timestamp of `values[i]` in milliseconds, or
 * `-Infinity` when the record has none yet.
 */
export interface RecordBatch<T> {
  /** Discriminates the element. */
  readonly kind: "records";
  /** The records. */
  readonly values: T[];
  /** Their timestamps, same length. */
  readonly timestamps: number[];
}

/** A watermark: no record with a timestamp `<= watermark` follows on this channel. */
export interface WatermarkElement {
  /** Discriminates the element. */
  readonly kind: "watermark";
  /** The watermark in milliseconds; `Infinity` at the end of input. */
  readonly watermark: number;
}

/** A change of the channel's watermark status. */
export interface StatusElement {
  /** Discriminates the element. */
  readonly kind: "status";
  /** The new status. */
  readonly status: WatermarkStatus;
}

/** A checkpoint barrier: everything before it belongs to checkpoint `checkpointId`. */
export interface BarrierElement {
  /** Discriminates the element. */
  readonly kind: "barrier";
  /** The checkpoint this barrier cuts. */
  readonly checkpointId: number;
}

/** The end of the channel: nothing follows. */
export interface EndElement {
  /** Discriminates the element. */
  readonly kind: "end";
}

/** Any element of a channel. */
export type StreamElement<T = unknown> =
  | RecordBatch<T>
  | WatermarkElement
  | StatusElement
  | BarrierElement
  | EndElement;

/** The end-of-channel element; shared, it carries no data. */
export const END: EndElement = Object.freeze({ kind: "end" });

/**
 * Creates a record batch.
 *
 * @param values The records.
 * @param timestamps Their timestamps, same length.
 * @returns The batch.
 */
export function recordBatch<T>(
  values: T[],
  timestamps: number[],
): RecordBatch<T> {
  return { kind: "records", values, timestamps };
}
