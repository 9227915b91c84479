// Checks an atomic batch of a storage and serialises its puts, shared by
// MemoryStorage and KvStorage: what they then plan with src/kv/'s
// planCommit.

import { Encoded, encodeSuperjson } from "./_codec.ts";
import type { StorageKey } from "./storage.ts";
import { checkKey, type KeyCheck } from "./_storage_keys.ts";
import { orderedKey, type PlanOp } from "../kv/mod.ts";

/** A checked operation: a put carries its serialised value. */
export interface ResolvedOp extends PlanOp {
  /** The user's key. */
  readonly key: StorageKey;
  /** `orderedKey(key)`: an identity and a sort key. */
  readonly id: string;
  /** The encoded value of a put. */
  readonly encoded?: Encoded;
  /** Its payload. */
  readonly bytes?: Uint8Array;
}

/**
 * Serialises a value with superjson, or takes an {@linkcode Encoded} one as
 * it is; the message names `param`.
 */
function encodeValue(
  value: unknown,
  action: string,
  param: string,
): { encoded: Encoded; bytes: Uint8Array } {
  if (value instanceof Encoded) return { encoded: value, bytes: value.bytes };
  const head = `Cannot ${action} as '${param}' must be`;
  if (value === undefined) {
    throw new TypeError(
      `${head} defined: current value is undefined; use delete() to remove a key`,
    );
  }
  let encoded: Encoded | undefined;
  try {
    encoded = encodeSuperjson(value);
  } catch (error) {
    throw new TypeError(`${head} superjson-serialisable: ${error}`);
  }
  if (encoded === undefined) {
    throw new TypeError(
      `${head} superjson-serialisable: current value is a ${typeof value}`,
    );
  }
  return { encoded, bytes: encoded.bytes };
}

/**
 * Checks a batch, serialises its puts and keeps the last op per key. Errors
 * name `ops[i].key`, or just `key` and `value` for a `single` put or delete.
 */
export function resolveOps(
  ops: unknown,
  action: string,
  keys: Omit<KeyCheck, "action" | "param">,
  single = false,
): ResolvedOp[] {
  if (!Array.isArray(ops)) {
    throw new TypeError(
      `Cannot ${action} as 'ops' must be an array of operations: current value is ${ops}`,
    );
  }
  const param = (i: number, field: string) =>
    single ? field : `ops[${i}].${field}`;
  const byId = new Map<string, ResolvedOp>();
  ops.forEach((op: unknown, i) => {
    const type = (op as { type?: unknown } | null)?.type;
    if (type !== "put" && type !== "delete") {
      throw new TypeError(
        `Cannot ${action} as '${
          param(i, "type")
        }' must be "put" or "delete": current value is ${
          typeof type === "string" ? JSON.stringify(type) : type
        }`,
      );
    }
    const checked = checkKey((op as { key: unknown }).key, {
      ...keys,
      action,
      param: param(i, "key"),
    });
    const id = orderedKey(checked.key);
    byId.delete(id); // a key written twice keeps its last operation only
    byId.set(id, {
      key: [...checked.key],
      keyBytes: checked.bytes,
      id,
      ...(type === "put"
        ? encodeValue(
          (op as { value: unknown }).value,
          action,
          param(i, "value"),
        )
        : {}),
    });
  });
  return [...byId.values()];
}
