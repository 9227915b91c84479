// The due queue of the session engine: the (time, id) order the general
// engine fires its timers in, over rows.

/**
 * A min-queue of (time, id) pairs, each with its row, in typed arrays: the
 * due timers of the session engine, one entry per row at the time of its
 * earliest timer when pushed. A row whose end moved since is pushed again
 * at its true time when its entry comes up (ends only move later).
 *
 * Entries pushed in order (new sessions of ordered input) join a run, a
 * queue that costs O(1) per entry; the others go to a binary heap. The
 * first entry is the first of the run's and the heap's.
 */
export class DueQueue {
  readonly #heap = new PairHeap();
  #runTimes = new Float64Array(256);
  #runIds = new Float64Array(256);
  #runRows = new Int32Array(256);
  #head = 0;
  #tail = 0;

  /** The number of entries. */
  get size(): number {
    return this.#tail - this.#head + this.#heap.size;
  }

  /** The time of the first entry; only when size > 0. */
  topTime(): number {
    const heap = this.#heap;
    if (this.#head === this.#tail) return heap.topTime();
    const time = this.#runTimes[this.#head];
    return heap.size > 0 && heap.topTime() < time ? heap.topTime() : time;
  }

  /** Drops every entry. */
  clear(): void {
    this.#heap.clear();
    this.#head = this.#tail = 0;
  }

  /** Adds `row` at (time, id). */
  push(time: number, id: number, row: number): void {
    const tail = this.#tail;
    if (tail > this.#head) {
      const last = this.#runTimes[tail - 1];
      if (time < last || (time === last && id < this.#runIds[tail - 1])) {
        this.#heap.push(time, id, row);
        return;
      }
    }
    if (tail === this.#runTimes.length) this.#makeRoom();
    const at = this.#tail++;
    this.#runTimes[at] = time;
    this.#runIds[at] = id;
    this.#runRows[at] = row;
  }

  /** Removes the first entry and returns its row; only when size > 0. */
  pop(): number {
    const heap = this.#heap;
    const head = this.#head;
    if (head < this.#tail) {
      const time = this.#runTimes[head];
      if (
        heap.size === 0 || time < heap.topTime() ||
        (time === heap.topTime() && this.#runIds[head] < heap.topId())
      ) {
        const row = this.#runRows[head];
        if (++this.#head === this.#tail) this.#head = this.#tail = 0;
        return row;
      }
    }
    return heap.pop();
  }

  // The run is at the end of its arrays: moves it to their start, or
  // doubles them when it fills more than half.
  #makeRoom(): void {
    const head = this.#head;
    const length = this.#tail - head;
    let times = this.#runTimes;
    let ids = this.#runIds;
    let rows = this.#runRows;
    if (length * 2 > times.length) {
      times = new Float64Array(times.length * 2);
      ids = new Float64Array(times.length);
      rows = new Int32Array(times.length);
    }
    times.set(this.#runTimes.subarray(head, this.#tail));
    ids.set(this.#runIds.subarray(head, this.#tail));
    rows.set(this.#runRows.subarray(head, this.#tail));
    this.#runTimes = times;
    this.#runIds = ids;
    this.#runRows = rows;
    this.#head = 0;
    this.#tail = length;
  }
}

// A binary min-heap of (time, id) pairs with their rows, in typed arrays.
class PairHeap {
  #times = new Float64Array(256);
  #ids = new Float64Array(256);
  #rows = new Int32Array(256);
  size = 0;

  topTime(): number {
    return this.#times[0];
  }

  topId(): number {
    return this.#ids[0];
  }

  clear(): void {
    this.size = 0;
  }

  push(time: number, id: number, row: number): void {
    let i = this.size++;
    if (i === this.#times.length) this.#grow();
    const times = this.#times;
    const ids = this.#ids;
    const rows = this.#rows;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const t = times[parent];
      if (t < time || (t === time && ids[parent] < id)) break;
      times[i] = t;
      ids[i] = ids[parent];
      rows[i] = rows[parent];
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
    rows[i] = row;
  }

  pop(): number {
    const times = this.#times;
    const ids = this.#ids;
    const rows = this.#rows;
    const top = rows[0];
    const n = --this.size;
    const time = times[n];
    const id = ids[n];
    const row = rows[n];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (
        right < n &&
        (times[right] < times[child] ||
          (times[right] === times[child] && ids[right] < ids[child]))
      ) child = right;
      const t = times[child];
      if (time < t || (time === t && id < ids[child])) break;
      times[i] = t;
      ids[i] = ids[child];
      rows[i] = rows[child];
      i = child;
    }
    if (n > 0) {
      times[i] = time;
      ids[i] = id;
      rows[i] = row;
    }
    return top;
  }

  #grow(): void {
    const times = new Float64Array(this.#times.length * 2);
    times.set(this.#times);
    this.#times = times;
    const ids = new Float64Array(times.length);
    ids.set(this.#ids);
    this.#ids = ids;
    const rows = new Int32Array(times.length);
    rows.set(this.#rows);
    this.#rows = rows;
  }
}
