/**
 * `POST /ingest/:stream`: records in over HTTP, durably appended to the
 * stream's {@linkcode KvLog} before the service answers.
 *
 * @module
 */

import { Hono } from "hono";
import type { AppendRecord, KvLog } from "../connectors/sources/kv_log.ts";
import { utf8Length } from "../connectors/_kv_batches.ts";
import { hashKey } from "../runtime/key_groups.ts";
import { requireToken } from "./auth.ts";
import { HttpError } from "./errors.ts";
import type { IngestStream, ServiceOptions } from "./service.ts";

const DEFAULT_MAX_BODY_BYTES = 1_048_576;
// Larger records would each need a KV value of their own; 60 KiB keeps a
// record inside one 64 KiB batch with room for its superjson envelope.
const MAX_RECORD_BYTES = 61_440;
// Deeper values could overflow the stack of the serialisers downstream.
const MAX_DEPTH = 64;
// An error list is capped so a 1 MiB body of tiny bad records cannot make a
// response many times its size; `errorCount` still counts them all.
const MAX_LISTED = 1_000;
// Epoch milliseconds below this are before 1973: most likely seconds.
const SECONDS_BELOW = 1e11;
// superjson refuses these keys anywhere in a value (prototype pollution).
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const FORMATS: Readonly<Record<string, Format>> = {
  "application/json": "json",
  "application/x-ndjson": "ndjson",
};

type Format = "json" | "ndjson";
type Json = Record<string, unknown>;

/** A problem with one record of an ingest body, as the client sees it. */
interface RecordIssue {
  /** The record's position among the body's records, from 0. */
  readonly index: number;
  /** For NDJSON, the record's line, from 1. */
  readonly line?: number;
  /** The field in question as a dotted path; `null` for the whole record. */
  readonly field: string | null;
  /** What is wrong and how to fix it. */
  readonly reason: string;
}

/**
 * The ingest sub-app, mounted at `/ingest`: `POST /ingest/:stream` appends
 * the body's records to the stream's log and answers 202 once they are
 * durable.
 *
 * **Body.** `Content-Type: application/json` with a JSON array of objects,
 * or `application/x-ndjson` with one object per line (blank lines and a
 * final newline are ignored; `\r\n` works too). Any other type, or a
 * charset other than UTF-8, is refused with 415. A body over
 * `maxBodyBytes` is refused with 413, by its `Content-Length` before
 * reading and by the bytes actually read, which stop at the limit.
 * Unparsable JSON (or non-UTF-8 bytes) gets 400 `MALFORMED_BODY`, naming
 * the position, or for NDJSON every bad line.
 *
 * **Records.** Each record must be a JSON object of at most 60 KiB as
 * JSON, nested at most 64 levels, without the keys `__proto__`,
 * `constructor` or `prototype` at any depth (the log's serialiser refuses
 * them), whose `timestampField` holds epoch milliseconds as a safe integer
 * (negative ones are allowed; strings, `1.5` and `1e400` are not). If any
 * record fails, nothing is appended and the answer is 400
 * `INVALID_RECORDS` with `details.errors`, one `{ index, field, reason }`
 * (plus `line` for NDJSON) per problem, the first 1,000 listed, and
 * `details.errorCount`.
 *
 * **Partitions.** A record with a `key` field goes to partition
 * `hashKey(key) % partitions` (an object or array key by its JSON, so equal
 * keys with equal property order share a partition). The others go round-robin from
 * partition 0, continuing across requests to the same stream. Each
 * partition gets one all-or-nothing `append` per request; the answer waits
 * for all of them. If one fails after another succeeded, the request fails
 * and a retry appends the succeeded part again (at-least-once).
 *
 * **Answer.** 202 with `{ accepted, offsets, warnings, warningCount }`:
 * `offsets` lists `{ partition, firstOffset, lastOffset }` for each
 * partition written; `warnings` flags timestamps in `(0, 1e11)`, which look
 * like seconds. An empty batch is accepted as a no-op (202, `accepted: 0`)
 * so batching clients need no special case. Other methods on the path get
 * 405, an unknown stream 404. With `options.token` set, every request needs
 * `Authorization: Bearer <token>` (401 before anything else).
 *
 * @param options The streams, the token and `maxBodyBytes`.
 * @returns The sub-app, to mount with `app.route("/ingest", ...)`.
 * @throws {RangeError} If `maxBodyBytes` is not a positive safe integer, or
 * the token is empty.
 *
 * @example Ingesting two records
 * ```ts
 * import { Hono } from "hono";
 * import { KvLog } from "../connectors/sources/kv_log.ts";
 * import { ManualClock } from "../time/mod.ts";
 * import { ingestRoutes } from "./ingest.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const log = new KvLog<Record<string, unknown>>(kv, "clicks", { partitions: 1 });
 * const streams = new Map([["clicks", { name: "clicks", log, timestampField: "at" }]]);
 * const app = new Hono().route("/ingest", ingestRoutes({ jobs: new Map(), streams, clock: new ManualClock(0) }));
 * const body = JSON.stringify([{ at: 1_700_000_000_000 }, { at: 1_700_000_000_001 }]);
 * const headers = { "Content-Type": "application/json" };
 * const res = await app.request("/ingest/clicks", { method: "POST", body, headers });
 * assert.equal(res.status, 202);
 * assert.equal((await res.json()).accepted, 2);
 * kv.close();
 * ```
 */
export function ingestRoutes(options: ServiceOptions): Hono {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new RangeError(
      `Cannot create the ingest routes as 'maxBodyBytes' must be a positive safe integer: current value is ${
        describe(maxBodyBytes)
      }`,
    );
  }
  // Where the round-robin of each stream's keyless records continues.
  const cursors = new Map<string, number>();
  return new Hono()
    .use("*", requireToken(options.token))
    .post("/:stream", async function ingest(c) {
      const stream = findStream(options.streams, c.req.param("stream"));
      const action = `ingest into '${stream.name}'`;
      const format = formatOf(c.req.header("Content-Type"), action);
      checkDeclaredLength(c.req.header("Content-Length"), maxBodyBytes, action);
      const text = await readText(c.req.raw.body, maxBodyBytes, action);
      const { values, lines } = format === "json"
        ? parseJson(text, action)
        : parseNdjson(text, action);
      const { timestamps, warnings } = validate(
        values,
        lines,
        stream.timestampField,
        action,
      );
      const groups = route(values, timestamps, stream.log, cursors);
      const offsets = await appendAll(stream.log, groups);
      return c.json({
        accepted: values.length,
        offsets,
        warnings: warnings.slice(0, MAX_LISTED),
        warningCount: warnings.length,
      }, 202);
    })
    .all("/:stream", function methodNotAllowed(c) {
      throw new HttpError(
        "METHOD_NOT_ALLOWED",
        `Cannot ${c.req.method} ${c.req.path} as ingest takes only POST`,
        { headers: { Allow: "POST" } },
      );
    });
}

function findStream(
  streams: ReadonlyMap<string, IngestStream>,
  name: string,
): IngestStream {
  const stream = streams.get(name);
  if (stream === undefined) {
    throw new HttpError(
      "NOT_FOUND",
      `Cannot ingest into ${describe(name)} as no such stream exists`,
      { details: { streams: [...streams.keys()] } },
    );
  }
  return stream;
}

function formatOf(header: string | undefined, action: string): Format {
  const [type, ...params] = (header ?? "").split(";");
  const format = FORMATS[type.trim().toLowerCase()];
  const charset = params.map((param) => param.trim().toLowerCase())
    .find((param) => param.startsWith("charset="))
    ?.slice("charset=".length).replace(/^"(.*)"$/, "$1");
  if (
    format === undefined ||
    (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
  ) {
    throw new HttpError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Cannot ${action} as 'Content-Type' must be application/json or application/x-ndjson in UTF-8: current value is ${
        header === undefined ? "missing" : describe(header)
      }`,
    );
  }
  return format;
}

function checkDeclaredLength(
  header: string | undefined,
  max: number,
  action: string,
): void {
  if (header === undefined) return;
  if (!/^\s*\d+\s*$/.test(header)) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot ${action} as 'Content-Length' must be a non-negative integer: current value is ${
        describe(header)
      }`,
    );
  }
  if (Number(header) > max) throw tooLarge(action, max, Number(header));
}

/** Reads the body as UTF-8, giving up as soon as it passes `max` bytes. */
async function readText(
  body: ReadableStream<Uint8Array> | null,
  max: number,
  action: string,
): Promise<string> {
  if (body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel();
        throw tooLarge(action, max, `over ${max}`);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new HttpError(
      "MALFORMED_BODY",
      `Cannot ${action} as the body must be UTF-8: it holds an invalid byte sequence`,
      { cause: error },
    );
  }
}

function tooLarge(action: string, max: number, size: number | string) {
  return new HttpError(
    "PAYLOAD_TOO_LARGE",
    `Cannot ${action} as the body must be at most ${max} bytes: current size is ${size} bytes; split it into smaller batches`,
    { details: { maxBodyBytes: max } },
  );
}

interface Parsed {
  readonly values: unknown[];
  /** For NDJSON, each value's line, from 1. */
  readonly lines: number[] | null;
}

function parseJson(text: string, action: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    const position = /at position (\d+)/.exec(reason);
    throw new HttpError(
      "MALFORMED_BODY",
      `Cannot ${action} as the body must be valid JSON: ${reason}`,
      { details: position ? locate(text, Number(position[1])) : undefined },
    );
  }
  if (!Array.isArray(value)) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot ${action} as the JSON body must be an array of records: current value is ${
        describe(value)
      }; wrap a single record in [ ]`,
    );
  }
  return { values: value, lines: null };
}

function locate(text: string, position: number) {
  const before = text.slice(0, position).split("\n");
  return { position, line: before.length, column: before.at(-1)!.length + 1 };
}

function parseNdjson(text: string, action: string): Parsed {
  const values: unknown[] = [];
  const lines: number[] = [];
  const errors: { line: number; reason: string }[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    try {
      values.push(JSON.parse(raw));
      lines.push(i + 1);
    } catch (error) {
      errors.push({ line: i + 1, reason: (error as Error).message });
    }
  });
  if (errors.length > 0) {
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    throw new HttpError(
      "MALFORMED_BODY",
      `Cannot ${action} as line ${
        errors[0].line
      } of the NDJSON body must be one JSON value${more}: ${errors[0].reason}`,
      {
        details: {
          errors: errors.slice(0, MAX_LISTED),
          errorCount: errors.length,
        },
      },
    );
  }
  return { values, lines };
}

/**
 * Checks every record; throws one `INVALID_RECORDS` listing all problems,
 * or returns the timestamps and the seconds warnings.
 */
function validate(
  values: readonly unknown[],
  lines: readonly number[] | null,
  timestampField: string,
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
    const ts = record[timestampField];
    const rule = `must be epoch milliseconds as a safe integer`;
    if (!Object.hasOwn(record, timestampField)) {
      errors.push(issue(index, timestampField, `is missing; it ${rule}`));
    } else if (typeof ts !== "number" || !Number.isSafeInteger(ts)) {
      const hint = typeof ts === "string" && /^-?\d+$/.test(ts)
        ? "; send it as a number, without quotes"
        : "";
      errors.push(issue(
        index,
        timestampField,
        `${rule}: current value is ${describe(ts)}${hint}`,
      ));
    } else {
      timestamps[index] = ts + 0; // -0 becomes 0
      if (ts > 0 && ts < SECONDS_BELOW) {
        warnings.push(issue(
          index,
          timestampField,
          `${ts} looks like seconds; multiply by 1000`,
        ));
      }
    }
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

/** Groups records by partition: by the hash of `key`, else round-robin. */
function route(
  values: readonly unknown[],
  timestamps: readonly number[],
  log: KvLog<Json>,
  cursors: Map<string, number>,
): AppendRecord<Json>[][] {
  const partitions = log.numPartitions;
  const groups = Array.from(
    { length: partitions },
    (): AppendRecord<Json>[] => [],
  );
  let cursor = cursors.get(log.name) ?? 0;
  values.forEach((v, i) => {
    const value = v as Json;
    const partition = Object.hasOwn(value, "key")
      ? hashKey(hashable(value.key)) % partitions
      : cursor++ % partitions;
    groups[partition].push({ value, timestamp: timestamps[i] });
  });
  cursors.set(log.name, cursor % partitions);
  return groups;
}

/** One append per non-empty partition; waits for all before failing. */
async function appendAll(log: KvLog<Json>, groups: AppendRecord<Json>[][]) {
  const appends = groups.flatMap((records, partition) =>
    records.length === 0 ? [] : [
      log.append(partition, records).then((result) => ({
        partition,
        firstOffset: result.firstOffset,
        lastOffset: result.lastOffset,
      })),
    ]
  );
  const settled = await Promise.allSettled(appends);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) =>
    (s as PromiseFulfilledResult<
      { partition: number; firstOffset: number; lastOffset: number }
    >).value
  );
}

/**
 * A short rendering of a client's value for a message. Objects and arrays
 * are only named: they may be too deep to stringify.
 */
function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (typeof value === "object" && value !== null) return "an object";
  const text = typeof value === "string"
    ? JSON.stringify(value)
    : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** A primitive key hashes as it is; an object or array by its JSON. */
function hashable(key: unknown): unknown {
  return key !== null && typeof key === "object"
    ? JSON.stringify(key)
    : key ?? "null";
}
