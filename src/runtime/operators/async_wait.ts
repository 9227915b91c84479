/**
 * Asynchronous calls inside a stream, with watermarks held back until the
 * work they cover is done.
 *
 * @module
 */

import type { WatermarkStatus } from "../../time/mod.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  SnapshotOptions,
  StreamOperator,
} from "../stream_operator.ts";
import { type AsyncOrderQueue, createOrderQueue } from "./_async_order.ts";
import { requireFunction } from "./_validate.ts";
import type { AsyncFunction, AsyncWaitOptions } from "./async_function.ts";
import { rethrowRecord } from "../_record_guard.ts";
import type { StateKind } from "../rescale/state_kind.ts";
import { type InFlight, newInFlight, toResults } from "./_async_call.ts";

export type {
  AsyncContext,
  AsyncFunction,
  AsyncWaitOptions,
} from "./async_function.ts";

/** An operator's pending input, in arrival order, as plain data. */
export interface AsyncWaitSnapshot<IN> {
  /** Records not yet emitted, and (in persist mode) watermarks not yet forwarded. */
  pending: Array<{ value: IN; timestamp: number } | { watermark: number }>;
}

/**
 * Runs an {@linkcode AsyncFunction} per record without blocking the stream
 * (Flink's `AsyncWaitOperator`, and Flink Agents' held-back watermarks in
 * `"keyed"` mode).
 *
 * Results carry the input record's timestamp. A watermark is forwarded only
 * after every record that arrived before it has been emitted (all modes), so
 * a window downstream receives every result before the watermark that closes
 * it, however long the calls take. Completions arrive between
 * elements through the subtask's mailbox (`requestMail` / `processMail`).
 *
 * Checkpoints never wait for calls: a snapshot holds the records still in
 * flight (they are called again after a restore) and, in persist mode, the
 * held watermarks in their places; in replay mode the watermarks are rebuilt
 * from the replayed input.
 *
 * A call that throws, rejects or times out (without `onTimeout`) is tried
 * again `retries` times (Flink's retry strategy); then its record goes to
 * the subtask's error policy (`OperatorContext.reject`) when its completion
 * is processed, and completes with no result: the order and the held
 * watermarks go on. A record whose `onTimeout` throws goes the same way at
 * once, with what `onTimeout` threw. Under `"fail"` the subtask throws there, and the job
 * restarts (Flink's behaviour). A record whose key selector throws is set
 * aside at once.
 *
 * Cost: one promise per record (the call itself); bookkeeping O(1) per record
 * and O(log n) per watermark. Not thread safe.
 */
export class AsyncWaitOperator<IN, OUT> implements StreamOperator<IN, OUT> {
  /** How a rescale splits its state: it does not; records in flight stay with their subtask. */
  static readonly stateKind: StateKind = "pinned";

  readonly #fn: AsyncFunction<IN, OUT>;
  readonly #options: AsyncWaitOptions<IN, OUT>;
  readonly #capacity: number;
  #output: OperatorOutput<OUT> | null = null;
  #context: OperatorContext | null = null;
  #queue: AsyncOrderQueue<OUT> | null = null;
  readonly #inFlight = new Map<number, InFlight<IN, OUT>>();
  readonly #completed: number[] = [];
  #reject: RejectRecord = rethrowRecord;
  #nextId = 0;

  /**
   * Creates the operator.
   *
   * @param fn The asynchronous call.
   * @param options Mode, capacity, timeout and retries.
   * @throws {TypeError} If `fn` is not a function, or `"keyed"` mode lacks a key selector.
   * @throws {RangeError} If a number is out of range or the mode is unknown.
   */
  constructor(fn: AsyncFunction<IN, OUT>, options: AsyncWaitOptions<IN, OUT>) {
    const action = "create AsyncWaitOperator";
    requireFunction(fn, { action, param: "fn" });
    if (!["ordered", "unordered", "keyed"].includes(options.mode)) {
      throw new RangeError(
        `Cannot ${action} as 'mode' must be "ordered", "unordered" or "keyed": current value is ${
          JSON.stringify(options.mode)
        }`,
      );
    }
    if (options.mode === "keyed" && typeof options.keySelector !== "function") {
      throw new TypeError(
        `Cannot ${action} as 'keySelector' must be a function in "keyed" mode: current value is ${
          String(options.keySelector)
        }`,
      );
    }
    for (
      const [param, value, min] of [
        ["capacity", options.capacity ?? 100, 1],
        ["timeoutMs", options.timeoutMs ?? 0, 0],
        ["retries", options.retries ?? 0, 0],
        ["backoffMs", options.backoffMs ?? 100, 0],
      ] as const
    ) {
      if (!Number.isSafeInteger(value) || value < min) {
        throw new RangeError(
          `Cannot ${action} as '${param}' must be a safe integer of at least ${min}: current value is ${value}`,
        );
      }
    }
    this.#fn = fn;
    this.#options = options;
    this.#capacity = options.capacity ?? 100;
  }

  /** Keeps the output and creates the queue of the mode. */
  open(context: OperatorContext, output: OperatorOutput<OUT>): void {
    this.#context = context;
    this.#output = output;
    this.#reject = context.reject ?? rethrowRecord;
    this.#queue ??= createOrderQueue<OUT>(this.#options.mode);
    context.metrics.gauge("asyncInFlight", () => this.#inFlight.size);
    context.metrics.gauge("heldWatermarks", () => this.#queue!.heldWatermarks);
    context.metrics.gauge("oldestHeldWatermarkAgeMs", () => {
      const oldest = this.#queue!.oldestHeldWatermark();
      return oldest === null ? 0 : context.clock.now() - oldest;
    });
  }

  /** Starts one call per record. */
  processBatch(values: readonly IN[], timestamps: readonly number[]): void {
    // A record whose key selector throws is set aside; one whose call
    // throws or rejects fails asynchronously (after its retries).
    const n = values.length;
    let i = 0;
    while (i < n) {
      try {
        for (; i < n; i++) this.#start(values[i], timestamps[i]);
      } catch (error) {
        this.#reject(values[i], timestamps[i], error, i);
        i++;
      }
    }
  }

  /** Holds the watermark until everything before it is emitted. */
  processWatermark(watermark: number): void {
    this.#queue!.addWatermark(watermark);
    this.#emitReady();
  }

  /** Forwards the status. */
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }

  /** Emits what completed since the last call. */
  processMail(): void {
    for (const id of this.#completed.splice(0)) {
      const entry = this.#inFlight.get(id);
      if (entry === undefined) continue;
      // A call that failed for good: its record is set aside (under
      // "fail" this throws) and completes with no result, so the order
      // and the held watermarks go on.
      if (entry.failure !== null) {
        this.#reject(entry.value, entry.timestamp, entry.failure.error);
      }
      this.#queue!.complete(id, entry.key, entry.results);
    }
    this.#emitReady();
  }

  /** Whether records and held watermarks fill the capacity. */
  isBackPressured(): boolean {
    return this.#inFlight.size + this.#queue!.heldWatermarks >= this.#capacity;
  }

  /** Calls in flight. */
  inFlight(): number {
    return this.#inFlight.size;
  }

  /** Times out and retries calls whose time has come. */
  onProcessingTime(now: number): void {
    for (const entry of this.#inFlight.values()) {
      if (entry.done) continue;
      if (entry.retryAt <= now) {
        entry.retryAt = Infinity;
        this.#call(entry);
      } else if (entry.deadline <= now) {
        this.#timeOut(entry);
      }
    }
    this.processMail();
  }

  /** The earliest timeout or retry, or `Infinity`. */
  nextProcessingTime(): number {
    let next = Infinity;
    for (const entry of this.#inFlight.values()) {
      if (entry.done) continue;
      if (entry.retryAt < next) next = entry.retryAt;
      if (entry.deadline < next) next = entry.deadline;
    }
    return next;
  }

  /** Nothing: the subtask waits for the calls in flight before finishing. */
  finish(): void {}

  /** The records in flight and, in persist mode, the held watermarks, in arrival order. */
  snapshotState(
    _checkpointId?: number,
    options?: SnapshotOptions,
  ): AsyncWaitSnapshot<IN> {
    const watermarks = options?.watermarks !== false;
    const pending: AsyncWaitSnapshot<IN>["pending"] = [];
    for (const item of this.#queue!.pendingInOrder()) {
      if ("watermark" in item) {
        if (watermarks) pending.push({ watermark: item.watermark });
      } else {
        const entry = this.#inFlight.get(item.id)!;
        pending.push({ value: entry.value, timestamp: entry.timestamp });
      }
    }
    return { pending };
  }

  /** Calls the snapshot's records again and holds its watermarks in place. */
  restoreState(state: unknown): void {
    this.#queue ??= createOrderQueue<OUT>(this.#options.mode);
    for (const item of (state as AsyncWaitSnapshot<IN>).pending) {
      if ("watermark" in item) this.#queue.addWatermark(item.watermark);
      else this.#start(item.value, item.timestamp);
    }
  }

  #start(value: IN, timestamp: number): void {
    const id = this.#nextId++;
    const key = this.#options.mode === "keyed"
      ? this.#options.keySelector!(value)
      : null;
    const entry = newInFlight<IN, OUT>(id, value, timestamp, key);
    this.#inFlight.set(id, entry);
    this.#queue!.addRecord(id, key, timestamp);
    this.#call(entry);
  }

  #call(entry: InFlight<IN, OUT>): void {
    const generation = ++entry.generation;
    entry.pending = 0;
    entry.results = [];
    const timeout = this.#options.timeoutMs ?? 0;
    entry.deadline = timeout > 0
      ? this.#context!.clock.now() + timeout
      : Infinity;
    const track = (work: Promise<OUT | OUT[] | void>) => {
      entry.pending++;
      work.then(
        (result) => {
          if (entry.generation !== generation || entry.done) return;
          entry.results.push(...toResults(result));
          if (--entry.pending === 0) this.#complete(entry);
        },
        (error) => {
          if (entry.generation !== generation || entry.done) return;
          this.#fail(entry, error);
        },
      );
    };
    let call: Promise<OUT | OUT[] | void>;
    try {
      call = this.#fn(entry.value, { spawn: track });
    } catch (error) {
      call = Promise.reject(error);
    }
    track(call);
  }

  #complete(entry: InFlight<IN, OUT>): void {
    entry.done = true;
    this.#completed.push(entry.id);
    this.#context!.requestMail?.();
  }

  #fail(entry: InFlight<IN, OUT>, error: unknown): void {
    const retries = this.#options.retries ?? 0;
    if (entry.attempt < retries) {
      entry.generation++; // results of the failed attempt's spawned work are ignored
      entry.retryAt = this.#context!.clock.now() +
        (this.#options.backoffMs ?? 100) * 2 ** entry.attempt++;
      entry.deadline = Infinity;
      this.#context!.requestMail?.();
      return;
    }
    entry.failure = {
      error: new Error(
        `Cannot complete the asynchronous call for the record at ${entry.timestamp} after ${
          entry.attempt + 1
        } attempt(s): ${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      ),
    };
    entry.results = [];
    this.#complete(entry);
  }

  #timeOut(entry: InFlight<IN, OUT>): void {
    const onTimeout = this.#options.onTimeout;
    if (onTimeout === undefined) {
      this.#fail(
        entry,
        new Error(`timed out after ${this.#options.timeoutMs} ms`),
      );
      return;
    }
    entry.generation++; // a late result is ignored
    try {
      entry.results = toResults(onTimeout(entry.value));
    } catch (error) {
      // User code threw for this record: it goes to the error policy as a
      // failed call does, with what was thrown. Not retried:
      // the call itself did not fail.
      entry.failure = { error };
      entry.results = [];
    }
    this.#complete(entry);
  }

  /**
   * Emits every result and watermark the queue releases: the results of
   * consecutive records go out as one batch, cut before each watermark.
   */
  #emitReady(): void {
    const output = this.#output!;
    let values: OUT[] = [];
    let timestamps: number[] = [];
    const flush = () => {
      if (values.length === 0) return;
      output.emitBatch(values, timestamps);
      values = [];
      timestamps = [];
    };
    for (;;) {
      const next = this.#queue!.poll();
      if (next === null) break;
      if (next.kind === "watermark") {
        flush();
        output.emitWatermark(next.watermark);
        continue;
      }
      const entry = this.#inFlight.get(next.id)!;
      this.#inFlight.delete(next.id);
      for (const result of entry.results) {
        values.push(result);
        timestamps.push(entry.timestamp);
      }
    }
    flush();
  }
}
