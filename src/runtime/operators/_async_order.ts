// The order in which an AsyncWaitOperator releases results and watermarks,
// one implementation per mode over the queues of src/async/.

import {
  OrderedQueue,
  SegmentedQueue,
  type StreamElementQueue,
  UnorderedQueue,
} from "../../async/mod.ts";

/** What the queue releases next: a completed record's results, or a watermark. */
export type Released = { kind: "record"; id: number } | {
  kind: "watermark";
  watermark: number;
};

/** A record (by id) or a watermark not yet released, for snapshots. */
export type Pending = { id: number } | { watermark: number };

/** The ordering policy of an asynchronous operator. */
export interface AsyncOrderQueue<OUT> {
  /** A record arrived (its call starts now). */
  addRecord(id: number, key: unknown, timestamp: number): void;
  /** A watermark arrived. */
  addWatermark(watermark: number): void;
  /** A record's call (and spawned work) completed with these results. */
  complete(id: number, key: unknown, results: OUT[]): void;
  /** The next releasable element, or `null`. */
  poll(): Released | null;
  /** Records and watermarks not yet released, in arrival order. */
  pendingInOrder(): Pending[];
  /** Watermarks held back. */
  readonly heldWatermarks: number;
  /** The oldest held watermark, or `null`. */
  oldestHeldWatermark(): number | null;
}

/**
 * Keyed mode: results of one key in input order, keys independent, and a
 * watermark held by a {@linkcode SegmentedQueue} until the records before it
 * are out.
 */
class KeyedOrder<OUT> implements AsyncOrderQueue<OUT> {
  readonly #segments = new SegmentedQueue<unknown>();
  readonly #perKey = new Map<unknown, number[]>();
  readonly #done = new Set<number>();
  readonly #ready: Released[] = [];
  // What is not yet released, in arrival order, for snapshots: the segmented
  // queue counts keys, not records. Records are keyed by id, watermarks by
  // their own item (values may repeat), and the held ones are listed oldest
  // first, the order in which they leave.
  readonly #pending = new Map<number | Pending, Pending>();
  readonly #heldItems: Pending[] = [];

  addRecord(id: number, key: unknown): void {
    this.#segments.addKeyToLastSegment(key);
    const fifo = this.#perKey.get(key);
    if (fifo === undefined) this.#perKey.set(key, [id]);
    else fifo.push(id);
    this.#pending.set(id, { id });
  }

  addWatermark(watermark: number): void {
    this.#segments.addWatermark(watermark);
    const item = { watermark };
    this.#pending.set(item, item);
    this.#heldItems.push(item);
    this.#drainWatermarks();
  }

  complete(id: number, key: unknown): void {
    this.#done.add(id);
    const fifo = this.#perKey.get(key)!;
    // One key's results leave in input order: an earlier call still running
    // holds back the later ones of the same key.
    while (fifo.length > 0 && this.#done.has(fifo[0])) {
      const next = fifo.shift()!;
      this.#done.delete(next);
      this.#ready.push({ kind: "record", id: next });
      this.#pending.delete(next);
      this.#segments.removeKey(key);
      // A watermark leaves as soon as the records before it are out.
      this.#drainWatermarks();
    }
    if (fifo.length === 0) this.#perKey.delete(key);
  }

  #drainWatermarks(): void {
    for (;;) {
      const watermark = this.#segments.popOldestWatermark();
      if (watermark === null) return;
      this.#ready.push({ kind: "watermark", watermark });
      this.#pending.delete(this.#heldItems.shift()!);
    }
  }

  poll(): Released | null {
    return this.#ready.shift() ?? null;
  }

  pendingInOrder(): Pending[] {
    return [...this.#pending.values()];
  }

  get heldWatermarks(): number {
    return this.#segments.heldWatermarks;
  }

  oldestHeldWatermark(): number | null {
    return this.#segments.oldestHeldWatermark();
  }
}

/**
 * Ordered and unordered modes over the element queues (Flink's `StreamElementQueue`):
 * watermarks are segment barriers, records never cross them. Capacity is
 * enforced by the operator through back-pressure, so the queue's own bound
 * is never reached.
 */
class ElementOrder<OUT> implements AsyncOrderQueue<OUT> {
  readonly #queue: StreamElementQueue<null, OUT>;

  constructor(mode: "ordered" | "unordered") {
    this.#queue = mode === "ordered"
      ? new OrderedQueue<null, OUT>(Number.MAX_SAFE_INTEGER)
      : new UnorderedQueue<null, OUT>(Number.MAX_SAFE_INTEGER);
  }

  addRecord(id: number, _key: unknown, timestamp: number): void {
    this.#queue.put({ id, timestamp, value: null });
  }

  addWatermark(watermark: number): void {
    this.#queue.put({ watermark });
  }

  complete(id: number, _key: unknown, results: OUT[]): void {
    this.#queue.complete(id, results);
  }

  poll(): Released | null {
    const next = this.#queue.pollEmittable();
    if (next === null || next.kind === "watermark") return next;
    return { kind: "record", id: next.id };
  }

  /** The queue's snapshot: entries not yet polled, completed or not, in arrival order. */
  pendingInOrder(): Pending[] {
    return this.#queue.snapshot().entries;
  }

  get heldWatermarks(): number {
    return this.#queue.heldWatermarks;
  }

  oldestHeldWatermark(): number | null {
    return this.#queue.oldestHeldWatermark();
  }
}

/**
 * Creates the ordering policy of a mode.
 *
 * @param mode `"ordered"`, `"unordered"` or `"keyed"`.
 * @returns A fresh, empty queue.
 */
export function createOrderQueue<OUT>(
  mode: "ordered" | "unordered" | "keyed",
): AsyncOrderQueue<OUT> {
  switch (mode) {
    case "keyed":
      return new KeyedOrder<OUT>();
    case "ordered":
    case "unordered":
      return new ElementOrder<OUT>(mode);
  }
}
