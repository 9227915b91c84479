// A KvTableSink's rows as Deno KV holds them: the row key of a record, and
// the row encoded once as superjson text, both checked against Deno KV's
// key and value limits.

import superjson from "superjson";
import { describeValue } from "../../time/validate.ts";
import {
  keyCost,
  KV_LIMITS,
  MAX_KEY_BYTES,
  type PlainKey as Key,
} from "../../kv/mod.ts";

const encoder = new TextEncoder();

/** A row: the record and its encoded value. */
export interface Row<T> {
  readonly value: T;
  readonly bytes: Uint8Array;
}

/** The key prefix of a table's rows. */
export function tablePrefix(table: string): Key {
  return ["weir", "table", table];
}

/** Makes the rows of one table. */
export class TableRows<T> {
  readonly #table: string;
  readonly #key: (value: T) => string | number;
  // The longest string key that fits whatever its characters: a UTF-16
  // unit takes at most 3 bytes in Deno KV's key encoding (an escaped NUL
  // 2, a surrogate pair 4 for 2 units), plus 2 for the part's tag and end.
  readonly #safeKeyLength: number;

  constructor(table: string, key: (value: T) => string | number) {
    this.#table = table;
    this.#key = key;
    this.#safeKeyLength = Math.floor(
      (MAX_KEY_BYTES - keyCost(tablePrefix(table)) - 2) / 3,
    );
  }

  /**
   * The row key of a record.
   *
   * @throws {TypeError} If it is not a string or a number.
   * @throws {RangeError} If it is NaN.
   */
  keyOf(value: T): string | number {
    const key = this.#key(value);
    if (typeof key !== "string" && typeof key !== "number") {
      throw new TypeError(
        `Cannot write to KvTableSink '${this.#table}' as 'key(value)' must be a string or a number: current value is ${
          describeValue(key)
        }`,
      );
    }
    if (Number.isNaN(key)) {
      throw new RangeError(
        `Cannot write to KvTableSink '${this.#table}' as 'key(value)' must not be NaN, which has no order: current value is NaN`,
      );
    }
    return key;
  }

  /**
   * Checks the row key of a record as it arrives: of the right
   * type, and short enough for Deno KV. O(1) without allocating for a key
   * up to the safe length; the row's size is judged by {@linkcode encode}.
   *
   * @throws {TypeError} If the key is not a string or a number.
   * @throws {RangeError} If it is NaN or too long.
   */
  check(value: T): void {
    const key = this.keyOf(value);
    if (typeof key === "number" || key.length <= this.#safeKeyLength) return;
    this.#checkKeySize(key, "write to KvTableSink");
  }

  /**
   * Encodes the row of `key`, checking it fits Deno KV.
   *
   * @throws {TypeError} If `key` is not a string or a number other than NaN.
   * @throws {RangeError} If the key or the row is too large.
   */
  encode(key: unknown, value: T, action: string): Row<T> {
    if (
      (typeof key !== "string" && typeof key !== "number") ||
      Number.isNaN(key)
    ) {
      throw new TypeError(
        `Cannot ${action} '${this.#table}' as a row key must be a string or a number other than NaN: current value is ${
          describeValue(key)
        }`,
      );
    }
    if (typeof key === "string" && key.length > this.#safeKeyLength) {
      this.#checkKeySize(key, action);
    }
    const bytes = encoder.encode(superjson.stringify(value));
    if (bytes.length > KV_LIMITS.valueBytes) {
      throw new RangeError(
        `Cannot ${action} '${this.#table}' as row ${
          describeValue(key)
        } must encode to at most ${KV_LIMITS.valueBytes} bytes (Deno KV's 64 KiB value limit): current value is ${bytes.length} bytes`,
      );
    }
    return { value, bytes };
  }

  // The exact size of a long string key with the table's prefix.
  #checkKeySize(key: string, action: string): void {
    const fullKey: Key = [...tablePrefix(this.#table), key];
    const cost = keyCost(fullKey);
    if (cost <= MAX_KEY_BYTES) return;
    const shown = describeValue(key);
    throw new RangeError(
      `Cannot ${action} '${this.#table}' as the key of row ${
        shown.length > 80 ? `${shown.slice(0, 80)}…` : shown
      } must encode to at most ${MAX_KEY_BYTES} bytes with its table prefix (Deno KV's key limit): current value is ${cost} bytes`,
    );
  }
}
