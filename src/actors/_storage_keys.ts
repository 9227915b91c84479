// Storage keys, shared by MemoryStorage and KvStorage: validation at the
// door (STYLE rule 22), and Deno KV's own key encoding, so that both
// backends agree on key order and on the 2048-byte key limit.
//
// Deno KV encodes a key like a FoundationDB tuple: a string part is 0x02,
// its UTF-8 bytes with each 0x00 escaped as 0x00 0xFF, then 0x00; a number
// part is 0x21 and the 8 bytes of the float64, big-endian, with the sign bit
// flipped (all bits when negative) so that the bytes sort like the numbers.

import type { StorageKey, StorageKeyPart } from "./storage.ts";

/** Deno KV's limit on one encoded key, in bytes. */
export const MAX_KEY_BYTES = 2048;

const STRING_TAG = 0x02;
const NUMBER_TAG = 0x21;
const encoder = new TextEncoder();

/** What a key check reports in its message. */
export interface KeyCheck {
  /** The action in the message, e.g. "put to KvStorage". */
  readonly action: string;
  /** The parameter's name, e.g. "key" or "prefix". */
  readonly param: string;
  /** The most bytes the encoded key may take. */
  readonly budget: number;
  /** Why the budget is what it is, for the message. */
  readonly budgetReason: string;
  /** Whether `[]` is allowed (a list prefix). */
  readonly allowEmpty?: boolean;
}

/** Renders a key for a message: parts as written, long strings shortened. */
export function describeKey(key: readonly unknown[]): string {
  const parts = key.slice(0, 8).map((part) => {
    if (typeof part !== "string") {
      return typeof part === "bigint" ? `${part}n` : String(part);
    }
    return JSON.stringify(part.length > 40 ? `${part.slice(0, 40)}…` : part);
  });
  if (key.length > 8) parts.push(`… ${key.length - 8} more`);
  return `[${parts.join(", ")}]`;
}

/** The size of one part in Deno KV's key encoding. */
function partSize(part: StorageKeyPart): number {
  if (typeof part === "number") return 9;
  let zeros = 0;
  for (let i = part.indexOf("\0"); i !== -1; i = part.indexOf("\0", i + 1)) {
    zeros++;
  }
  return 2 + encoder.encode(part).length + zeros;
}

/** The size of a checked key in Deno KV's key encoding, in bytes. */
export function encodedKeySize(key: StorageKey): number {
  let size = 0;
  for (const part of key) size += partSize(part);
  return size;
}

/**
 * Checks a key (or a list prefix) and returns it with its encoded size.
 *
 * Wrong types are a TypeError; an empty key, a `NaN` part or a key over the
 * budget is a RangeError (STYLE rule 24).
 */
export function checkKey(
  key: unknown,
  check: KeyCheck,
): { key: StorageKey; bytes: number } {
  const head = `Cannot ${check.action} as '${check.param}' must be`;
  if (!Array.isArray(key)) {
    throw new TypeError(
      `${head} an array of strings and numbers: current value is ${
        typeof key === "string" ? JSON.stringify(key) : String(key)
      }`,
    );
  }
  if (key.length === 0 && !check.allowEmpty) {
    throw new RangeError(
      `${head} a non-empty array of strings and numbers: current value is []`,
    );
  }
  for (const part of key) {
    if (typeof part !== "string" && typeof part !== "number") {
      throw new TypeError(
        `${head} an array of strings and numbers: current value is ${
          describeKey(key)
        }`,
      );
    }
    if (Number.isNaN(part)) {
      throw new RangeError(
        `${head} free of NaN parts, which have no order: current value is ${
          describeKey(key)
        }`,
      );
    }
  }
  const bytes = encodedKeySize(key);
  if (bytes > check.budget) {
    throw new RangeError(
      `${head} at most ${check.budget} bytes when encoded (${check.budgetReason}): current value is ${bytes} bytes, ${
        describeKey(key)
      }`,
    );
  }
  return { key, bytes };
}

/**
 * Encodes a checked key as Deno KV does, as a string of byte values (one
 * char per byte): comparing two such strings with `<` orders them exactly as
 * Deno KV orders the keys. The keys under a prefix `p` (longer, starting
 * with its parts) are those from `p + "\x00"` up to, not including,
 * `p + "\xff"`: Deno KV's own prefix range.
 */
export function orderedKey(key: StorageKey): string {
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
