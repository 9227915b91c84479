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
  /** The number of entries (a field: a sweep reads it once per entry). */
  size = 0;

  /** The time of the first entry; only when size > 0. */
  topTime(): number {
    const heap = this.#heap;
    if (this.#head === this.#tail) return heap.topTime();
    const time = this.#runTimes[this.#head];
    return heap.size > 0 && heap.topTime() < time ? heap.topTime() : time;
  }

  /** The id of the first entry; only when size > 0. */
  topId(): number {
    const heap = this.#heap;
    const head = this.#head;
    if (head === this.#tail) return heap.topId();
    const time = this.#runTimes[head];
    const id = this.#runIds[head];
    return heap.size > 0 &&
        (heap.topTime() < time ||
          (heap.topTime() === time && heap.topId() < id))
      ? heap.topId()
      : id;
  }

  /** Drops every entry, and the arrays they filled (the rows are new). */
  clear(): void {
    this.#heap.clear();
    this.#runTimes = new Float64Array(256);
    this.#runIds = new Float64Array(256);
    this.#runRows = new Int32Array(256);
    this.#head = this.#tail = 0;
    this.size = 0;
  }

  /** Adds `row` at (time, id). */
  push(time: number, id: number, row: number): void {
    this.size++;
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
    this.size--;
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

// A binary min-heap of (time, id) pairs with their rows, each entry's three
// numbers side by side in one array: a level down reads one or two cache
// lines, not three (a heap of sessions is large, and its pops miss cache).
class PairHeap {
  #data = new Float64Array(3 * 256);
  size = 0;

  topTime(): number {
    return this.#data[0];
  }

  topId(): number {
    return this.#data[1];
  }

  clear(): void {
    this.#data = new Float64Array(3 * 256);
    this.size = 0;
  }

  push(time: number, id: number, row: number): void {
    const i = this.size++;
    if (3 * i === this.#data.length) this.#grow();
    this.#up(this.#data, 3 * i, time, id, row);
  }

  // Floyd's pop: the hole at the root goes down to a leaf along the smaller
  // children, one compare a level, and the last entry goes up from there.
  // The last entry belongs near the leaves (it is one), so this saves about
  // half the compares of sifting it down from the root.
  pop(): number {
    const data = this.#data;
    const top = data[2];
    const end = 3 * --this.size;
    let at = 0;
    for (let child = 3; child < end; child = 2 * at + 3) {
      const right = child + 3;
      if (
        right < end &&
        (data[right] < data[child] ||
          (data[right] === data[child] && data[right + 1] < data[child + 1]))
      ) child = right;
      data[at] = data[child];
      data[at + 1] = data[child + 1];
      data[at + 2] = data[child + 2];
      at = child;
    }
    this.#up(data, at, data[end], data[end + 1], data[end + 2]);
    return top;
  }

  // Puts the entry in the hole at `at`, or above it.
  #up(data: Float64Array, at: number, time: number, id: number, row: number) {
    while (at > 0) {
      const parent = 3 * (((at / 3) - 1) >> 1);
      const t = data[parent];
      if (t < time || (t === time && data[parent + 1] < id)) break;
      data[at] = t;
      data[at + 1] = data[parent + 1];
      data[at + 2] = data[parent + 2];
      at = parent;
    }
    data[at] = time;
    data[at + 1] = id;
    data[at + 2] = row;
  }

  #grow(): void {
    const data = new Float64Array(this.#data.length * 2);
    data.set(this.#data);
    this.#data = data;
  }
}
