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
  pendingInOrder(): Array<{ id: number } | { watermark: number }>;
  /** Watermarks held back. */
  readonly heldWatermarks: number;
  /** The oldest held watermark, or `null`. */
  oldestHeldWatermark(): number | null;
}

/** Tracks arrival order for snapshots; shared by every mode. */
class Arrivals {
  readonly #items = new Map<number, { id: number } | { watermark: number }>();
  readonly #watermarkSeqs: number[] = [];
  readonly #recordSeq = new Map<number, number>();
  #seq = 0;

  record(id: number): void {
    this.#recordSeq.set(id, this.#seq);
    this.#items.set(this.#seq++, { id });
  }

  watermark(watermark: number): void {
    this.#watermarkSeqs.push(this.#seq);
    this.#items.set(this.#seq++, { watermark });
  }

  releaseRecord(id: number): void {
    this.#items.delete(this.#recordSeq.get(id)!);
    this.#recordSeq.delete(id);
  }

  /** Watermarks are always released oldest first. */
  releaseWatermark(): void {
    this.#items.delete(this.#watermarkSeqs.shift()!);
  }

  get heldWatermarks(): number {
    return this.#watermarkSeqs.length;
  }

  oldestWatermark(): number | null {
    if (this.#watermarkSeqs.length === 0) return null;
    return (this.#items.get(this.#watermarkSeqs[0]) as { watermark: number })
      .watermark;
  }

  inOrder(): Array<{ id: number } | { watermark: number }> {
    return [...this.#items.values()];
  }
}

/**
 * Keyed mode: results of one key in input order, keys independent, and a
 * watermark held by a {@linkcode SegmentedQueue} until the records before it
 * are out (reference §7.2).
 */
class KeyedOrder<OUT> implements AsyncOrderQueue<OUT> {
  readonly #segments = new SegmentedQueue<unknown>();
  readonly #perKey = new Map<unknown, number[]>();
  readonly #done = new Set<number>();
  readonly #ready: Released[] = [];
  readonly #arrivals = new Arrivals();

  addRecord(id: number, key: unknown): void {
    this.#segments.addKeyToLastSegment(key);
    const fifo = this.#perKey.get(key);
    if (fifo === undefined) this.#perKey.set(key, [id]);
    else fifo.push(id);
    this.#arrivals.record(id);
  }

  addWatermark(watermark: number): void {
    this.#segments.addWatermark(watermark);
    this.#arrivals.watermark(watermark);
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
      this.#arrivals.releaseRecord(next);
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
      this.#arrivals.releaseWatermark();
    }
  }

  poll(): Released | null {
    return this.#ready.shift() ?? null;
  }

  pendingInOrder(): Array<{ id: number } | { watermark: number }> {
    return this.#arrivals.inOrder();
  }

  get heldWatermarks(): number {
    return this.#arrivals.heldWatermarks;
  }

  oldestHeldWatermark(): number | null {
    return this.#arrivals.oldestWatermark();
  }
}

/**
 * Ordered and unordered modes over the element queues of reference §7.1:
 * watermarks are segment barriers, records never cross them. Capacity is
 * enforced by the operator through back-pressure, so the queue's own bound
 * is never reached.
 */
class ElementOrder<OUT> implements AsyncOrderQueue<OUT> {
  readonly #queue: StreamElementQueue<null, OUT>;
  readonly #arrivals = new Arrivals();

  constructor(mode: "ordered" | "unordered") {
    this.#queue = mode === "ordered"
      ? new OrderedQueue<null, OUT>(Number.MAX_SAFE_INTEGER)
      : new UnorderedQueue<null, OUT>(Number.MAX_SAFE_INTEGER);
  }

  addRecord(id: number, _key: unknown, timestamp: number): void {
    this.#queue.put({ id, timestamp, value: null });
    this.#arrivals.record(id);
  }

  addWatermark(watermark: number): void {
    this.#queue.put({ watermark });
    this.#arrivals.watermark(watermark);
  }

  complete(id: number, _key: unknown, results: OUT[]): void {
    this.#queue.complete(id, results);
  }

  poll(): Released | null {
    const next = this.#queue.pollEmittable();
    if (next === null) return null;
    if (next.kind === "watermark") {
      this.#arrivals.releaseWatermark();
      return next;
    }
    this.#arrivals.releaseRecord(next.id);
    return { kind: "record", id: next.id };
  }

  pendingInOrder(): Array<{ id: number } | { watermark: number }> {
    return this.#arrivals.inOrder();
  }

  get heldWatermarks(): number {
    return this.#arrivals.heldWatermarks;
  }

  oldestHeldWatermark(): number | null {
    return this.#arrivals.oldestWatermark();
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
