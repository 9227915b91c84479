// Each key's newest session row in the session engine, found per record.

// No row.
const NONE = -1;
// Keys below this go in the typed array; it never grows past it (4 MB).
const DENSE_LIMIT = 1 << 20;

/**
 * A map from keys to rows, as a `Map` holds them (SameValueZero), with the
 * small non-negative integer keys (ids, mostly) in a typed array indexed by
 * the key: a load instead of a hash lookup per record. A key goes to the
 * same place every time, so the two parts never hold the same key.
 */
export class KeyRows<K> {
  #dense = new Int32Array(256).fill(NONE);
  readonly #map = new Map<K, number>();

  /** The row of `key`, if it has one. */
  get(key: K): number | undefined {
    if (typeof key === "number" && key >>> 0 === key) {
      if (key < this.#dense.length) {
        const row = this.#dense[key];
        return row === NONE ? undefined : row;
      }
      if (key < DENSE_LIMIT) return undefined;
    }
    return this.#map.get(key);
  }

  /** Sets the row of `key`. */
  set(key: K, row: number): void {
    if (typeof key === "number" && key >>> 0 === key && key < DENSE_LIMIT) {
      if (key >= this.#dense.length) this.#grow(key);
      this.#dense[key] = row;
      return;
    }
    this.#map.set(key, row);
  }

  /** Forgets `key`. */
  delete(key: K): void {
    if (typeof key === "number" && key >>> 0 === key && key < DENSE_LIMIT) {
      if (key < this.#dense.length) this.#dense[key] = NONE;
      return;
    }
    this.#map.delete(key);
  }

  #grow(key: number): void {
    let n = this.#dense.length * 2;
    while (n <= key) n *= 2;
    const dense = new Int32Array(Math.min(n, DENSE_LIMIT)).fill(NONE);
    dense.set(this.#dense);
    this.#dense = dense;
  }
}
