/**
 * {@linkcode printable} and {@linkcode cut}: any value as text without
 * throwing, and text kept to a bounded length. A dead letter and the
 * records written about it (strikes, failures) hold whatever a record or
 * an error was, so they must turn it into text that fits a storage value
 * whatever it holds. Used on the failure path only.
 *
 * @example
 * ```ts
 * import { cut, printable } from "./printable_text.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(printable(Object.create(null)), "(a object that cannot be printed)");
 * assert.equal(cut("abcdef", 3), "abc… (cut: 6 characters)");
 * ```
 *
 * @module
 */

/**
 * `String(value)`, or what it is when that throws too (an object with a
 * null prototype, a `toString` that throws).
 *
 * @param value Anything.
 * @returns Text for the value; never throws.
 */
export function printable(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `(a ${typeof value} that cannot be printed)`;
  }
}

/**
 * The text, or its first `max` characters followed by how long it was.
 *
 * @param text The text.
 * @param max The most characters kept.
 * @returns `text` itself when it has at most `max` characters, else
 * `"<first max characters>… (cut: <length> characters)"`.
 */
export function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (cut: ${text.length} characters)`;
}
