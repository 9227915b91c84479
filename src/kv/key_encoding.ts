/**
 * Deno KV's key encoding: how many bytes a key takes, which its limits
 * count, and the order in which Deno KV sorts keys.
 *
 * Deno KV encodes a key like a FoundationDB tuple: a string part is 0x02,
 * its UTF-8 bytes with each 0x00 escaped as 0x00 0xFF, then 0x00; a number
 * part is 0x21 and the 8 bytes of the float64, big-endian, with the sign
 * bit flipped (all bits when negative) so that the bytes sort like the
 * numbers.
 *
 * @module
 */

import { utf8Length } from "./utf8_length.ts";

/** One part of a {@linkcode PlainKey}. */
export type PlainKeyPart = string | number;

/**
 * A Deno KV key of strings and numbers only: what weir's storages and
 * connectors write (never `Uint8Array`, `bigint` or `boolean` parts).
 */
export type PlainKey = readonly PlainKeyPart[];

const STRING_TAG = 0x02;
const NUMBER_TAG = 0x21;
const encoder = new TextEncoder();

/** The size of one part in Deno KV's key encoding. */
function partSize(part: PlainKeyPart): number {
  if (typeof part === "number") return 9;
  let zeros = 0;
  for (let i = part.indexOf("\0"); i !== -1; i = part.indexOf("\0", i + 1)) {
    zeros++;
  }
  return 2 + utf8Length(part) + zeros;
}

/**
 * The size of a key in Deno KV's encoding, in bytes: what counts against
 * {@linkcode MAX_KEY_BYTES} and a commit's key totals.
 *
 * @param key A key of strings and numbers.
 * @returns Its encoded size.
 * @example A string and a number
 * ```ts
 * import { encodedKeySize } from "./key_encoding.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(encodedKeySize(["ab", 1]), (2 + 2) + 9);
 * ```
 */
export function encodedKeySize(key: PlainKey): number {
  let size = 0;
  for (const part of key) size += partSize(part);
  return size;
}

/**
 * The encoded size of any Deno KV key, at least: exact for strings,
 * numbers and byte arrays, a lower bound for other parts. For counting the
 * keys of checks that callers hand in.
 *
 * @param key Any Deno KV key.
 * @returns Its encoded size, or a lower bound.
 */
export function kvKeySize(key: Deno.KvKey): number {
  let size = 0;
  for (const part of key) {
    if (typeof part === "string" || typeof part === "number") {
      size += partSize(part);
    } else if (part instanceof Uint8Array) size += 2 + part.length;
    else if (typeof part === "bigint") size += 10;
    else size += 1;
  }
  return size;
}

/**
 * Encodes a key as Deno KV does, as a string of byte values (one char per
 * byte): comparing two such strings with `<` orders them exactly as Deno
 * KV orders the keys. The keys under a prefix `p` (longer, starting with
 * its parts) are those from `p + "\x00"` up to, not including,
 * `p + "\xff"`: Deno KV's own prefix range.
 *
 * @param key A key of strings and numbers.
 * @returns Its encoding, one char per byte.
 * @example Numbers sort numerically, and after strings
 * ```ts
 * import { orderedKey } from "./key_encoding.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(orderedKey([-1]) < orderedKey([2]));
 * assert.ok(orderedKey(["a"]) < orderedKey([10]));
 * ```
 */
export function orderedKey(key: PlainKey): string {
  let out = "";
  for (const part of key) {
    if (typeof part === "number") {
      const bytes = new Uint8Array(8);
      new DataView(bytes.buffer).setFloat64(0, part);
      if (bytes[0] & 0x80) { for (let i = 0; i < 8; i++) bytes[i] ^= 0xff; }
      else bytes[0] ^= 0x80;
      out += String.fromCharCode(NUMBER_TAG, ...bytes);
    } else {
      out += String.fromCharCode(STRING_TAG);
      for (const byte of encoder.encode(part)) {
        out += byte === 0 ? "\x00\xff" : String.fromCharCode(byte);
      }
      out += "\x00";
    }
  }
  return out;
}
