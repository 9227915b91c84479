/**
 * The element queue of an unordered async operator (Flink's
 * `UnorderedStreamElementQueue`): watermarks are barriers between segments.
 *
 * @module
 */

import type {
  EmittedElement,
  QueueEntry,
  QueueSnapshot,
  StreamElementQueue,
} from "./stream_element_queue.ts";
import {
  checkSnapshot,
  requireCapacity,
  requireUnqueued,
} from "./_queue_checks.ts";
import { copyEntry, toEmitted } from "./_queue_entries.ts";

/** An entry in the queue, with its completion and its segment. */
interface Slot<IN, OUT> {
  readonly entry: QueueEntry<IN>;
  readonly segment: Segment<IN, OUT>;
  done: boolean;
  results: OUT[];
}

/**
 * The entries between two watermarks, or one watermark alone. `slots` keeps
 * queue order (for snapshots); `completed` is the emission order.
 */
interface Segment<IN, OUT> {
  readonly slots: Set<Slot<IN, OUT>>;
  readonly completed: Slot<IN, OUT>[];
}

const NO_RESULTS: never[] = [];

/**
 * Runs the element queue of `AsyncDataStream.unorderedWait`: records leave
 * as soon as their results are in, but never across a watermark in either
 * direction.
 *
 * The queue is a list of segments. A record joins the last segment; a
 * watermark takes a segment of its own (reusing the last one if it is
 * empty) and opens a fresh one for the records after it. Only the first
 * segment emits: its completed entries in completion order, so records of one
 * segment leave in any order. A drained first segment is dropped when others
 * follow. Thus no record is overtaken by a later watermark, and no watermark
 * overtakes an earlier record (the design of FLINK-4391).
 *
 * Cost: `put`, `complete` and `pollEmittable` take constant time, apart from
 * shifting the list of segments, whose length is about twice the number of
 * queued watermarks. Not thread safe.
 *
 * @typeParam IN The input value type; never inspected.
 * @typeParam OUT The result value type.
 *
 * @example A fast record overtakes a slow one, but not the watermark
 * ```ts
 * import { UnorderedQueue } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const queue = new UnorderedQueue<string, string>(8);
 * queue.put({ id: 1, timestamp: 0, value: "slow" });
 * queue.put({ id: 2, timestamp: 1, value: "fast" });
 * queue.put({ watermark: 1 });
 * queue.put({ id: 3, timestamp: 2, value: "after" });
 * queue.complete(3, ["AFTER"]);
 * queue.complete(2, ["FAST"]);
 * assert.deepEqual(queue.pollEmittable(), { kind: "records", id: 2, values: ["FAST"], timestamp: 1 });
 * assert.equal(queue.pollEmittable(), null); // "slow" holds the watermark back
 * ```
 */
export class UnorderedQueue<IN, OUT = IN>
  implements StreamElementQueue<IN, OUT> {
  /** The most entries (records and watermarks) the queue holds. */
  readonly capacity: number;
  #segments: Segment<IN, OUT>[] = [];
  #records = new Map<number, Slot<IN, OUT>>();
  #size = 0;
  // Queued watermark values, oldest first: they leave in arrival order.
  #watermarks: number[] = [];

  /**
   * Creates an empty queue.
   *
   * @param capacity The most entries, records and watermarks together; a
   * positive safe integer.
   * @throws {RangeError} If `capacity` is not a positive safe integer.
   * @throws {TypeError} If `capacity` is not a number.
   */
  constructor(capacity: number) {
    this.capacity = requireCapacity(capacity, "UnorderedQueue");
  }

  /** The number of entries in the queue. */
  get size(): number {
    return this.#size;
  }

  /** Whether `put` would refuse an entry now. */
  get isFull(): boolean {
    return this.#size >= this.capacity;
  }

  /** The number of watermarks in the queue, held back by records before them. */
  get heldWatermarks(): number {
    return this.#watermarks.length;
  }

  /**
   * Returns the oldest watermark in the queue: the one the operator's output
   * watermark is waiting for.
   *
   * @returns The watermark, or `null` when none is queued.
   */
  oldestHeldWatermark(): number | null {
    return this.#watermarks.length === 0 ? null : this.#watermarks[0];
  }

  /** Whether the queue holds no entry. */
  get isEmpty(): boolean {
    return this.#size === 0;
  }

  /**
   * Adds a record to the last segment, or a watermark as a segment of its
   * own followed by a fresh one, unless the queue is full. A watermark is completed at once. The queue keeps the entry
   * object: do not change it afterwards.
   *
   * @param entry A record handle with its input value, or `{ watermark }`.
   * @returns `false` if the queue is full and nothing was added.
   * @throws {RangeError} If a queued record already has `entry.id`.
   */
  put(entry: QueueEntry<IN>): boolean {
    if (this.#size >= this.capacity) return false;
    this.#insert(entry, "put a record into UnorderedQueue");
    return true;
  }

  /**
   * Stores the results of the queued record `id`, making it emittable once
   * its segment is the first. A record already completed (a result after a
   * timeout, say) or no longer queued is left alone.
   *
   * @param id The record's id, as it was put.
   * @param results The outputs, possibly none; kept as given, not copied.
   * @returns `true` if the record was pending and is now completed.
   */
  complete(id: number, results: OUT[]): boolean {
    const slot = this.#records.get(id);
    if (slot === undefined || slot.done) return false;
    slot.done = true;
    slot.results = results;
    slot.segment.completed.push(slot);
    return true;
  }

  /**
   * Removes and returns the first segment's earliest completed entry: one
   * element per call.
   *
   * @returns A record's results with the input's timestamp, a watermark,
   * or `null` if the first segment has nothing completed.
   */
  pollEmittable(): EmittedElement<OUT> | null {
    const segments = this.#segments;
    // Rule 9: a drained first segment goes once another follows.
    while (segments.length > 1 && segments[0].slots.size === 0) {
      segments.shift();
    }
    const first = segments[0];
    if (first === undefined || first.completed.length === 0) return null;
    const slot = first.completed.shift()!;
    first.slots.delete(slot);
    this.#size--;
    if (first.slots.size === 0 && segments.length > 1) segments.shift();
    const entry = slot.entry;
    if ("watermark" in entry) this.#watermarks.shift();
    else this.#records.delete(entry.id);
    return toEmitted(entry, slot.results);
  }

  /**
   * Returns every entry still in the queue, completed or not, as fresh
   * objects (input values are shared, not copied): segment by segment, each
   * in arrival order, so watermarks stay between the records around them.
   *
   * @returns A snapshot that {@linkcode UnorderedQueue.restore} accepts.
   */
  snapshot(): QueueSnapshot<IN> {
    const entries: QueueEntry<IN>[] = [];
    for (const segment of this.#segments) {
      for (const slot of segment.slots) entries.push(copyEntry(slot.entry));
    }
    return { entries };
  }

  /**
   * Replaces the queue's entries with a snapshot's, segmented again by its
   * watermarks, all records pending: the operator runs their calls anew.
   * The whole snapshot is checked before anything changes. A snapshot with
   * more entries than `capacity` (the capacity was lowered) is taken whole;
   * `put` then refuses until the queue drains below the capacity, as
   * Flink's re-insertion waits.
   *
   * @param snapshot What {@linkcode UnorderedQueue.snapshot} (or an
   * ordered queue's `snapshot`) returned.
   * @throws {RangeError} If an id is not a safe integer or repeats, or a
   * timestamp or watermark is not a safe integer or `±Infinity`.
   * @throws {TypeError} If `snapshot` or an entry has the wrong type.
   */
  restore(snapshot: QueueSnapshot<IN>): void {
    const action = "restore UnorderedQueue";
    const entries = checkSnapshot(snapshot, action);
    this.#segments = [];
    this.#records = new Map();
    this.#watermarks = [];
    this.#size = 0;
    for (const entry of entries) this.#insert(entry, action);
  }

  #insert(entry: QueueEntry<IN>, action: string): void {
    if (!("watermark" in entry)) {
      requireUnqueued(this.#records, entry.id, action);
    }
    const segments = this.#segments;
    let last = segments[segments.length - 1];
    // Rule 7: a record joins the last segment, created if there is none.
    // Rule 8: a watermark reuses a drained last segment, else gets a new one;
    // either way a fresh segment follows it.
    if (last === undefined || ("watermark" in entry && last.slots.size > 0)) {
      last = { slots: new Set(), completed: [] };
      segments.push(last);
    }
    const slot: Slot<IN, OUT> = {
      entry,
      segment: last,
      done: "watermark" in entry,
      results: NO_RESULTS,
    };
    last.slots.add(slot);
    if ("watermark" in entry) {
      last.completed.push(slot);
      segments.push({ slots: new Set(), completed: [] });
      this.#watermarks.push(entry.watermark);
    } else {
      this.#records.set(entry.id, slot);
    }
    this.#size++;
  }
}
