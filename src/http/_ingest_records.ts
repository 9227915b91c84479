// What ingest accepts, record by record, so that every job can process it:
// an object the log's serialiser can store, a timestamp inside the range
// window and watermark arithmetic has room around, and a key that `keyBy`
// can hash and a Deno KV key can hold. Then where each record goes.

import type { AppendRecord } from "../connectors/sources/kv_log.ts";
import { encodedKeySize, utf8Length } from "../kv/mod.ts";
import type { IngestKeyRule, IngestKeyType } from "../api/ingest_key.ts";
import { hashKey } from "../runtime/key_groups.ts";
import { MAX_TIMESTAMP, MIN_TIMESTAMP } from "../time/constants.ts";
import { describe, MAX_LISTED } from "./_ingest_body.ts";
import { HttpError } from "./errors.ts";

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

type Json = Record<string, unknown>;

/** A problem with one record of an ingest body, as the client sees it. */
export interface RecordIssue {
  /** The record's position among the body's records, from 0. */
  readonly index: number;
  /** For NDJSON, the record's line, from 1. */
  readonly line?: number;
  /** The field in question as a dotted path; `null` for the whole record. */
  readonly field: string | null;
  /** What is wrong and how to fix it. */
  readonly reason: string;
}

/** What a stream requires of its records. */
export interface RecordRules {
  /** The field holding the event timestamp. */
  readonly timestampField: string;
  /** The key rule. */
  readonly key: IngestKeyRule;
}

/**
 * Checks every record; throws one 400 `INVALID_RECORDS` listing every
 * problem (a record may have several), or returns the timestamps and the
 * warnings about timestamps that look like seconds.
 */
export function validateRecords(
  values: readonly unknown[],
  lines: readonly number[] | null,
  rules: RecordRules,
  action: string,
): { timestamps: number[]; warnings: RecordIssue[] } {
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
        `must be a JSON object: current value is ${describe(value)}`,
      ));
      return;
    }
    const shape = checkShape(value as Json);
    if (shape !== null) {
      errors.push(issue(index, shape.field, shape.reason));
      return;
    }
    const record = value as Json;
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
  if (errors.length > 0) {
    const first = errors[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    throw new HttpError(
      "INVALID_RECORDS",
      `Cannot ${action} as record ${first.index}${
        first.field === null ? "" : ` field '${first.field}'`
      } ${first.reason}${more}; nothing was appended`,
      {
        details: {
          errors: errors.slice(0, MAX_LISTED),
          errorCount: errors.length,
        },
      },
    );
  }
  return { timestamps, warnings };
}

/**
 * Groups records by partition: a record with a key goes to
 * `hashKey(key) % partitions`, the others round-robin from `cursor`.
 *
 * @returns Per partition its records (empty ones included), and where the
 * round-robin continues.
 */
export function routeRecords(
  values: readonly unknown[],
  timestamps: readonly number[],
  options: { partitions: number; keyField: string; cursor: number },
): { groups: AppendRecord<Json>[][]; cursor: number } {
  const { partitions, keyField } = options;
  const groups = Array.from(
    { length: partitions },
    (): AppendRecord<Json>[] => [],
  );
  let cursor = options.cursor;
  values.forEach((v, i) => {
    const value = v as Json;
    // Validation let through only keys hashKey takes.
    const partition = Object.hasOwn(value, keyField)
      ? hashKey(value[keyField]) % partitions
      : cursor++ % partitions;
    groups[partition].push({ value, timestamp: timestamps[i] });
  });
  return { groups, cursor: cursor % partitions };
}

/** The timestamp, or why it is refused. */
function checkTimestamp(record: Json, field: string): number | string {
  const ts = record[field];
  const rule = `must be epoch milliseconds as a safe integer`;
  if (!Object.hasOwn(record, field)) return `is missing; it ${rule}`;
  if (typeof ts !== "number" || !Number.isSafeInteger(ts)) {
    const hint = typeof ts === "string" && /^-?\d+$/.test(ts)
      ? "; send it as a number, without quotes"
      : "";
    return `${rule}: current value is ${describe(ts)}${hint}`;
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
function checkKey(record: Json, rule: IngestKeyRule): string | null {
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
  if (!rule.types.includes(type as IngestKeyType)) {
    // An object or array would fail `keyBy` ("Cannot hash key"); null
    // is no key at all: leave the field out instead.
    return `must be a ${allowed} (the stream's key types): current value is ${
      describe(key)
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
  record: Json,
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
