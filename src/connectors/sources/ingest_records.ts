/**
 * Records that arrive from outside for a `KvLog` (the service's
 * `POST /ingest/:stream`): what is accepted, so that every job can process
 * it, and which partition each record goes to.
 *
 * A record is accepted when it is an object the log's serialiser can
 * store, its timestamp is epoch milliseconds inside the range that window
 * and watermark arithmetic has room around, and its key (if any) is one
 * `keyBy` can hash and a Deno KV key can hold. The `IngestRouter` then
 * says which partition each record goes to.
 *
 * @example Checking two records, one of them keyed by a number
 * ```ts
 * import { checkIngestRecords } from "./ingest_records.ts";
 * import assert from "node:assert/strict";
 *
 * const values = [{ at: 1_700_000_000_000, key: 7 }, { at: 1_700_000_000 }];
 * const { timestamps, warnings, errors } = checkIngestRecords(values, null, {
 *   timestampField: "at",
 *   key: { field: "key", types: ["string"], required: false, maxBytes: 1024 },
 * });
 * assert.deepEqual(errors.map((e) => [e.index, e.field]), [[0, "key"]]);
 * assert.deepEqual(warnings.map((w) => w.index), [1]);
 * assert.equal(timestamps[1], 1_700_000_000);
 * ```
 *
 * @module
 */

import { MAX_TIMESTAMP, MIN_TIMESTAMP } from "../../time/constants.ts";
import { encodedKeySize, utf8Length } from "../../kv/mod.ts";

// Larger records would each need a KV value of their own; 60 KiB keeps a
// record inside one 64 KiB batch with room for its superjson envelope.
const MAX_RECORD_BYTES = 61_440;
// Deeper values could overflow the stack of the serialisers downstream.
const MAX_DEPTH = 64;
// Epoch milliseconds below this are before 1973: most likely seconds.
const SECONDS_BELOW = 1e11;
// superjson refuses these keys anywhere in a value (prototype pollution).
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const RANGE = `${new Date(MIN_TIMESTAMP).toISOString()} to ${
  new Date(MAX_TIMESTAMP).toISOString()
}`;

/** An ingested record: a JSON object. */
export type IngestRecord = Record<string, unknown>;

/** A problem with one record, as the client that sent it sees it. */
export interface RecordIssue {
  /** The record's position among the records sent, from 0. */
  readonly index: number;
  /** For NDJSON, the record's line, from 1. */
  readonly line?: number;
  /** The field in question as a dotted path; `null` for the whole record. */
  readonly field: string | null;
  /** What is wrong and how to fix it. */
  readonly reason: string;
}

/** How records carry their key: an ingest stream's key rule. */
export interface RecordKeyRule {
  /** The record field holding the key. */
  readonly field: string;
  /** The JSON types a key may have. */
  readonly types: readonly ("string" | "number" | "boolean")[];
  /** Whether every record must carry a key. */
  readonly required: boolean;
  /** The largest key, in bytes as Deno KV encodes it in a key. */
  readonly maxBytes: number;
}

/** What a stream requires of its records. */
export interface RecordRules {
  /** The field holding the event timestamp. */
  readonly timestampField: string;
  /** The key rule. */
  readonly key: RecordKeyRule;
}

/** What {@linkcode checkIngestRecords} found. */
export interface CheckedRecords {
  /** Each record's timestamp; only meaningful when `errors` is empty. */
  readonly timestamps: number[];
  /** Timestamps that look like seconds rather than milliseconds. */
  readonly warnings: RecordIssue[];
  /** Every problem, in record order: a record may have several. */
  readonly errors: RecordIssue[];
}

/**
 * Checks every record against a stream's rules, and reads its timestamp.
 *
 * @param values The records, as parsed from the request.
 * @param lines For NDJSON, each record's line (from 1); otherwise `null`.
 * @param rules The stream's timestamp field and key rule.
 * @returns The timestamps, the warnings about timestamps in `(0, 1e11)`
 * (they look like seconds), and every problem found: the records may be
 * appended only when there is none.
 */
export function checkIngestRecords(
  values: readonly unknown[],
  lines: readonly number[] | null,
  rules: RecordRules,
): CheckedRecords {
  const errors: RecordIssue[] = [];
  const warnings: RecordIssue[] = [];
  const timestamps = new Array<number>(values.length);
  const issue = (index: number, field: string | null, reason: string) =>
    lines === null
      ? { index, field, reason }
      : { index, line: lines[index], field, reason };
  values.forEach((value, index) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      errors.push(issue(
        index,
        null,
        `must be a JSON object: current value is ${describeInput(value)}`,
      ));
      return;
    }
    const shape = checkShape(value as IngestRecord);
    if (shape !== null) {
      errors.push(issue(index, shape.field, shape.reason));
      return;
    }
    const record = value as IngestRecord;
    const field = rules.timestampField;
    const ts = checkTimestamp(record, field);
    if (typeof ts === "string") errors.push(issue(index, field, ts));
    else {
      timestamps[index] = ts + 0; // -0 becomes 0
      if (ts > 0 && ts < SECONDS_BELOW) {
        warnings.push(issue(
          index,
          field,
          `${ts} looks like seconds; multiply by 1000`,
        ));
      }
    }
    const key = checkKey(record, rules.key);
    if (key !== null) errors.push(issue(index, rules.key.field, key));
  });
  return { timestamps, warnings, errors };
}

/**
 * A value a client sent, described for a message. Objects and arrays are
 * only named: they may be too deep to stringify.
 *
 * @param value Any value.
 * @returns `"an object"`, `"an array of n items"`, or the value's text
 * (strings quoted) cut at 80 characters.
 */
export function describeInput(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (typeof value === "object" && value !== null) return "an object";
  const text = typeof value === "string"
    ? JSON.stringify(value)
    : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The timestamp, or why it is refused. */
function checkTimestamp(record: IngestRecord, field: string): number | string {
  const ts = record[field];
  const rule = `must be epoch milliseconds as a safe integer`;
  if (!Object.hasOwn(record, field)) return `is missing; it ${rule}`;
  if (typeof ts !== "number" || !Number.isSafeInteger(ts)) {
    const hint = typeof ts === "string" && /^-?\d+$/.test(ts)
      ? "; send it as a number, without quotes"
      : "";
    return `${rule}: current value is ${describeInput(ts)}${hint}`;
  }
  // Window ends, `ts - bound - 1` and timers need room on either side.
  if (ts < MIN_TIMESTAMP || ts > MAX_TIMESTAMP) {
    const date = Math.abs(ts) <= 8.64e15
      ? new Date(ts).toISOString()
      : "beyond any date";
    return `must be between ${RANGE} (epoch ms ${MIN_TIMESTAMP} to ${MAX_TIMESTAMP}): current value is ${ts} (${date})`;
  }
  return ts;
}

/** Why a record's key is refused, or `null` if it is fine or absent. */
function checkKey(record: IngestRecord, rule: RecordKeyRule): string | null {
  const allowed = rule.types.join(" or ");
  if (!Object.hasOwn(record, rule.field)) {
    return rule.required
      ? `is missing; this stream requires a key: a ${allowed} of at most ${rule.maxBytes} bytes`
      : null;
  }
  const key = record[rule.field];
  const type = key === null
    ? "null"
    : Array.isArray(key)
    ? "array"
    : typeof key;
  if (!rule.types.includes(type as RecordKeyRule["types"][number])) {
    // An object or array would fail `keyBy` ("Cannot hash key"); null
    // is no key at all: leave the field out instead.
    return `must be a ${allowed} (the stream's key types): current value is ${
      describeInput(key)
    } of type ${type}`;
  }
  const bytes = keyBytes(key as string | number | boolean);
  if (bytes > rule.maxBytes) {
    return `must be at most ${rule.maxBytes} bytes in UTF-8 as Deno KV encodes it in a key, each NUL character taking 2 (Deno KV keys take 2048 bytes; the rest is for the sinks' prefixes): current size is ${bytes} bytes`;
  }
  return null;
}

/**
 * A key's size as the sinks store it: in a Deno KV key part (a row id such
 * as `${key}@${windowStart}`), whose encoding escapes each NUL as two
 * bytes. A number or boolean is written as its JSON text.
 */
function keyBytes(key: string | number | boolean): number {
  // A string part is framed by a tag byte and a terminator: the key's own
  // bytes are the rest.
  return encodedKeySize([String(key)]) - 2;
}

/**
 * Checks what the log's serialiser needs: depth, forbidden keys, size.
 * Walks with an explicit stack, so a deep value cannot overflow it.
 */
function checkShape(
  record: IngestRecord,
): { field: string | null; reason: string } | null {
  const stack: { value: object; path: string; depth: number }[] = [
    { value: record, path: "", depth: 1 },
  ];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (depth > MAX_DEPTH) {
      return {
        field: path,
        reason: `must nest at most ${MAX_DEPTH} levels deep`,
      };
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === "" ? key : `${path}.${key}`;
      if (!Array.isArray(value) && FORBIDDEN_KEYS.has(key)) {
        return {
          field: childPath,
          reason:
            `must not be used as a key: '__proto__', 'constructor' and 'prototype' are refused by the log's serialiser; rename it`,
        };
      }
      if (typeof child === "object" && child !== null) {
        stack.push({ value: child, path: childPath, depth: depth + 1 });
      }
    }
  }
  const json = JSON.stringify(record);
  // Each UTF-16 unit is at most 3 UTF-8 bytes: most records skip encoding.
  const bytes = json.length * 3 <= MAX_RECORD_BYTES
    ? json.length
    : utf8Length(json);
  if (bytes > MAX_RECORD_BYTES) {
    return {
      field: null,
      reason:
        `must be at most ${MAX_RECORD_BYTES} bytes as JSON: current size is ${bytes} bytes`,
    };
  }
  return null;
}
