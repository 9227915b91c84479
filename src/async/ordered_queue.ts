/**
 * The element queue of an ordered async operator (Flink's
 * `OrderedStreamElementQueue`), and the entry, output and snapshot types
 * that both async element queues share.
 *
 * @module
 */

/**
 * A record waiting for the result of its asynchronous call.
 *
 * @typeParam IN The input value type; the queue never looks inside it.
 */
export interface QueuedRecord<IN> {
  /** The caller's handle, unique among the queued records; `complete` takes it. */
  id: number;
  /** The input record's timestamp in milliseconds (`-Infinity` for none); its outputs carry it (§7.1 rule 4). */
  timestamp: number;
  /** The input value, kept so that a restored job can run the call again. */
  value: IN;
}

/**
 * An entry of a {@linkcode StreamElementQueue}: a record, or a watermark
 * (which counts against the capacity too, §7.1 rule 1).
 *
 * @typeParam IN The input value type.
 */
export type QueueEntry<IN> = QueuedRecord<IN> | { watermark: number };

/**
 * One element leaving a {@linkcode StreamElementQueue}: the results of one
 * input record, stamped with its timestamp, or a watermark.
 *
 * `values` holds what was passed to `complete`, possibly nothing (an input
 * may yield 0..n outputs, §7.1 rule 4); the entry leaves the queue either way.
 *
 * @typeParam OUT The result value type.
 */
export type EmittedElement<OUT> =
  | { kind: "records"; id: number; values: OUT[]; timestamp: number }
  | { kind: "watermark"; watermark: number };

/**
 * The pending entries of a {@linkcode StreamElementQueue} as plain data, in
 * queue order, for checkpoints (§7.1 rule 5).
 *
 * Results are not kept: as in Flink, every record in a snapshot, completed
 * or not, is run again after a restore.
 *
 * @typeParam IN The input value type.
 */
export interface QueueSnapshot<IN> {
  /** Records (with their input values) and watermarks, oldest first. */
  entries: QueueEntry<IN>[];
}

/**
 * The queue between an async operator's input and its output (Flink's
 * `StreamElementQueue`): entries go in as they arrive, results come back in
 * any order through `complete`, and `pollEmittable` hands out what may leave
 * now. {@linkcode OrderedQueue} and {@linkcode UnorderedQueue} implement it.
 *
 * The queue is pure bookkeeping: it makes no calls and holds no Promises.
 * The operator starts the call for a record it `put`, calls `complete` with
 * the results, and then polls until `null` (§7.1 rules 2–3).
 *
 * @typeParam IN The input value type.
 * @typeParam OUT The result value type.
 */
export interface StreamElementQueue<IN, OUT> {
  /** The most entries (records and watermarks) the queue holds. */
  readonly capacity: number;
  /** The number of entries in the queue. */
  readonly size: number;
  /** Whether `put` would refuse an entry now. */
  readonly isFull: boolean;
  /** Whether the queue holds no entry. */
  readonly isEmpty: boolean;
  /** The number of watermarks in the queue, for metrics. */
  readonly heldWatermarks: number;
  /** Returns the oldest watermark in the queue, or `null`; for metrics. */
  oldestHeldWatermark(): number | null;
  /**
   * Appends an entry unless the queue is full (§7.1 rule 1); a watermark is
   * completed on insertion (rule 2).
   */
  put(entry: QueueEntry<IN>): boolean;
  /**
   * Stores the results of a queued record; returns `false` and changes
   * nothing if the id is unknown or already completed (§7.1 rule 10).
   */
  complete(id: number, results: OUT[]): boolean;
  /** Removes and returns one element that may leave now, or `null` (§7.1 rule 3). */
  pollEmittable(): EmittedElement<OUT> | null;
  /** Returns the pending entries in queue order, detached from the queue. */
  snapshot(): QueueSnapshot<IN>;
  /** Replaces the entries with a snapshot's; every record is pending again. */
  restore(snapshot: QueueSnapshot<IN>): void;
}

/** An entry in the queue, with its completion. */
interface Slot<IN, OUT> {
  readonly entry: QueueEntry<IN>;
  done: boolean;
  results: OUT[];
}

const NO_RESULTS: never[] = [];

function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  return String(value);
}

function fail(
  ErrorClass: typeof RangeError | typeof TypeError,
  action: string,
  param: string,
  rule: string,
  value: unknown,
): never {
  throw new ErrorClass(
    `Cannot ${action} as '${param}' must be ${rule}: current value is ${
      show(value)
    }`,
  );
}

function requireTime(value: unknown, action: string, param: string): void {
  if (typeof value !== "number") {
    fail(TypeError, action, param, "a number", value);
  }
  if (!Number.isSafeInteger(value) && Math.abs(value) !== Infinity) {
    fail(
      RangeError,
      action,
      param,
      "a safe integer, -Infinity or Infinity",
      value,
    );
  }
}

/**
 * Runs the element queue of `AsyncDataStream.orderedWait`: records and
 * watermarks leave in exactly the order they arrived (§7.1 rules 1–6).
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
    const create = "create OrderedQueue";
    if (typeof capacity !== "number") {
      fail(TypeError, create, "capacity", "a number", capacity);
    }
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      fail(RangeError, create, "capacity", "a positive safe integer", capacity);
    }
    this.capacity = capacity;
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
   * Appends a record or a watermark at the tail, unless the queue is full
   * (§7.1 rule 1). A watermark is completed at once (rule 2). The queue
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
   * alone (§7.1 rule 10).
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
   * Removes and returns the head if it is completed (§7.1 rule 6): one
   * element per call (rule 3).
   *
   * @returns The head's results with the input's timestamp, the head
   * watermark, or `null` if the queue is empty or the head is pending.
   */
  pollEmittable(): EmittedElement<OUT> | null {
    const head = this.#slots[0];
    if (head === undefined || !head.done) return null;
    this.#slots.shift();
    const entry = head.entry;
    if ("watermark" in entry) {
      this.#watermarks.shift();
      return { kind: "watermark", watermark: entry.watermark };
    }
    this.#records.delete(entry.id);
    return {
      kind: "records",
      id: entry.id,
      values: head.results,
      timestamp: entry.timestamp,
    };
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
    const entries = checkSnapshot(snapshot, "restore OrderedQueue");
    this.#slots = [];
    this.#records = new Map();
    this.#watermarks = [];
    for (const entry of entries) this.#insert(entry, "restore OrderedQueue");
  }

  #insert(entry: QueueEntry<IN>, action: string): void {
    if ("watermark" in entry) {
      this.#slots.push({ entry, done: true, results: NO_RESULTS });
      this.#watermarks.push(entry.watermark);
      return;
    }
    if (this.#records.has(entry.id)) {
      fail(
        RangeError,
        action,
        "entry.id",
        "unique among queued records",
        entry.id,
      );
    }
    const slot: Slot<IN, OUT> = { entry, done: false, results: NO_RESULTS };
    this.#records.set(entry.id, slot);
    this.#slots.push(slot);
  }
}

function copyEntry<IN>(entry: QueueEntry<IN>): QueueEntry<IN> {
  return "watermark" in entry
    ? { watermark: entry.watermark }
    : { id: entry.id, timestamp: entry.timestamp, value: entry.value };
}

/**
 * Checks a queue snapshot's shape and values, and that record ids are
 * unique; returns fresh copies of its entries.
 */
function checkSnapshot<IN>(
  snapshot: QueueSnapshot<IN>,
  action: string,
): QueueEntry<IN>[] {
  if (typeof snapshot !== "object" || snapshot === null) {
    fail(TypeError, action, "snapshot", "an object", snapshot);
  }
  const { entries } = snapshot;
  if (!Array.isArray(entries)) {
    fail(TypeError, action, "snapshot.entries", "an array", entries);
  }
  const ids = new Set<number>();
  return entries.map((entry, i) => {
    const param = `snapshot.entries[${i}]`;
    if (typeof entry !== "object" || entry === null) {
      fail(TypeError, action, param, "an object", entry);
    }
    if ("watermark" in entry) {
      requireTime(entry.watermark, action, `${param}.watermark`);
    } else {
      if (typeof entry.id !== "number") {
        fail(TypeError, action, `${param}.id`, "a number", entry.id);
      }
      if (!Number.isSafeInteger(entry.id)) {
        fail(RangeError, action, `${param}.id`, "a safe integer", entry.id);
      }
      if (ids.has(entry.id)) {
        fail(RangeError, action, `${param}.id`, "unique", entry.id);
      }
      ids.add(entry.id);
      requireTime(entry.timestamp, action, `${param}.timestamp`);
    }
    return copyEntry(entry);
  });
}
