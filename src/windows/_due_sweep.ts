// The entries one watermark makes due in the session engine, put in
// (time, id) order once for the sweep.

// Bits in a digit of the radix sort, and the entries below which a sweep is
// sorted by insertion instead: a radix pass clears and sums 2 048 counts
// (~3 us), which insertion beats below ~100 entries in random order, and
// further for entries nearly in order, as a sweep's mostly are.
const BITS = 11;
const SMALL = 128;
// The most entries a sweep's arrays keep for the next (36 B each): a larger
// sweep (say, all of a million sessions at the end of input) frees them.
const KEEP = 65_536;

/**
 * The due entries of one sweep: (time, id) pairs with their rows, added in
 * any order, then sorted once. A sweep whose sessions' ends moved since
 * they were queued (all of them, in a run shorter than a watermark
 * interval) would otherwise push each again and pop it from a heap: a
 * radix sort of the times costs a few passes over the entries instead of
 * a heap's dozen mispredicted compares an entry.
 */
export class DueSweep {
  times = new Float64Array(SMALL);
  ids = new Float64Array(SMALL);
  rows = new Int32Array(SMALL);
  size = 0;
  // Scratch of the sort, grown when a sort needs more (not with each add:
  // a sweep grows its entries once, and sorts them once).
  #keys = new Uint32Array(SMALL);
  #keysTo = new Uint32Array(SMALL);
  #order = new Int32Array(SMALL);
  #orderTo = new Int32Array(SMALL);
  readonly #counts = new Int32Array(1 << BITS);

  /** Adds `row` at (time, id). */
  add(time: number, id: number, row: number): void {
    const at = this.size++;
    if (at === this.times.length) this.#grow();
    this.times[at] = time;
    this.ids[at] = id;
    this.rows[at] = row;
  }

  /** Drops every entry, and the arrays if they outgrew KEEP. */
  clear(): void {
    this.size = 0;
    if (this.times.length <= KEEP) return;
    this.times = new Float64Array(SMALL);
    this.ids = new Float64Array(SMALL);
    this.rows = new Int32Array(SMALL);
    this.#growScratch(SMALL);
  }

  /**
   * Puts the entries in (time, id) order, and returns it: the index of the
   * first entry, then of the second, and so on (valid until the next add).
   */
  sort(): Int32Array {
    const n = this.size;
    if (this.#order.length < n) this.#growScratch(this.times.length);
    if (n < SMALL) return this.#insertion(n);
    const times = this.times;
    let min = times[0];
    let max = min;
    for (let i = 1; i < n; i++) {
      const t = times[i];
      if (t < min) min = t;
      else if (t > max) max = t;
    }
    const span = max - min;
    const order = span < 2 ** 32
      ? this.#radix(n, min, span)
      : (span + 1) * n <= 2 ** 53
      ? this.#packed(n, min)
      : null;
    if (order !== null) return this.#tiesById(n, order);
    const ids = this.ids;
    const byTime = Array.from({ length: n }, (_, i) => i)
      .sort((a, b) => times[a] - times[b] || ids[a] - ids[b]);
    this.#order.set(byTime);
    return this.#order;
  }

  // Sorts a few entries by (time, id) in the scratch: a sweep of a frequent
  // watermark allocates nothing. Entries come mostly in order (the queue
  // gives them in time order, but for sessions whose ends moved).
  #insertion(n: number): Int32Array {
    const times = this.times;
    const ids = this.ids;
    const order = this.#order;
    for (let i = 0; i < n; i++) {
      const time = times[i];
      const id = ids[i];
      let j = i;
      for (; j > 0; j--) {
        const at = order[j - 1];
        const t = times[at];
        if (t < time || (t === time && ids[at] < id)) break;
        order[j] = at;
      }
      order[j] = i;
    }
    return order;
  }

  // Sorts the entries' times above `min` (spanning `span`), stably, 11
  // bits a pass, and returns the order; null if a time is no integer.
  #radix(n: number, min: number, span: number): Int32Array | null {
    const times = this.times;
    const counts = this.#counts;
    let keys = this.#keys;
    let keysTo = this.#keysTo;
    let order = this.#order;
    let orderTo = this.#orderTo;
    for (let i = 0; i < n; i++) {
      const key = times[i] - min;
      keys[i] = key;
      if (keys[i] !== key) return null;
      order[i] = i;
    }
    const mask = (1 << BITS) - 1;
    for (let shift = 0; shift < 32 && (span >>> shift) !== 0; shift += BITS) {
      counts.fill(0);
      for (let i = 0; i < n; i++) counts[(keys[i] >>> shift) & mask]++;
      let sum = 0;
      for (let d = 0; d <= mask; d++) {
        const c = counts[d];
        counts[d] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) {
        const key = keys[i];
        const to = counts[(key >>> shift) & mask]++;
        keysTo[to] = key;
        orderTo[to] = order[i];
      }
      [keys, keysTo] = [keysTo, keys];
      [order, orderTo] = [orderTo, order];
    }
    this.#keys = keys;
    this.#keysTo = keysTo;
    this.#order = order;
    this.#orderTo = orderTo;
    return order;
  }

  // Sorts times of a span past 32 bits (sessions of days apart fired in
  // one sweep): each time above `min` and its index in one number, sorted
  // as numbers. Null if a time is no integer.
  #packed(n: number, min: number): Int32Array | null {
    const times = this.times;
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const key = times[i] - min;
      if (!Number.isInteger(key)) return null;
      packed[i] = key * n + i;
    }
    packed.sort();
    const order = this.#order;
    for (let i = 0; i < n; i++) order[i] = packed[i] % n;
    return order;
  }

  // Entries of one time are in the order they were added: puts each run
  // of them in id order (ids break ties only between sessions of one end).
  // Most runs are in id order already: only a run that is not is sorted.
  #tiesById(n: number, order: Int32Array): Int32Array {
    const times = this.times;
    const ids = this.ids;
    let first = 0;
    let sorted = true;
    for (let i = 1; i <= n; i++) {
      if (i < n && times[order[i]] === times[order[first]]) {
        if (ids[order[i]] < ids[order[i - 1]]) sorted = false;
        continue;
      }
      if (!sorted) order.subarray(first, i).sort((a, b) => ids[a] - ids[b]);
      first = i;
      sorted = true;
    }
    return order;
  }

  #grow(): void {
    const n = this.times.length * 2;
    const grown = <A extends Float64Array | Int32Array>(from: A, to: A): A => {
      to.set(from);
      return to;
    };
    this.times = grown(this.times, new Float64Array(n));
    this.ids = grown(this.ids, new Float64Array(n));
    this.rows = grown(this.rows, new Int32Array(n));
  }

  #growScratch(n: number): void {
    this.#keys = new Uint32Array(n);
    this.#keysTo = new Uint32Array(n);
    this.#order = new Int32Array(n);
    this.#orderTo = new Int32Array(n);
  }
}
