// A TimerQueue's buckets in firing order, found by timestamp.

import { BucketHeap } from "./_bucket_heap.ts";
import type { Bucket } from "./_timer_bucket.ts";

// Consumed entries the run keeps before dropping them, at the least.
const RUN_SLACK = 1024;

/**
 * The buckets of a TimerQueue, each timestamp at most once: taken in
 * ascending timestamp order, and found by timestamp. Timers mostly come in
 * ascending time (a window's end, a session's new end), so a bucket later
 * than every other goes to the end of a sorted run, where taking it costs
 * O(1) and finding it a binary search over packed numbers; only the others
 * go to a heap with a Map to find them. Moving timers (a session whose end
 * moves on every record) then no longer insert into and delete from a
 * large hash table once per move.
 */
export class BucketQueue {
  // The run: buckets by ascending timestamp from `#head` on; entries before
  // it were taken.
  #run: (Bucket | undefined)[] = [];
  #runTimes: number[] = [];
  #head = 0;
  readonly #heap = new BucketHeap();
  readonly #inHeap = new Map<number, Bucket>();

  /** The number of buckets. */
  get size(): number {
    return this.#run.length - this.#head + this.#inHeap.size;
  }

  /** The bucket of `timestamp`, if there is one. */
  find(timestamp: number): Bucket | undefined {
    const times = this.#runTimes;
    const last = times.length - 1;
    // Past the run's end: only the heap can hold it (nearly always empty).
    if (last < this.#head || timestamp > times[last]) {
      return this.#inHeap.size === 0 ? undefined : this.#inHeap.get(timestamp);
    }
    let lo = this.#head;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid] < timestamp) lo = mid + 1;
      else hi = mid;
    }
    if (times[lo] === timestamp) return this.#run[lo];
    return this.#inHeap.size === 0 ? undefined : this.#inHeap.get(timestamp);
  }

  /** Adds a bucket for a timestamp that has none. */
  push(bucket: Bucket): void {
    const times = this.#runTimes;
    const timestamp = bucket.timestamp;
    if (times.length === this.#head || timestamp > times[times.length - 1]) {
      this.#run.push(bucket);
      times.push(timestamp);
    } else {
      this.#inHeap.set(timestamp, bucket);
      this.#heap.push(bucket);
    }
  }

  /** The bucket with the smallest timestamp, if any. */
  top(): Bucket | undefined {
    const fromRun = this.#run[this.#head];
    const fromHeap = this.#heap.top();
    if (fromHeap === undefined) return fromRun;
    if (fromRun === undefined) return fromHeap;
    return fromRun.timestamp < fromHeap.timestamp ? fromRun : fromHeap;
  }

  /** Removes the bucket {@linkcode top} returned. */
  pop(): void {
    const head = this.#head;
    const fromRun = this.#run[head];
    const fromHeap = this.#heap.top();
    if (
      fromHeap === undefined ||
      (fromRun !== undefined && fromRun.timestamp < fromHeap.timestamp)
    ) {
      this.#run[head] = undefined;
      this.#head = head + 1;
      if (head + 1 > RUN_SLACK && 2 * (head + 1) > this.#run.length) {
        this.#dropTaken();
      }
      return;
    }
    this.#inHeap.delete(fromHeap.timestamp);
    this.#heap.pop();
  }

  /** Every bucket, in no particular order (a fresh array). */
  all(): Bucket[] {
    const all = this.#run.slice(this.#head) as Bucket[];
    const heaped = this.#heap.buckets;
    for (let i = 0; i < heaped.length; i++) all.push(heaped[i]);
    return all;
  }

  /** Drops the buckets without live timers. */
  dropDead(): void {
    const run = this.#run;
    const times = this.#runTimes;
    let kept = 0;
    for (let i = this.#head; i < run.length; i++) {
      const bucket = run[i]!;
      if (bucket.live === 0) continue;
      run[kept] = bucket;
      times[kept++] = bucket.timestamp;
    }
    run.length = kept;
    times.length = kept;
    this.#head = 0;
    const heaped = this.#heap.buckets;
    const live: Bucket[] = [];
    for (let i = 0; i < heaped.length; i++) {
      if (heaped[i].live > 0) live.push(heaped[i]);
      else this.#inHeap.delete(heaped[i].timestamp);
    }
    this.#heap.rebuild(live);
  }

  #dropTaken(): void {
    const head = this.#head;
    this.#run.copyWithin(0, head);
    this.#run.length -= head;
    this.#runTimes.copyWithin(0, head);
    this.#runTimes.length -= head;
    this.#head = 0;
  }
}
