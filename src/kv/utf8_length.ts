/**
 * {@linkcode utf8Length}: the size of a string in UTF-8, which is what Deno
 * KV counts against its limits, without encoding the string.
 *
 * @module
 */

/**
 * The UTF-8 length of `text` in bytes, as `TextEncoder` would encode it (a
 * lone surrogate counts 3 bytes, as its replacement character does).
 *
 * Cost: one pass over the string, no allocation.
 *
 * @param text Any string.
 * @returns Its length in bytes.
 * @example Counting multi-byte characters
 * ```ts
 * import { utf8Length } from "./utf8_length.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(utf8Length("aé€😀"), 1 + 2 + 3 + 4);
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
