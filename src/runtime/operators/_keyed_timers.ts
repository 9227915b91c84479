// The timers of one domain (event time or processing time) of the keyed
// process operator: pending (key, timestamp) pairs, each stored once
// (Flink's `InternalTimerService` deduplicates the same way).
//
// Timers that share a timestamp share a bucket, a Set of keys: the Set
// deduplicates, keeps registration order (so timers of one timestamp fire
// in the order they were registered, and a restore that registers them in
// snapshot order fires them in the same order again), and lets the firing
// loop see keys that callbacks add to the bucket being fired. A binary
// min-heap orders the distinct timestamps.
//
// Deleting a bucket's last key leaves it "dead" in the heap and the map
// until it reaches the top or dead buckets outnumber live ones (then the
// heap is rebuilt), as the window operator's TimerService does; registering
// at its timestamp meanwhile revives it.

interface Bucket<K> {
  readonly timestamp: number;
  readonly keys: Set<K>;
}

/** Pending (key, timestamp) timers, fired in ascending timestamp order. */
export class KeyedTimers<K> {
  #heap: Bucket<K>[] = [];
  // The heap's timestamps, index for index: sifting compares numbers in a
  // packed array instead of loading each bucket.
  #times: number[] = [];
  readonly #buckets = new Map<number, Bucket<K>>();
  #size = 0;
  #dead = 0;

  /** The number of pending timers. */
  get size(): number {
    return this.#size;
  }

  /** Adds a timer; a no-op if the pair is pending. Returns whether it added. */
  add(key: K, timestamp: number): boolean {
    const bucket = this.#buckets.get(timestamp);
    if (bucket === undefined) {
      this.#push({ timestamp, keys: new Set<K>().add(key) });
      this.#size++;
      return true;
    }
    const keys = bucket.keys;
    if (keys.has(key)) return false;
    if (keys.size === 0) this.#dead--;
    keys.add(key);
    this.#size++;
    return true;
  }

  /** Deletes a timer; a no-op if the pair is not pending. Returns whether it deleted. */
  delete(key: K, timestamp: number): boolean {
    const bucket = this.#buckets.get(timestamp);
    if (bucket === undefined || !bucket.keys.delete(key)) return false;
    this.#size--;
    if (bucket.keys.size > 0) return true;
    // Rebuilding once dead buckets outnumber live ones keeps the heap
    // within twice the live timestamps.
    if (++this.#dead > this.#heap.length - this.#dead) this.#rebuild();
    return true;
  }

  /** The smallest pending timestamp, or `Infinity` if none. */
  next(): number {
    return this.#top()?.timestamp ?? Infinity;
  }

  /**
   * Fires every timer at or below `limit`: ascending timestamp, then
   * registration order. Each timer is removed before its callback runs,
   * and the queue is re-read after every callback, so a timer a callback
   * adds at or below `limit` fires in this call (before the rest of the
   * current timestamp if it is earlier) and a due timer it deletes does not.
   */
  advance(limit: number, onTimer: (key: K, timestamp: number) => void): void {
    for (let top = this.#top(); top !== undefined; top = this.#top()) {
      const timestamp = top.timestamp;
      if (timestamp > limit) return;
      const keys = top.keys;
      // The Set's iterator visits keys added during the loop and skips
      // keys deleted before it reaches them.
      for (const key of keys) {
        keys.delete(key);
        this.#size--;
        if (keys.size === 0) this.#dead++;
        onTimer(key, timestamp);
        // A callback pushed an earlier timestamp (or a rebuild dropped this
        // bucket): re-read the top.
        if (this.#heap[0] !== top) break;
      }
    }
  }

  /** The pending timers in firing order, as `[key, timestamp]` pairs. */
  toPairs(): Array<[K, number]> {
    const live = this.#heap.filter((bucket) => bucket.keys.size > 0);
    // The heap holds each timestamp once, so no two compare equal.
    live.sort((a, b) => a.timestamp < b.timestamp ? -1 : 1);
    const pairs: Array<[K, number]> = [];
    for (const bucket of live) {
      for (const key of bucket.keys) pairs.push([key, bucket.timestamp]);
    }
    return pairs;
  }

  /** Drops every timer. */
  clear(): void {
    this.#heap = [];
    this.#times = [];
    this.#buckets.clear();
    this.#size = 0;
    this.#dead = 0;
  }

  /** The top bucket after dropping dead ones from the top. */
  #top(): Bucket<K> | undefined {
    const heap = this.#heap;
    while (heap.length > 0 && heap[0].keys.size === 0) {
      this.#buckets.delete(heap[0].timestamp);
      this.#dead--;
      this.#pop();
    }
    return heap[0];
  }

  #rebuild(): void {
    const live: Bucket<K>[] = [];
    for (const bucket of this.#heap) {
      if (bucket.keys.size > 0) live.push(bucket);
      else this.#buckets.delete(bucket.timestamp);
    }
    this.#heap = live;
    this.#times = live.map((bucket) => bucket.timestamp);
    this.#dead = 0;
    for (let i = (live.length >>> 1) - 1; i >= 0; i--) this.#down(i);
  }

  #push(bucket: Bucket<K>): void {
    this.#buckets.set(bucket.timestamp, bucket);
    const heap = this.#heap;
    const times = this.#times;
    const timestamp = bucket.timestamp;
    let i = heap.length;
    heap.push(bucket);
    times.push(timestamp);
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!(timestamp < times[parent])) break;
      heap[i] = heap[parent];
      times[i] = times[parent];
      i = parent;
    }
    heap[i] = bucket;
    times[i] = timestamp;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    this.#times.pop();
    if (heap.length === 0) return;
    heap[0] = last;
    this.#times[0] = last.timestamp;
    this.#down(0);
  }

  #down(start: number): void {
    const heap = this.#heap;
    const times = this.#times;
    const n = heap.length;
    const bucket = heap[start];
    const timestamp = times[start];
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && times[child + 1] < times[child]) child++;
      if (!(times[child] < timestamp)) break;
      heap[i] = heap[child];
      times[i] = times[child];
      i = child;
    }
    heap[i] = bucket;
    times[i] = timestamp;
  }
}
