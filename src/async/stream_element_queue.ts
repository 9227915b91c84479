/**
 * The contract shared by the element queues of async operators (Flink's
 * `StreamElementQueue`), with the entry, output and snapshot types that
 * {@linkcode OrderedQueue} and {@linkcode UnorderedQueue} both use.
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
  /** The input record's timestamp in milliseconds (`-Infinity` for none); its outputs carry it. */
  timestamp: number;
  /** The input value, kept so that a restored job can run the call again. */
  value: IN;
}

/**
 * An entry of a {@linkcode StreamElementQueue}: a record, or a watermark
 * (which counts against the capacity too).
 *
 * @typeParam IN The input value type.
 */
export type QueueEntry<IN> = QueuedRecord<IN> | { watermark: number };

/**
 * One element leaving a {@linkcode StreamElementQueue}: the results of one
 * input record, stamped with its timestamp, or a watermark.
 *
 * `values` holds what was passed to `complete`, possibly nothing (an input
 * may yield 0..n outputs); the entry leaves the queue either way.
 *
 * @typeParam OUT The result value type.
 */
export type EmittedElement<OUT> =
  | { kind: "records"; id: number; values: OUT[]; timestamp: number }
  | { kind: "watermark"; watermark: number };

/**
 * The pending entries of a {@linkcode StreamElementQueue} as plain data, in
 * queue order, for checkpoints.
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
 * the results, and then polls until `null`.
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
   * Appends an entry unless the queue is full; a watermark is
   * completed on insertion.
   */
  put(entry: QueueEntry<IN>): boolean;
  /**
   * Stores the results of a queued record; returns `false` and changes
   * nothing if the id is unknown or already completed.
   */
  complete(id: number, results: OUT[]): boolean;
  /** Removes and returns one element that may leave now, or `null`. */
  pollEmittable(): EmittedElement<OUT> | null;
  /** Returns the pending entries in queue order, detached from the queue. */
  snapshot(): QueueSnapshot<IN>;
  /** Replaces the entries with a snapshot's; every record is pending again. */
  restore(snapshot: QueueSnapshot<IN>): void;
}
