// Each key's row (a session's, a pane's), found per record.

// No row.
const NONE = -1;
// The array never spans more than this many keys (4 MB)...
const DENSE_LIMIT = 1 << 20;
// ... nor more than this many per integer key held (plus SLACK), so that
// sparse keys stay in the Map instead of costing a large, mostly empty
// array.
const SPREAD = 16;
const SLACK = 256;
// The array of every KeyRows that has none yet (never written: no index
// is below its length).
const EMPTY = new Int32Array(0);

// The array holds keys from -SMALL to SMALL - 1 only: the integers V8
// keeps untagged (Smis). Its arithmetic, shared by every KeyRows, stays in
// integers then: one window end (above 2 ** 40) or fraction looked up in
// any KeyRows of the process turned it to floating point for all, a third
// slower on q5's first stage.
const SMALL = 2 ** 30;

// Whether `key` is an integer the array may hold (-0 is 0, as the Map's
// SameValueZero has it).
function isInt(key: unknown): key is number {
  return typeof key === "number" && (key | 0) === key && key >= -SMALL &&
    key < SMALL;
}

/**
 * A map from keys to rows, as a `Map` holds them (SameValueZero), with the
 * integer keys of a range (ids, mostly: those of a window or of live
 * sessions lie close together) in a typed array indexed by
 * the key less the range's start: a load instead of a hash lookup per
 * record. A key of the range (an integer whose distance from its start is
 * below the array's length; the range holds integers below 2 ** 30 in
 * magnitude only) is always in the array, never in the Map. The range moves
 * and grows (taking such keys from the Map) to the keys held while they
 * are dense enough; ids that grow over time move it along.
 */
export class KeyRows<K> {
  // Shared while empty: an array allocation costs microseconds, whatever
  // its length.
  #dense = EMPTY;
  // The key of #dense[0].
  #base = 0;
  #map = new Map<K, number>();
  // Integer keys in the Map: a move of the range looks for them there.
  #mapInts = 0;
  // The keys held in the array, and bounds of them (see #move).
  #denseSize = 0;
  #lo = 0;
  #hi = 0;
  // Sets since the last scan of the array (see #move).
  #sets = 0;
  // The key the Map gave a row last, and that row (NONE: none): records of
  // one key often come in a row, e.g. in q5's second stage, keyed by window
  // end, where a window has one key.
  #lastKey: unknown = undefined;
  #lastRow = NONE;
  // The keys the owner expects to hold (see the constructor).
  readonly #expected: number;

  /**
   * @param expected How many keys the owner expects to hold (e.g. a new
   * window: as many as the windows before it): once a quarter of them is
   * held, the array is sized for all of them (16 bytes each, up to 64 if
   * they spread) instead of moving and growing (a new array each time)
   * while they come. The array never costs more than 64 bytes per key it
   * holds and 1 KB, whatever is expected.
   */
  constructor(expected = 0) {
    this.#expected = expected;
  }

  /** The row of `key`, if it has one. */
  get(key: K): number | undefined {
    // An int32 outside the range (the range holds small integers only) or
    // another key goes to the Map; a fraction never subtracts here, so it
    // cannot round to an integer of the range (2 + 2 ** -51 - 2).
    if (typeof key === "number" && (key | 0) === key) {
      const i = key - this.#base;
      const dense = this.#dense;
      if (i >= 0 && i < dense.length) {
        const row = dense[i];
        return row === NONE ? undefined : row;
      }
    }
    if (key === this.#lastKey && this.#lastRow !== NONE) return this.#lastRow;
    const row = this.#map.get(key);
    if (row !== undefined) {
      this.#lastKey = key;
      this.#lastRow = row;
    }
    return row;
  }

  /** Sets the row of `key`: a non-negative int32. */
  set(key: K, row: number): void {
    if (isInt(key)) {
      let i = key - this.#base;
      if (!(i >= 0 && i < this.#dense.length) && this.#move(key)) {
        i = key - this.#base;
      }
      if (i >= 0 && i < this.#dense.length) {
        const dense = this.#dense;
        if (dense[i] === NONE) {
          if (this.#denseSize++ === 0) this.#lo = this.#hi = key;
          else if (key < this.#lo) this.#lo = key;
          else if (key > this.#hi) this.#hi = key;
        }
        dense[i] = row;
        return;
      }
      if (!this.#map.has(key)) this.#mapInts++;
    }
    this.#map.set(key, row);
    if (key === this.#lastKey) this.#lastRow = row;
  }

  /** Forgets `key`. */
  delete(key: K): void {
    if (key === this.#lastKey) this.#forgetLast();
    if (isInt(key)) {
      const i = key - this.#base;
      if (i >= 0 && i < this.#dense.length) {
        if (this.#dense[i] !== NONE) this.#denseSize--;
        this.#dense[i] = NONE;
        return;
      }
      if (this.#map.delete(key)) this.#mapInts--;
      return;
    }
    this.#map.delete(key);
  }

  /** Forgets every key, keeping the array. */
  clear(): void {
    this.#forgetLast();
    this.#dense.fill(NONE);
    this.#denseSize = 0;
    this.#map = new Map();
    this.#mapInts = 0;
  }

  #forgetLast(): void {
    this.#lastKey = undefined;
    this.#lastRow = NONE;
  }

  // Moves the range to cover `key` and the keys of the array, with room
  // to spare, if they are dense enough; takes the keys of the Map that
  // fall in the new range. Returns whether it moved. The keys' bounds are
  // kept as they were set (deletes leave them wider); they are narrowed by
  // a scan of the array, at most once per `length / 8` sets, so a key that
  // keeps failing to fit costs O(1) amortized.
  #move(key: number): boolean {
    this.#sets++;
    // It may take the last key from the Map.
    this.#forgetLast();
    const dense = this.#dense;
    const base = this.#base;
    if (this.#denseSize === 0) this.#lo = this.#hi = key;
    let lo = Math.min(this.#lo, key);
    let hi = Math.max(this.#hi, key);
    // Only the keys the array holds count, not the integer keys left in the
    // Map (they may lie anywhere): the array costs at most 64 bytes per key
    // it holds and 1 KB, whatever the keys' spread.
    const held = this.#denseSize + 1;
    const most = Math.min(DENSE_LIMIT, SPREAD * held + SLACK);
    // The owner's expectation counts once a quarter of it is held: sizing
    // for it then stays within that bound (4 * expected <= 16 * held),
    // however few keys come after a large window.
    const expected = 4 * held >= this.#expected ? this.#expected : 0;
    if (2 * (hi - lo + 1) > most && this.#sets * 8 >= dense.length) {
      this.#sets = 0;
      let first = 0;
      while (dense[first] === NONE) first++;
      let last = dense.length - 1;
      while (dense[last] === NONE) last--;
      this.#lo = base + first;
      this.#hi = base + last;
      lo = Math.min(this.#lo, key);
      hi = Math.max(this.#hi, key);
    }
    const span = hi - lo + 1;
    // Only with room for as many keys again: a range that would fill its
    // array moves again on nearly every new key (ids sliding at the largest
    // spread allowed), copying the array each time.
    if (2 * span > most) return false;
    // Twice the span, or four times the keys expected (as many below the
    // first key as expected: keys spread either way over a range as wide
    // as their count), with a quarter below and the rest above (ids grow);
    // at most `most`, and kept within the small integers.
    const length = Math.min(
      most,
      Math.max(SLACK, 2 * span, 4 * expected),
    );
    const below = Math.floor((length - span) / 4);
    const start = Math.max(-SMALL, Math.min(lo - below, SMALL - length));
    const moved = new Int32Array(length).fill(NONE);
    for (let i = 0; i < dense.length; i++) {
      if (dense[i] !== NONE) moved[base + i - start] = dense[i];
    }
    this.#dense = moved;
    this.#base = start;
    this.#lo = lo;
    this.#hi = hi;
    if (this.#mapInts > 0) {
      for (const [k, row] of this.#map) {
        if (!isInt(k)) continue;
        const i = k - start;
        if (i >= 0 && i < length) {
          moved[i] = row;
          this.#denseSize++;
          if (k < this.#lo) this.#lo = k;
          if (k > this.#hi) this.#hi = k;
          this.#mapInts--;
          this.#map.delete(k);
        }
      }
    }
    return true;
  }
}
