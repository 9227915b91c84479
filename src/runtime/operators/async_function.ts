/**
 * What the async wait operator calls: the asynchronous function, what it
 * may do besides returning, and the operator's options.
 *
 * @module
 */

/** What an asynchronous function may do besides returning its result. */
export interface AsyncContext<OUT> {
  /**
   * Starts follow-up work that belongs to the same input: the input counts as
   * done only when its call and every spawned piece have settled, and the
   * outputs of all of them are its results.
   */
  spawn(work: Promise<OUT | OUT[] | void>): void;
}

/**
 * An asynchronous call per record (an HTTP API, an LLM, a database).
 *
 * @param value The input record.
 * @param context Lets the call spawn follow-up work for the same record.
 * @returns The output record(s), or nothing.
 */
export type AsyncFunction<IN, OUT> = (
  value: IN,
  context: AsyncContext<OUT>,
) => Promise<OUT | OUT[] | void>;

/** Options of `AsyncWaitOperator`. */
export interface AsyncWaitOptions<IN, OUT> {
  /**
   * `"ordered"`: results leave in input order. `"unordered"`: results leave
   * as they complete, but never across a watermark (Flink's `unorderedWait`).
   * `"keyed"`: results of one key leave in input order, keys overtake each
   * other, and a watermark waits only for the records that arrived before it
   * (Flink Agents' SegmentedQueue).
   */
  mode: "ordered" | "unordered" | "keyed";
  /** The key of a record; required in `"keyed"` mode. */
  keySelector?: (value: IN) => unknown;
  /**
   * Records and watermarks in flight before the operator stops taking input.
   * @default {100}
   */
  capacity?: number;
  /**
   * Processing time a call may take, in milliseconds; 0 waits forever.
   * @default {0}
   */
  timeoutMs?: number;
  /**
   * Gives the results of a call that timed out; without it a timeout is a
   * failed call (retried, then set aside by the job's error policy). If it
   * throws, its record goes to the job's error policy at once.
   * @default {undefined}
   */
  onTimeout?: (value: IN) => OUT | OUT[] | void;
  /**
   * How often a failed call is tried again.
   * @default {0}
   */
  retries?: number;
  /**
   * Processing time before the first retry, doubled for each further one.
   * @default {100}
   */
  backoffMs?: number;
}
