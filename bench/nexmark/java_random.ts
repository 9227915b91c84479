/**
 * An exact port of `java.util.Random`, the generator Beam's Nexmark seeds
 * per event.
 *
 * @module
 */

// The 48-bit state is kept as two 24-bit halves so that every step is int32
// arithmetic: no BigInt, no doubles, no boxing. The multiplier 0x5DEECE66D is
// 0x5DE * 2^24 + 0xECE66D; the low half splits once more into 12-bit limbs
// (0xECE * 2^12 + 0x66D) to get the carry out of the low product exactly.
const MULT_HI = 0x5de;
const MULT_LO = 0xece66d;
const MULT_LO_1 = 0xece;
const MULT_LO_0 = 0x66d;
const ADDEND = 0xb;
const MASK_24 = 0xffffff;
const TWO_24 = 0x1000000;
const TWO_48 = TWO_24 * TWO_24;
const TWO_27 = 0x8000000;
const TWO_MINUS_53 = 1 / 2 ** 53;

/**
 * `java.util.Random` (Java's 48-bit linear congruential generator), bit for
 * bit: the same seed gives the same `nextInt()`, `nextInt(bound)` and
 * `nextDouble()` sequence as Java.
 *
 * One instance is meant to be reused: {@linkcode JavaRandom.setSeed} has
 * `new Random(seed)` semantics (the seed is scrambled the same way) and
 * allocates nothing, so a generator can reseed it per event. Not thread safe
 * (nothing in JS is shared anyway).
 *
 * @example Matching Java
 * ```ts
 * import { JavaRandom } from "./java_random.ts";
 * import assert from "node:assert/strict";
 *
 * const random = new JavaRandom(42);
 * assert.equal(random.nextInt(), -1170105035);
 * random.setSeed(42);
 * assert.equal(random.nextInt(10), 0);
 * ```
 */
export class JavaRandom {
  // Upper and lower 24 bits of the 48-bit seed.
  #hi = 0;
  #lo = 0;

  /**
   * Creates a generator, as `new java.util.Random(seed)`.
   *
   * @param seed A safe integer (a Java `long` in the safe range).
   * @throws {RangeError} If `seed` is not a safe integer.
   */
  constructor(seed = 0) {
    this.setSeed(seed);
  }

  /**
   * Resets the state as `new java.util.Random(seed)` would:
   * `(seed ^ 0x5DEECE66D) & (2^48 - 1)`. Negative seeds are taken in two's
   * complement, as Java does.
   *
   * @param seed A safe integer.
   * @throws {RangeError} If `seed` is not a safe integer.
   */
  setSeed(seed: number): void {
    let hi: number;
    let lo: number;
    if ((seed >>> 0) === seed) {
      // The common case, an id below 2^32: integer ops only.
      hi = seed >>> 24;
      lo = seed & MASK_24;
    } else {
      if (!Number.isSafeInteger(seed)) badSeed(seed);
      // seed mod 2^48, non-negative: the low 48 bits of the two's complement.
      const t = seed - Math.floor(seed / TWO_48) * TWO_48;
      hi = Math.floor(t / TWO_24);
      lo = t - hi * TWO_24;
    }
    this.#hi = hi ^ MULT_HI;
    this.#lo = lo ^ MULT_LO;
  }

  /** One LCG step: `seed = (seed * 0x5DEECE66D + 0xB) mod 2^48`. */
  #step(): void {
    const lo = this.#lo;
    const hi = this.#hi;
    // carry = floor((lo * MULT_LO + ADDEND) / 2^24) from 12-bit limbs, each
    // partial product below 2^24.
    const l1 = lo >>> 12;
    const l0 = lo & 0xfff;
    const carry = l1 * MULT_LO_1 +
      ((l1 * MULT_LO_0 + l0 * MULT_LO_1 +
        ((l0 * MULT_LO_0 + ADDEND) >>> 12)) >>>
        12);
    // Only the low 24 bits of each half survive, so wrapping int32 products
    // (Math.imul) are exact enough.
    this.#lo = ((Math.imul(lo, MULT_LO) + ADDEND) | 0) & MASK_24;
    this.#hi =
      ((((Math.imul(hi, MULT_LO) + Math.imul(lo, MULT_HI)) | 0) + carry) | 0) &
      MASK_24;
  }

  /** Java's `next(31)`: a uniform integer in [0, 2^31). */
  #next31(): number {
    this.#step();
    return (this.#hi << 7) | (this.#lo >>> 17);
  }

  /**
   * Returns the next uniform signed 32-bit integer (Java's `nextInt()`).
   *
   * @returns An integer in [-2^31, 2^31).
   */
  nextInt(): number;
  /**
   * Returns a uniform integer in [0, bound) (Java's `nextInt(bound)`): a
   * power-of-two bound takes the top bits, any other bound rejects the
   * values of the last, partial block of `next(31)` exactly as Java does.
   *
   * @param bound A positive integer below 2^31.
   * @returns An integer in [0, bound).
   * @throws {RangeError} If `bound` is not a positive 32-bit integer.
   */
  nextInt(bound: number): number;
  nextInt(bound?: number): number {
    if (bound === undefined) {
      this.#step();
      return (this.#hi << 8) | (this.#lo >>> 16);
    }
    if (!(bound > 0 && bound <= 0x7fffffff && (bound | 0) === bound)) {
      badBound(bound);
    }
    let bits = this.#next31();
    // A power of two: (int)((bound * (long)next(31)) >> 31), the top bits.
    if ((bound & -bound) === bound) return bits >>> Math.clz32(bound);
    let value = bits % bound;
    // Java rejects when bits - value + (bound - 1) overflows an int.
    while (((bits - value + (bound - 1)) | 0) < 0) {
      bits = this.#next31();
      value = bits % bound;
    }
    return value;
  }

  /**
   * Returns a uniform double in [0, 1) with 53 random bits (Java's
   * `nextDouble()`: `((next(26) << 27) + next(27)) * 2^-53`).
   *
   * @returns A number in [0, 1).
   */
  nextDouble(): number {
    this.#step();
    const high = (this.#hi << 2) | (this.#lo >>> 22);
    this.#step();
    const low = (this.#hi << 3) | (this.#lo >>> 21);
    return (high * TWO_27 + low) * TWO_MINUS_53;
  }
}

// The throws live outside the hot methods so that those stay small enough to
// inline.
function badBound(bound: number): never {
  throw new RangeError(
    `Cannot draw from JavaRandom as 'bound' must be a positive 32-bit integer: current value is ${bound}`,
  );
}

function badSeed(seed: number): never {
  throw new RangeError(
    `Cannot seed JavaRandom as 'seed' must be a safe integer: current value is ${seed}`,
  );
}
