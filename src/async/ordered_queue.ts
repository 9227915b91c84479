/**
 * The element queue of an ordered async operator (Flink's
 * `OrderedStreamElementQueue`).
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

/** An entry in the queue, with its completion. */
interface Slot<IN, OUT> {
  readonly entry: QueueEntry<IN>;
  done: boolean;
  results: OUT[];
}

const NO_RESULTS: never[] = [];

/**
 * Runs the element queue of `AsyncDataStream.orderedWait`: records and
 * watermarks leave in exactly the order they arrived.
 *
 * Only the head may leave, and only once completed; a watermark is completed
 * when it is put, so it leaves as soon as every record before it has. A
 * completed record behind a pending one waits (head-of-line blocking): use
 * {@linkcode UnorderedQueue} when only the watermarks need to stay in place.
 *
 * Cost: `put`, `complete` and a poll that emits nothing take constant time;
 * a poll that emits shifts the queue, linear in `capacity` at worst (Flink's
 * default capacity is 100). Not thread safe.
 *
 * @typeParam IN The input value type; never inspected.
 * @typeParam OUT The result value type.
 *
 * @example A later record waits for an earlier one
 * ```ts
 * import { OrderedQueue } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const queue = new OrderedQueue<string, number>(4);
 * queue.put({ id: 1, timestamp: 0, value: "a" });
 * queue.put({ id: 2, timestamp: 1, value: "b" });
 * queue.complete(2, [20]);
 * assert.equal(queue.pollEmittable(), null);
 * queue.complete(1, [10]);
 * assert.deepEqual(queue.pollEmittable(), { kind: "records", id: 1, values: [10], timestamp: 0 });
 * assert.equal(queue.pollEmittable()?.kind, "records");
 * assert.equal(queue.isEmpty, true);
 * ```
 */
export class OrderedQueue<IN, OUT = IN> implements StreamElementQueue<IN, OUT> {
  /** The most entries (records and watermarks) the queue holds. */
  readonly capacity: number;
  #slots: Slot<IN, OUT>[] = [];
  #records = new Map<number, Slot<IN, OUT>>();
  // Queued watermark values, oldest first: both queues emit them in order.
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
    this.capacity = requireCapacity(capacity, "OrderedQueue");
  }

  /** The number of entries in the queue. */
  get size(): number {
    return this.#slots.length;
  }

  /** Whether `put` would refuse an entry now. */
  get isFull(): boolean {
    return this.#slots.length >= this.capacity;
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
    return this.#slots.length === 0;
  }

  /**
   * Appends a record or a watermark at the tail, unless the queue is full.
   * A watermark is completed at once. The queue
   * keeps the entry object: do not change it afterwards.
   *
   * @param entry A record handle with its input value, or `{ watermark }`.
   * @returns `false` if the queue is full and nothing was added.
   * @throws {RangeError} If a queued record already has `entry.id`.
   */
  put(entry: QueueEntry<IN>): boolean {
    if (this.#slots.length >= this.capacity) return false;
    this.#insert(entry, "put a record into OrderedQueue");
    return true;
  }

  /**
   * Stores the results of the queued record `id`. A record already
   * completed (a result after a timeout, say) or no longer queued is left
   * alone.
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
    return true;
  }

  /**
   * Removes and returns the head if it is completed: one
   * element per call.
   *
   * @returns The head's results with the input's timestamp, the head
   * watermark, or `null` if the queue is empty or the head is pending.
   */
  pollEmittable(): EmittedElement<OUT> | null {
    const head = this.#slots[0];
    if (head === undefined || !head.done) return null;
    this.#slots.shift();
    const entry = head.entry;
    if ("watermark" in entry) this.#watermarks.shift();
    else this.#records.delete(entry.id);
    return toEmitted(entry, head.results);
  }

  /**
   * Returns every entry still in the queue, completed or not, in queue
   * order, as fresh objects (input values are shared, not copied).
   *
   * @returns A snapshot that {@linkcode OrderedQueue.restore} accepts.
   */
  snapshot(): QueueSnapshot<IN> {
    return { entries: this.#slots.map((slot) => copyEntry(slot.entry)) };
  }

  /**
   * Replaces the queue's entries with a snapshot's, all records pending
   * again: the operator runs their calls anew. The whole snapshot is checked
   * before anything changes. A snapshot with more entries than `capacity`
   * (the capacity was lowered) is taken whole; `put` then refuses until the
   * queue drains below the capacity, as Flink's re-insertion waits.
   *
   * @param snapshot What {@linkcode OrderedQueue.snapshot} returned.
   * @throws {RangeError} If an id is not a safe integer or repeats, or a
   * timestamp or watermark is not a safe integer or `±Infinity`.
   * @throws {TypeError} If `snapshot` or an entry has the wrong type.
   */
  restore(snapshot: QueueSnapshot<IN>): void {
    const action = "restore OrderedQueue";
    const entries = checkSnapshot(snapshot, action);
    this.#slots = [];
    this.#records = new Map();
    this.#watermarks = [];
    for (const entry of entries) this.#insert(entry, action);
  }

  #insert(entry: QueueEntry<IN>, action: string): void {
    if ("watermark" in entry) {
      this.#slots.push({ entry, done: true, results: NO_RESULTS });
      this.#watermarks.push(entry.watermark);
      return;
    }
    requireUnqueued(this.#records, entry.id, action);
    const slot: Slot<IN, OUT> = { entry, done: false, results: NO_RESULTS };
    this.#records.set(entry.id, slot);
    this.#slots.push(slot);
  }
}
