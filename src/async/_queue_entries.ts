// Conversions of element-queue entries shared by OrderedQueue and
// UnorderedQueue: what a snapshot holds and what a poll hands out.

import type { EmittedElement, QueueEntry } from "./stream_element_queue.ts";

/** Returns a fresh copy of `entry`; the input value is shared, not copied. */
export function copyEntry<IN>(entry: QueueEntry<IN>): QueueEntry<IN> {
  return "watermark" in entry
    ? { watermark: entry.watermark }
    : { id: entry.id, timestamp: entry.timestamp, value: entry.value };
}

/**
 * Returns what leaves the queue for `entry`: a watermark as it is, a record
 * as its `results` stamped with the input's timestamp.
 */
export function toEmitted<IN, OUT>(
  entry: QueueEntry<IN>,
  results: OUT[],
): EmittedElement<OUT> {
  return "watermark" in entry
    ? { kind: "watermark", watermark: entry.watermark }
    : {
      kind: "records",
      id: entry.id,
      values: results,
      timestamp: entry.timestamp,
    };
}
