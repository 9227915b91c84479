// The min-heap of a TimerQueue's buckets, by timestamp.

import type { Bucket } from "./_timer_bucket.ts";

/**
 * A binary min-heap of buckets by timestamp. The timestamps sit in an array
 * of their own, index for index: sifting compares unboxed numbers in a
 * packed array instead of loading each bucket (its timestamp field is a
 * boxed number of its own), which was most of the cost of firing.
 */
export class BucketHeap {
  #buckets: Bucket[] = [];
  #times: number[] = [];

  /** The buckets, in heap order. */
  get buckets(): readonly Bucket[] {
    return this.#buckets;
  }

  /** The bucket with the smallest timestamp, if any. */
  top(): Bucket | undefined {
    return this.#buckets[0];
  }

  /** Adds a bucket. */
  push(bucket: Bucket): void {
    const buckets = this.#buckets;
    const times = this.#times;
    const timestamp = bucket.timestamp;
    let i = buckets.length;
    buckets.push(bucket);
    times.push(timestamp);
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!(timestamp < times[parent])) break;
      buckets[i] = buckets[parent];
      times[i] = times[parent];
      i = parent;
    }
    buckets[i] = bucket;
    times[i] = timestamp;
  }

  /** Removes the top bucket. */
  pop(): void {
    const buckets = this.#buckets;
    const times = this.#times;
    const last = buckets.pop()!;
    const lastTime = times.pop()!;
    if (buckets.length === 0) return;
    this.#down(0, last, lastTime);
  }

  /** Replaces the contents with `buckets`, in any order. */
  rebuild(buckets: Bucket[]): void {
    this.#buckets = buckets;
    const times: number[] = [];
    for (let i = 0; i < buckets.length; i++) times.push(buckets[i].timestamp);
    this.#times = times;
    for (let i = (buckets.length >>> 1) - 1; i >= 0; i--) {
      this.#down(i, buckets[i], times[i]);
    }
  }

  // Sifts `bucket` (at `time`) down from `start`, whose entry it replaces.
  #down(start: number, bucket: Bucket, time: number): void {
    const buckets = this.#buckets;
    const times = this.#times;
    const n = times.length;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && times[child + 1] < times[child]) child++;
      if (!(times[child] < time)) break;
      buckets[i] = buckets[child];
      times[i] = times[child];
      i = child;
    }
    buckets[i] = bucket;
    times[i] = time;
  }
}
