// Storage keys, shared by MemoryStorage and KvStorage: validation at the
// door, sized in Deno KV's own key encoding (src/kv/), so
// that both backends agree on the 2048-byte key limit.

import type { StorageKey } from "./storage.ts";
import { encodedKeySize } from "../kv/mod.ts";

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

/**
 * Checks a key (or a list prefix) and returns it with its encoded size.
 *
 * Wrong types are a TypeError; an empty key, a `NaN` part or a key over the
 * budget is a RangeError.
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
