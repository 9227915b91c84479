/**
 * The key of an ingest stream's records: which field holds it, which JSON
 * types it may have, whether it is required, and how large it may be.
 * `POST /ingest/:stream` refuses records whose key breaks the rule, so
 * every job downstream can hash it (`keyBy`) and store it in a Deno KV key
 * (a `KvTableSink` row).
 *
 * @module
 */

import { describeValue, requireNonEmptyString } from "../time/validate.ts";

/** A JSON type an ingest key may have. */
export type IngestKeyType = "string" | "number" | "boolean";

/**
 * The largest key ingest accepts by default, in bytes as Deno KV encodes
 * it in a key: its UTF-8 with each NUL character taking 2 bytes (Deno KV
 * escapes it), a number or boolean by its JSON text. Deno KV keys take at
 * most 2048 bytes; this leaves 1 KiB for what sinks put around a key: a
 * `KvTableSink` row is stored under `["weir", "table", name]` (17 bytes
 * plus the name's) with a row id such as `${key}@${windowStart}` (up to 16
 * bytes more), so a table name of up to 990 bytes fits.
 */
export const MAX_KEY_BYTES = 1024;

/** How an ingest stream's records carry their key. */
export interface IngestKeyOptions {
  /**
   * The record field holding the key. Records with a key go to partition
   * `hash(key) % partitions`, so equal keys share a partition.
   * @default {"key"}
   */
  readonly field?: string;
  /**
   * The JSON types a key may have. `null`, objects and arrays are never
   * keys: `keyBy` cannot hash them.
   * @default {["string", "number"]}
   */
  readonly types?: readonly IngestKeyType[];
  /**
   * Whether every record must carry a key. When not, a record without the
   * field goes round-robin over the partitions. Set it when the job keys
   * by this field: a keyless record is then refused at the door (400),
   * where otherwise it would be accepted and `keyBy` would set it aside
   * as the job's error policy says (a dead letter by default). It stays
   * optional by default because a stream may carry no key at all, or be
   * keyed by another field.
   * @default {false}
   */
  readonly required?: boolean;
  /**
   * The largest key in bytes as Deno KV encodes it (UTF-8, each NUL
   * character taking 2; a number or boolean by its JSON text): at most
   * {@linkcode MAX_KEY_BYTES}, which it may lower but not raise, since the
   * rest of Deno KV's 2048-byte key limit is the sinks'.
   * @default {1024}
   */
  readonly maxBytes?: number;
}

/** An ingest key rule with every default filled in. */
export interface IngestKeyRule {
  /** The record field holding the key. */
  readonly field: string;
  /** The JSON types a key may have. */
  readonly types: readonly IngestKeyType[];
  /** Whether every record must carry a key. */
  readonly required: boolean;
  /** The largest key, in bytes. */
  readonly maxBytes: number;
}

const TYPES: readonly IngestKeyType[] = ["string", "number", "boolean"];

/**
 * Checks an ingest key's options and fills in the defaults.
 *
 * @param options The options, or `undefined` for every default.
 * @param action What is being done, for error messages:
 * `"declare ingest stream 'clicks'"`.
 * @returns The rule.
 * @throws {TypeError} If `options` or a field has the wrong type.
 * @throws {RangeError} If `field` is empty, `types` is empty or names
 * another type, or `maxBytes` is not an integer from 1 to 1024.
 *
 * @example Defaults, and a required string key
 * ```ts
 * import { resolveIngestKey } from "./ingest_key.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(resolveIngestKey(undefined, "declare ingest stream 'x'"), {
 *   field: "key", types: ["string", "number"], required: false, maxBytes: 1024,
 * });
 * const rule = resolveIngestKey({ field: "user", types: ["string"], required: true }, "declare ingest stream 'x'");
 * assert.equal(rule.field, "user");
 * ```
 */
export function resolveIngestKey(
  options: IngestKeyOptions | undefined,
  action: string,
): IngestKeyRule {
  if (options === undefined) {
    return {
      field: "key",
      types: ["string", "number"],
      required: false,
      maxBytes: MAX_KEY_BYTES,
    };
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `Cannot ${action} as 'key' must be { field?, types?, required?, maxBytes? }: current value is ${
        describeValue(options)
      }`,
    );
  }
  const field = requireNonEmptyString(options.field ?? "key", {
    action,
    param: "key.field",
  });
  const types = options.types ?? ["string", "number"];
  if (
    !Array.isArray(types) || types.length === 0 ||
    types.some((t) => !TYPES.includes(t))
  ) {
    throw new RangeError(
      `Cannot ${action} as 'key.types' must be a non-empty list of "string", "number" and "boolean": current value is ${
        Array.isArray(types) ? JSON.stringify(types) : describeValue(types)
      }`,
    );
  }
  const required = options.required ?? false;
  if (typeof required !== "boolean") {
    throw new TypeError(
      `Cannot ${action} as 'key.required' must be a boolean: current value is ${
        describeValue(required)
      }`,
    );
  }
  const maxBytes = options.maxBytes ?? MAX_KEY_BYTES;
  if (
    !Number.isSafeInteger(maxBytes) || maxBytes < 1 ||
    maxBytes > MAX_KEY_BYTES
  ) {
    throw new RangeError(
      `Cannot ${action} as 'key.maxBytes' must be an integer from 1 to ${MAX_KEY_BYTES} (the rest of Deno KV's 2048-byte key limit is the sinks'): current value is ${
        describeValue(maxBytes)
      }`,
    );
  }
  return { field, types: [...new Set(types)], required, maxBytes };
}
