/**
 * Held-back watermarks for keyed asynchronous work (Flink Agents'
 * `SegmentedQueue`).
 *
 * @module
 */

import { KeySegment } from "./key_segment.ts";
import { fail, requireTime } from "./_queue_checks.ts";

/**
 * The state of a {@linkcode SegmentedQueue} as plain data, for checkpoints
 * in `watermarkRecovery: "persist"` mode.
 *
 * Either both arrays are empty, or there is exactly one more segment than
 * watermarks: watermark `i` closes segment `i`, and the last segment takes
 * new keys.
 *
 * @typeParam K The key type.
 */
export interface SegmentedQueueSnapshot<K> {
  /** Segments from oldest to newest, each as `[key, count]` pairs with counts of at least 1. */
  segments: [K, number][][];
  /** Held watermarks from oldest to newest. */
  watermarks: number[];
}

const RESTORE = "restore SegmentedQueue";

/**
 * Holds each watermark back until every input record that arrived before it
 * has finished, while records of other keys flow on (Flink Agents'
 * `SegmentedQueue`).
 *
 * The queue is a list of {@linkcode KeySegment}s cut by watermarks: pending
 * watermark `i` closes segment `i`. The operator calls
 * {@linkcode SegmentedQueue.addKeyToLastSegment} when a record of key `k`
 * arrives, {@linkcode SegmentedQueue.removeKey} when that record has
 * finished all its asynchronous work, and {@linkcode SegmentedQueue.addWatermark}
 * when a watermark arrives; after the last two it drains
 * {@linkcode SegmentedQueue.popOldestWatermark} until it returns `null` and
 * forwards what it pops. A slow call for key A thus holds back the next
 * watermark, not B's results, and records that arrive after the watermark
 * (even of key A) do not hold it back.
 *
 * `removeKey` decrements the *oldest* segment holding the key, which is right
 * as long as records of one key finish in arrival order (a keyed operator
 * runs one key's records one after the other).
 *
 * Unlike Flink Agents, a watermark added while nothing is in
 * flight gets an empty segment of its own before it, so it can be popped at
 * once, even if keys are added before the pop.
 *
 * Cost: `addKeyToLastSegment` and `addWatermark` take constant time;
 * `removeKey` scans the segments from the oldest until one holds the key, so
 * it is linear in the number of held watermarks (usually a handful);
 * `popOldestWatermark` shifts two arrays of that size. Not thread safe.
 *
 * @typeParam K The key type: compared as a `Map` key, so use primitives.
 *
 * @example A slow key holds the watermark back; a fast key does not
 * ```ts
 * import { SegmentedQueue } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const queue = new SegmentedQueue<string>();
 * queue.addKeyToLastSegment("A"); // slow model call
 * queue.addKeyToLastSegment("B"); // quick greeting
 * queue.addWatermark(2);
 * assert.equal(queue.removeKey("B"), true);
 * assert.equal(queue.popOldestWatermark(), null); // A still in flight
 * assert.equal(queue.removeKey("A"), true);
 * assert.equal(queue.popOldestWatermark(), 2);
 * ```
 */
export class SegmentedQueue<K> {
  #segments: KeySegment<K>[] = [];
  #watermarks: number[] = [];
  #inFlight = 0;

  /**
   * Creates a queue for replay-based recovery: every key in `inFlightKeys`
   * (one entry per unfinished input record, so a key may repeat) goes into
   * the first segment, and no watermark is held.
   *
   * Held watermarks are then rebuilt by the replayed input: the first
   * watermark that arrives waits for all of these records, as it did before
   * the failure.
   *
   * @typeParam K The key type.
   * @param inFlightKeys The keys of the records still being processed.
   * @returns A queue with one segment, or an empty queue for no keys.
   *
   * @example Recovered keys hold back the first replayed watermark
   * ```ts
   * import { SegmentedQueue } from "./mod.ts";
   * import assert from "node:assert/strict";
   *
   * const queue = SegmentedQueue.rebuild(["A", "A", "B"]);
   * queue.addWatermark(100);
   * queue.removeKey("A");
   * queue.removeKey("B");
   * assert.equal(queue.popOldestWatermark(), null);
   * queue.removeKey("A");
   * assert.equal(queue.popOldestWatermark(), 100);
   * ```
   */
  static rebuild<K>(inFlightKeys: Iterable<K>): SegmentedQueue<K> {
    const queue = new SegmentedQueue<K>();
    for (const key of inFlightKeys) queue.addKeyToLastSegment(key);
    return queue;
  }

  /** The number of watermarks held back (pending). */
  get heldWatermarks(): number {
    return this.#watermarks.length;
  }

  /** The number of unfinished input records, summed over keys and segments. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** The number of segments: held watermarks + 1, or 0 for a fresh queue. */
  get segmentCount(): number {
    return this.#segments.length;
  }

  /**
   * Returns the oldest held watermark: the one the operator's output
   * watermark is waiting for.
   *
   * @returns The watermark, or `null` when none is held.
   */
  oldestHeldWatermark(): number | null {
    return this.#watermarks.length === 0 ? null : this.#watermarks[0];
  }

  /**
   * Records that an input record of `key` started; it counts in the last
   * segment, i.e. against the next watermark to arrive.
   *
   * @param key The record's key.
   */
  addKeyToLastSegment(key: K): void {
    let last = this.#segments[this.#segments.length - 1];
    if (last === undefined) {
      last = new KeySegment<K>();
      this.#segments.push(last);
    }
    last.incrementKeyReference(key);
    this.#inFlight++;
  }

  /**
   * Records that an input record of `key` finished: decrements the key in
   * the oldest segment that holds it.
   *
   * @param key The finished record's key.
   * @returns `true` if a segment held the key; `false` otherwise, which the
   * operator should treat as an impossible state.
   */
  removeKey(key: K): boolean {
    for (const segment of this.#segments) {
      if (segment.decrementKeyReference(key)) {
        this.#inFlight--;
        return true;
      }
    }
    return false;
  }

  /**
   * Holds `watermark` back behind every record added so far, and starts a
   * new segment for the records that follow.
   *
   * With no segment at all (nothing was ever in flight, or everything was
   * drained and popped), an empty segment is put before the watermark first,
   * so that the watermark is poppable at once: this departs from Flink
   * Agents, where keys added before the pop would hold it back.
   *
   * @param watermark The watermark, in milliseconds of event time.
   */
  addWatermark(watermark: number): void {
    // Fixed where Flink Agents is not: keep "watermark i closes segment i" even on an
    // empty queue, instead of making one segment both before and after it.
    if (this.#segments.length === 0) this.#segments.push(new KeySegment<K>());
    this.#watermarks.push(watermark);
    this.#segments.push(new KeySegment<K>());
  }

  /**
   * Releases the oldest held watermark if every record before it has
   * finished: when the first segment is empty and a watermark is held, drops
   * that segment and returns the watermark. Call it until it
   * returns `null` after each `addWatermark` and `removeKey`.
   *
   * @returns The released watermark, or `null` if none can be released.
   */
  popOldestWatermark(): number | null {
    if (this.#watermarks.length === 0 || !this.#segments[0].isEmpty()) {
      return null;
    }
    this.#segments.shift();
    return this.#watermarks.shift()!;
  }

  /**
   * Returns the segments and held watermarks as plain data, detached from
   * the queue (keys are shared, not copied).
   *
   * @returns A snapshot that {@linkcode SegmentedQueue.restore} accepts.
   */
  snapshot(): SegmentedQueueSnapshot<K> {
    return {
      segments: this.#segments.map((segment) => segment.entries()),
      watermarks: this.#watermarks.slice(),
    };
  }

  /**
   * Replaces the queue's state with a snapshot's. The whole snapshot is
   * checked before anything changes; a key listed twice in one segment has
   * its counts added up.
   *
   * @param snapshot What {@linkcode SegmentedQueue.snapshot} returned.
   * @throws {RangeError} If a count is not a positive safe integer, a
   * watermark is not a safe integer or `±Infinity`, or the number of
   * segments is not the number of watermarks + 1 (or 0 with no watermarks);
   * the message names the field.
   * @throws {TypeError} If `snapshot` or a field has the wrong type.
   */
  restore(snapshot: SegmentedQueueSnapshot<K>): void {
    if (typeof snapshot !== "object" || snapshot === null) {
      fail(TypeError, RESTORE, "snapshot", "an object", snapshot);
    }
    const { segments, watermarks } = snapshot;
    if (!Array.isArray(segments)) {
      fail(TypeError, RESTORE, "snapshot.segments", "an array", segments);
    }
    if (!Array.isArray(watermarks)) {
      fail(TypeError, RESTORE, "snapshot.watermarks", "an array", watermarks);
    }
    watermarks.forEach((w, i) => {
      requireTime(w, RESTORE, `snapshot.watermarks[${i}]`);
    });
    const expected = watermarks.length === 0 ? "0 or 1" : watermarks.length + 1;
    if (
      segments.length !== watermarks.length + 1 &&
      !(segments.length === 0 && watermarks.length === 0)
    ) {
      fail(
        RangeError,
        RESTORE,
        "snapshot.segments.length",
        `${expected} (held watermarks + 1)`,
        segments.length,
      );
    }
    segments.forEach((pairs, i) => {
      if (!Array.isArray(pairs)) {
        fail(TypeError, RESTORE, `snapshot.segments[${i}]`, "an array", pairs);
      }
      pairs.forEach((pair, j) => {
        const param = `snapshot.segments[${i}][${j}]`;
        if (!Array.isArray(pair) || pair.length !== 2) {
          fail(TypeError, RESTORE, param, "a [key, count] pair", pair);
        }
        const count = pair[1];
        if (typeof count !== "number") {
          fail(TypeError, RESTORE, `${param}[1]`, "a number", count);
        }
        if (!Number.isSafeInteger(count) || count < 1) {
          fail(
            RangeError,
            RESTORE,
            `${param}[1]`,
            "a positive safe integer",
            count,
          );
        }
      });
    });
    const restored: KeySegment<K>[] = [];
    let inFlight = 0;
    for (const pairs of segments) {
      const segment = new KeySegment<K>();
      for (const [key, count] of pairs) {
        segment.incrementKeyReference(key, count);
        inFlight += count;
      }
      restored.push(segment);
    }
    this.#segments = restored;
    this.#watermarks = watermarks.slice();
    this.#inFlight = inFlight;
  }
}
