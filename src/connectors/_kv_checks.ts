// Argument checks shared by the Deno KV connectors.

import { describeValue, requireNonEmptyString } from "../time/validate.ts";
import { MAX_KEY_BYTES, utf8Length } from "../kv/mod.ts";

// A log or table name takes at most half of Deno KV's 2048-byte key limit.
const MAX_NAME_BYTES = MAX_KEY_BYTES / 2;

/** Checks a Deno.Kv argument. */
export function requireKv(kv: Deno.Kv, action: string): Deno.Kv {
  if (typeof (kv as { atomic?: unknown } | null)?.atomic !== "function") {
    throw new TypeError(
      `Cannot ${action} as 'kv' must be a Deno.Kv: current value is ${
        describeValue(kv)
      }`,
    );
  }
  return kv;
}

/** Checks a table or log name used in keys. */
export function requireName(
  name: string,
  action: string,
  param: string,
): string {
  requireNonEmptyString(name, { action, param });
  if (utf8Length(name) > MAX_NAME_BYTES) {
    throw new RangeError(
      `Cannot ${action} as '${param}' must be at most ${MAX_NAME_BYTES} bytes in UTF-8 (half of Deno KV's key limit): current value is ${
        utf8Length(name)
      } bytes`,
    );
  }
  return name;
}

/** A checkpoint id: a non-negative safe integer, or `Infinity` for the final transaction. */
export function requireCheckpointId(
  id: unknown,
  action: string,
  param = "checkpointId",
): number {
  if (
    typeof id !== "number" ||
    !(id === Infinity || (Number.isSafeInteger(id) && id >= 0))
  ) {
    const rule = "a non-negative safe integer or Infinity";
    const message =
      `Cannot ${action} as '${param}' must be ${rule}: current value is ${
        describeValue(id)
      }`;
    throw typeof id === "number"
      ? new RangeError(message)
      : new TypeError(message);
  }
  return id;
}
