/**
 * Asynchronous work without losing event time: the queues that hold
 * watermarks back until the records before them have their results. Pure:
 * no I/O, no timers, no Promises; the operator starts the calls and reports
 * their completions.
 *
 * A {@linkcode SegmentedQueue} counts unfinished records per key between
 * watermarks (Flink Agents), so one slow key holds back only the next
 * watermark. {@linkcode OrderedQueue} and {@linkcode UnorderedQueue} are the
 * element queues of Flink's `AsyncDataStream.orderedWait` and
 * `unorderedWait`.
 *
 * @example Results flow while the watermark waits for the slow call
 * ```ts
 * import { SegmentedQueue, UnorderedQueue } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const keys = new SegmentedQueue<string>();
 * keys.addKeyToLastSegment("A");
 * keys.addKeyToLastSegment("B");
 * keys.addWatermark(2);
 * keys.removeKey("B"); // B's result is emitted at once
 * assert.equal(keys.popOldestWatermark(), null);
 *
 * const queue = new UnorderedQueue<string, string>(8);
 * queue.put({ id: 1, timestamp: 1, value: "A" });
 * queue.put({ watermark: 2 });
 * queue.complete(1, ["a"]);
 * assert.equal(queue.pollEmittable()?.kind, "records");
 * assert.deepEqual(queue.pollEmittable(), { kind: "watermark", watermark: 2 });
 * ```
 *
 * @module
 */

export * from "./key_segment.ts";
export * from "./segmented_queue.ts";
export * from "./stream_element_queue.ts";
export * from "./ordered_queue.ts";
export * from "./unordered_queue.ts";
