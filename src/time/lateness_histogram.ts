/**
 * A fixed-size histogram of how late records are, for choosing a delay.
 *
 * @module
 */

import { MIN_WATERMARK } from "./constants.ts";
import { describeValue, requireFiniteAtLeast } from "./validate.ts";

// Layout, HDR-like: lateness 0..1023 ms has one bucket per millisecond; from
// 1024 ms on, every power of two [2^e, 2^(e+1)) is cut into 64 equal
// buckets, so a bucket is at most 1/64 (1.6%) of its values wide. Powers
// 2^10 to 2^30 cover everything below 2^31 ms (24.8 days); anything later
// lands in the last bucket, whose reported value is the exact maximum.
const LINEAR = 1_024;
const SUB_BITS = 6;
const SUB_BUCKETS = 1 << SUB_BITS;
const FIRST_EXPONENT = 10;
const LAST_EXPONENT = 30;
const BUCKETS = LINEAR +
  (LAST_EXPONENT - FIRST_EXPONENT + 1) * SUB_BUCKETS;
const LIMIT = 2 ** (LAST_EXPONENT + 1);

/** The state of a {@linkcode LatenessHistogram} as plain data. */
export interface LatenessHistogramSnapshot {
  /** The highest timestamp seen, or `-Infinity` before the first record. */
  maxTimestamp: number;
  /** The largest lateness recorded since the last reset, in milliseconds. */
  maxLatenessMs: number;
  /** The non-empty buckets as `[index, count]` pairs, in index order. */
  buckets: Array<[number, number]>;
}

/**
 * Counts, per record, how late it is: `maxTimestamp - timestamp` against the
 * highest timestamp seen before it, and 0 for a record that raises that
 * maximum.
 *
 * Lateness below 1024 ms is counted exactly; above, in log-spaced buckets at
 * most 1/64 (1.6%) of their values wide, up to 2^31 ms (24.8 days); anything
 * later shares the last bucket. Quantiles report the largest value of their
 * bucket (never the exact maximum exceeded), so they err towards a longer
 * delay. Timestamps are integer milliseconds.
 *
 * {@linkcode LatenessHistogram.reset} forgets the counts but keeps the highest
 * timestamp, so a histogram can describe the last interval of a stream
 * without treating the next record as on time.
 *
 * Cost: O(1) per record with fixed memory (2,368 counters, about 19 KB);
 * O(buckets) per quantile or late ratio.
 *
 * @example The suggested delay is the p99 plus 20%
 * ```ts
 * import { LatenessHistogram } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const histogram = new LatenessHistogram();
 * histogram.record(10_000);
 * for (let late = 1; late <= 100; late++) histogram.record(10_000 - late);
 * assert.equal(histogram.quantile(0.5), 50);
 * assert.equal(histogram.quantile(0.99), 99);
 * assert.equal(histogram.suggestedDelayMs(), 119);
 * assert.equal(histogram.lateRatio(90), 10 / 101);
 * ```
 */
export class LatenessHistogram {
  readonly #counts = new Float64Array(BUCKETS);
  #count = 0;
  #maxLateness = 0;
  #maxTimestamp = MIN_WATERMARK;

  /** How many records were counted since the last reset. */
  get count(): number {
    return this.#count;
  }

  /** The largest lateness counted since the last reset, exact; 0 when empty. */
  get max(): number {
    return this.#maxLateness;
  }

  /** The highest timestamp seen, or `-Infinity`; survives {@linkcode reset}. */
  get maxTimestamp(): number {
    return this.#maxTimestamp;
  }

  /**
   * Counts one record by its lateness against the highest timestamp seen.
   *
   * @param timestamp The record's event time in milliseconds.
   */
  record(timestamp: number): void {
    let lateness = 0;
    if (timestamp > this.#maxTimestamp) {
      this.#maxTimestamp = timestamp;
    } else {
      lateness = this.#maxTimestamp - timestamp;
    }
    this.#counts[bucketOf(lateness)]++;
    this.#count++;
    if (lateness > this.#maxLateness) this.#maxLateness = lateness;
  }

  /**
   * Counts the timestamps of a batch in order, exactly as calling
   * {@linkcode LatenessHistogram.record} on each would, skipping `-Infinity`
   * (a record without a timestamp).
   *
   * Cost: one pass with the state in locals, cheaper per record than
   * calling `record` for each.
   *
   * @param timestamps Event times in milliseconds.
   * @throws {TypeError} If `timestamps` is not an array.
   */
  recordAll(timestamps: readonly number[]): void {
    if (!Array.isArray(timestamps)) {
      throw new TypeError(
        `Cannot count LatenessHistogram records as 'timestamps' must be an array: current value is ${
          describeValue(timestamps)
        }`,
      );
    }
    const counts = this.#counts;
    let maxTimestamp = this.#maxTimestamp;
    let maxLateness = this.#maxLateness;
    // record's body on locals. A record that raises the maximum (strictly,
    // as in record) is 0 late: counted with the others in bucket 0 at the
    // end, where the largest lateness is raised to 0 if it is below (a
    // restored snapshot may hold anything).
    let onTime = 0;
    let late = 0;
    for (let i = 0; i < timestamps.length; i++) {
      const timestamp = timestamps[i];
      if (timestamp > maxTimestamp) {
        maxTimestamp = timestamp;
        onTime++;
      } else if (timestamp !== -Infinity) {
        const lateness = maxTimestamp - timestamp;
        counts[bucketOf(lateness)]++;
        late++;
        if (lateness > maxLateness) maxLateness = lateness;
      }
    }
    counts[0] += onTime;
    if (onTime > 0 && 0 > maxLateness) maxLateness = 0;
    this.#count += onTime + late;
    this.#maxTimestamp = maxTimestamp;
    this.#maxLateness = maxLateness;
  }

  /**
   * The lateness that a fraction `q` of the counted records does not exceed.
   *
   * Exact below 1024 ms; above, at most 1.6% more than the exact quantile and
   * never more than {@linkcode max}.
   *
   * @param q The fraction, from 0 to 1 (0.99 for the p99).
   * @returns The lateness in milliseconds; 0 when nothing was counted.
   * @throws {RangeError} If `q` is outside [0, 1].
   * @throws {TypeError} If `q` is not a number.
   */
  quantile(q: number): number {
    if (typeof q !== "number" || !(q >= 0 && q <= 1)) {
      const message =
        `Cannot compute LatenessHistogram quantile as 'q' must be a number from 0 to 1: current value is ${
          describeValue(q)
        }`;
      throw typeof q === "number"
        ? new RangeError(message)
        : new TypeError(message);
    }
    if (this.#count === 0) return 0;
    // The rank of the quantile among the sorted records, 1-based: the
    // smallest value that at least q of the records do not exceed. The
    // factor absorbs rounding, so 0.07 * 100 is rank 7, not 8.
    const rank = Math.max(1, Math.ceil(q * this.#count * (1 - Number.EPSILON)));
    let seen = 0;
    for (let index = 0; index < BUCKETS; index++) {
      seen += this.#counts[index];
      if (seen >= rank) return Math.min(upperOf(index), this.#maxLateness);
    }
    return this.#maxLateness;
  }

  /**
   * The fraction of counted records later than `boundMs`: those a watermark
   * `boundMs` behind the maximum would have dropped.
   *
   * Exact below 1024 ms; above, records in the bucket that straddles the
   * bound count as late, so the ratio errs upwards.
   *
   * @param boundMs The delay in milliseconds.
   * @returns A fraction from 0 to 1; 0 when nothing was counted.
   * @throws {RangeError} If `boundMs` is negative or not finite.
   */
  lateRatio(boundMs: number): number {
    const bound = requireFiniteAtLeast(boundMs, 0, {
      action: "compute LatenessHistogram late ratio",
      param: "boundMs",
    });
    if (this.#count === 0) return 0;
    let late = 0;
    for (
      let index = bucketOf(Math.floor(bound) + 1);
      index < BUCKETS;
      index++
    ) {
      late += this.#counts[index];
    }
    return late / this.#count;
  }

  /**
   * The delay to configure for this stream: the p99 lateness plus 20%, rounded up.
   *
   * @returns `ceil(quantile(0.99) * 1.2)` in milliseconds; 0 when empty.
   */
  suggestedDelayMs(): number {
    // `* 6 / 5` rather than `* 1.2`: 1.2 has no exact binary form, while
    // an integer times 6 divided by 5 rounds only where the result is not whole.
    return Math.ceil((this.quantile(0.99) * 6) / 5);
  }

  /** Forgets the counts and the largest lateness; keeps the highest timestamp. */
  reset(): void {
    this.#counts.fill(0);
    this.#count = 0;
    this.#maxLateness = 0;
  }

  /** Returns the highest timestamp, the largest lateness and the non-empty buckets. */
  snapshot(): LatenessHistogramSnapshot {
    const buckets: Array<[number, number]> = [];
    for (let index = 0; index < BUCKETS; index++) {
      if (this.#counts[index] > 0) buckets.push([index, this.#counts[index]]);
    }
    return {
      maxTimestamp: this.#maxTimestamp,
      maxLatenessMs: this.#maxLateness,
      buckets,
    };
  }

  /**
   * Replaces the state with a snapshot.
   *
   * @param state A snapshot from {@linkcode LatenessHistogram.snapshot}.
   * @throws {RangeError} If a bucket index or count is out of range.
   */
  restore(state: LatenessHistogramSnapshot): void {
    for (const [index, count] of state.buckets) {
      if (
        !Number.isSafeInteger(index) || index < 0 || index >= BUCKETS ||
        !Number.isSafeInteger(count) || count < 0
      ) {
        throw new RangeError(
          `Cannot restore LatenessHistogram as 'buckets' must hold [index, count] pairs with an index below ${BUCKETS} and a non-negative count: current value is ${
            describeValue([index, count])
          }`,
        );
      }
    }
    this.reset();
    for (const [index, count] of state.buckets) {
      this.#counts[index] += count;
      this.#count += count;
    }
    this.#maxLateness = state.maxLatenessMs;
    this.#maxTimestamp = state.maxTimestamp;
  }
}

/** The bucket of a lateness in milliseconds (fractions round down). */
function bucketOf(lateness: number): number {
  if (lateness < LINEAR) return Math.floor(lateness);
  if (lateness >= LIMIT) return BUCKETS - 1;
  const value = Math.floor(lateness);
  const exponent = 31 - Math.clz32(value);
  const sub = (value >>> (exponent - SUB_BITS)) - SUB_BUCKETS;
  return LINEAR + (exponent - FIRST_EXPONENT) * SUB_BUCKETS + sub;
}

/** The largest lateness that falls into a bucket. */
function upperOf(index: number): number {
  if (index < LINEAR) return index;
  if (index === BUCKETS - 1) return Infinity;
  const offset = index - LINEAR;
  const width = 2 ** (FIRST_EXPONENT + Math.floor(offset / SUB_BUCKETS) -
    SUB_BITS);
  return (SUB_BUCKETS + (offset % SUB_BUCKETS) + 1) * width - 1;
}
