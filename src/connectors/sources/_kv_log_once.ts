// An append made once per id (`options.once`): the check of its option,
// and the memo its final commit keeps under `["once", id]` as JSON, handed
// back to a repeat of the id.

import { describeValue, requirePositiveInteger } from "../../time/validate.ts";
import { requireName } from "../_kv_checks.ts";
import { MEMO_BYTES } from "./_kv_log_plan.ts";
import type { AppendOnce, PartitionOffsets } from "./kv_log_append.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Checks `options.once` of an append. */
export function checkOnce(once: AppendOnce, action: string): AppendOnce {
  if (typeof once !== "object" || once === null) {
    throw new TypeError(
      `Cannot ${action} as 'options.once' must be { id, expireInMs, memo? }: current value is ${
        describeValue(once)
      }`,
    );
  }
  requireName(once.id, action, "options.once.id");
  requirePositiveInteger(once.expireInMs, {
    action,
    param: "options.once.expireInMs",
  });
  if (once.memo !== undefined && typeof once.memo !== "function") {
    throw new TypeError(
      `Cannot ${action} as 'options.once.memo' must be a function: current value is ${
        describeValue(once.memo)
      }`,
    );
  }
  return once;
}

/**
 * The memo an append keeps with its id, given where its records went.
 *
 * @throws {RangeError} If it takes more than `MEMO_BYTES` as JSON.
 */
export function encodeMemo(
  once: AppendOnce,
  offsets: readonly PartitionOffsets[],
): Uint8Array {
  const bytes = encoder.encode(JSON.stringify(once.memo?.(offsets) ?? null));
  if (bytes.length > MEMO_BYTES) {
    throw new RangeError(
      `Cannot append to KvLog as the memo of 'options.once' must be at most ${MEMO_BYTES} bytes as JSON: current size is ${bytes.length} bytes`,
    );
  }
  return bytes;
}

/**
 * The memo kept under `["once", id]` of the KvLog `name`.
 *
 * @throws {TypeError} If the value is not a memo KvLog wrote.
 */
export function decodeMemo(value: unknown, name: string): unknown {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(
      `Cannot recall an append of KvLog '${name}' as its entry must be a memo written by KvLog: current value is ${
        describeValue(value)
      }`,
    );
  }
  return JSON.parse(decoder.decode(value));
}
