/**
 * `POST /ingest/:stream`: records in over HTTP, durably appended to the
 * stream's `KvLog` before the service answers, each batch whole
 * or not at all, and once per `Idempotency-Key`.
 *
 * @module
 */

import { Hono } from "hono";
import type { PartitionOffsets } from "../connectors/sources/kv_log.ts";
import {
  checkIngestRecords,
  type RecordIssue,
  type RecordRules,
} from "../connectors/sources/ingest_records.ts";
import { IngestRouter } from "../connectors/sources/ingest_router.ts";
import { resolveIngestKey } from "../api/ingest_key.ts";
import { requireToken } from "./auth.ts";
import { HttpError } from "./errors.ts";
import {
  checkDeclaredLength,
  decodeUtf8,
  describe,
  formatOf,
  MAX_LISTED,
  parseJson,
  parseNdjson,
  readBody,
} from "./_ingest_body.ts";
import {
  bodyDigest,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  type IngestMemo,
  parseIdempotencyKey,
  replayAnswer,
} from "./_idempotency.ts";
import type { IngestStream, ServiceOptions } from "./service.ts";

const DEFAULT_MAX_BODY_BYTES = 1_048_576;
// 1 MiB at 35 KB/s: a slow link gets through, a stalled one is let go.
const DEFAULT_BODY_TIMEOUT_MS = 30_000;

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
 * reading and by the bytes actually read, which stop at the limit. A body
 * not read in full within `bodyTimeoutMs` (a client that stalls or
 * trickles) gets 408 `REQUEST_TIMEOUT` with `Connection: close`.
 * Unparsable JSON (or non-UTF-8 bytes) gets 400 `MALFORMED_BODY`, naming
 * the position, or for NDJSON every bad line.
 *
 * **Records.** What ingest accepts, every job can process. Each record
 * must be a JSON object of at most 60 KiB as JSON, nested at most 64
 * levels, without the keys `__proto__`, `constructor` or `prototype` at
 * any depth (the log's serialiser refuses them). Its `timestampField`
 * holds epoch milliseconds as a safe integer from `MIN_TIMESTAMP`
 * (0001-01-01T00:00:00.000Z) to `MAX_TIMESTAMP`
 * (9999-12-31T23:59:59.999Z), which leaves window and watermark arithmetic
 * room on either side (strings, `1.5` and `1e400` are refused). Its key
 * field (the stream's `key.field`, `"key"` by default), when present, is
 * of one of the stream's key types (by default a string or a number;
 * never `null`, an object or an array, which `keyBy` cannot hash) and at
 * most `key.maxBytes` bytes as Deno KV encodes it in a key (UTF-8, each NUL
 * character taking 2; 1024 by default: Deno KV keys take 2048, and the
 * sinks put prefixes and suffixes around a key); with `key.required` it
 * must be present (a stream keyed by the field should say so: a keyless
 * record would otherwise reach `keyBy` and be set aside by the job). If
 * any record fails, nothing is appended and the answer is 400
 * `INVALID_RECORDS` with `details.errors`, one
 * `{ index, field, reason }` (plus `line` for NDJSON) per problem, the
 * first 1,000 listed, and `details.errorCount`.
 *
 * **Partitions, all or nothing.** A record with a key goes to partition
 * `hashKey(key) % partitions`; the others go round-robin from partition 0,
 * continuing across requests to the stream. The whole batch, every
 * partition of it, is ONE append of the log (`KvLog.appendAll`): readers
 * see all of it or none, whatever the answer. Appends to one stream take
 * turns in the process; a race lost to another process, or a commit or
 * read that Deno KV fails for a passing reason (SQLite's lock), is
 * retried with backoff, and if that goes on too long the answer is 503
 * `ATOMIC_CONFLICT` (`Retry-After: 1`) and nothing was appended: send the
 * batch again. A commit that landed although its answer was lost (a
 * remote database's timeout) is answered as appended. Only when the
 * store stops answering before that can be known is the answer 503
 * `UNAVAILABLE` (`Retry-After: 1`): the batch may have been appended, so
 * send it again with the same `Idempotency-Key`.
 *
 * **Idempotency-Key** (IETF draft-ietf-httpapi-idempotency-key-header).
 * A request may carry one key of 1 to 255 printable ASCII characters,
 * bare or as a quoted string (400 otherwise). The key is kept per stream
 * for `idempotencyTtlMs` (24 h by default), written in the same commit as
 * the batch, with a SHA-256 digest of the body. The same key and body
 * again, even while the first request is still appending, appends
 * nothing: the answer is 202 with the first answer's `accepted` and
 * `offsets`, `appended: 0`, `duplicate: true` and the header
 * `Idempotent-Replayed: true`. The same key with another body gets 422
 * `IDEMPOTENCY_KEY_REUSED`. A request refused (4xx, 503 `ATOMIC_CONFLICT`)
 * keeps no key.
 *
 * **Answer.** 202 with `{ accepted, appended, duplicate, offsets,
 * warnings, warningCount }`: `offsets` lists `{ partition, firstOffset,
 * lastOffset }` for each partition written; `warnings` flags timestamps in
 * `(0, 1e11)`, which look like seconds (listed in the first answer only).
 * An empty batch is accepted as a no-op (202, `accepted: 0`) so batching
 * clients need no special case. Other methods on the path get 405, an
 * unknown stream 404. With `options.token` set, every request needs
 * `Authorization: Bearer <token>` (401 before anything else).
 *
 * @param options The streams, the token, `maxBodyBytes`, `bodyTimeoutMs`
 * and `idempotencyTtlMs`.
 * @returns The sub-app, to mount with `app.route("/ingest", ...)`.
 * @throws {RangeError} If `maxBodyBytes`, `bodyTimeoutMs` or
 * `idempotencyTtlMs` is not a positive safe integer, a stream's key rule
 * is out of range, or the token is empty.
 *
 * @example Ingesting two records, twice under one Idempotency-Key
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
 * const headers = { "Content-Type": "application/json", "Idempotency-Key": "batch-1" };
 * const first = await app.request("/ingest/clicks", { method: "POST", body, headers });
 * assert.deepEqual([first.status, (await first.json()).appended], [202, 2]);
 * const again = await app.request("/ingest/clicks", { method: "POST", body, headers });
 * assert.deepEqual([again.status, (await again.json()).duplicate], [202, true]);
 * kv.close();
 * ```
 */
export function ingestRoutes(options: ServiceOptions): Hono {
  const maxBodyBytes = positive(
    options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    "maxBodyBytes",
  );
  const timeoutMs = positive(
    options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    "bodyTimeoutMs",
  );
  const ttlMs = positive(
    options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
    "idempotencyTtlMs",
  );
  // Each stream's rules, checked once at start rather than per request,
  // and its router, whose round-robin continues across requests.
  const rules = new Map<string, RecordRules>();
  const routers = new Map<string, IngestRouter>();
  for (const [name, stream] of options.streams) {
    const key = resolveIngestKey(stream.key, `serve ingest stream '${name}'`);
    rules.set(name, { timestampField: stream.timestampField, key });
    routers.set(
      name,
      new IngestRouter({
        partitions: stream.log.numPartitions,
        keyField: key.field,
      }),
    );
  }
  return new Hono()
    .use("*", requireToken(options.token))
    .post("/:stream", async function ingest(c) {
      const stream = findStream(options.streams, c.req.param("stream"));
      const streamRules = rules.get(stream.name)!;
      const action = `ingest into '${stream.name}'`;
      const format = formatOf(c.req.header("Content-Type"), action);
      checkDeclaredLength(c.req.header("Content-Length"), maxBodyBytes, action);
      const key = parseIdempotencyKey(c.req.header("Idempotency-Key"), action);
      const bytes = await readBody(c.req.raw.body, {
        maxBytes: maxBodyBytes,
        timeoutMs,
        action,
      });
      const digest = key === null ? "" : await bodyDigest(format, bytes);
      const replay = (memo: unknown) =>
        c.json(replayAnswer(memo, digest, { key: key!, ttlMs, action }), 202, {
          "Idempotent-Replayed": "true",
        });
      // A repeat is answered before its body is parsed: it was valid.
      const kept = key === null ? null : await stream.log.recall(key);
      if (kept !== null) return replay(kept.memo);
      const text = decodeUtf8(bytes, action);
      const { values, lines } = format === "json"
        ? parseJson(text, action)
        : parseNdjson(text, action);
      const { timestamps, warnings, errors } = checkIngestRecords(
        values,
        lines,
        streamRules,
      );
      if (errors.length > 0) throw invalidRecords(errors, action);
      const answer = {
        accepted: values.length,
        appended: values.length,
        duplicate: false,
        offsets: [] as PartitionOffsets[],
        warnings: warnings.slice(0, MAX_LISTED),
        warningCount: warnings.length,
      };
      if (values.length === 0 && key === null) return c.json(answer, 202);
      const result = await stream.log.appendAll(
        routers.get(stream.name)!.route(values, timestamps),
        key === null ? {} : {
          once: {
            id: key,
            expireInMs: ttlMs,
            memo: (offsets): IngestMemo => ({
              digest,
              accepted: values.length,
              offsets: offsets.map((o) => [
                o.partition,
                o.firstOffset,
                o.lastOffset,
              ]),
              warningCount: warnings.length,
            }),
          },
        },
      );
      if (result.duplicate) return replay(result.memo);
      return c.json({ ...answer, offsets: result.offsets }, 202);
    })
    .all("/:stream", function methodNotAllowed(c) {
      throw new HttpError(
        "METHOD_NOT_ALLOWED",
        `Cannot ${c.req.method} ${c.req.path} as ingest takes only POST`,
        { headers: { Allow: "POST" } },
      );
    });
}

/** The 400 `INVALID_RECORDS` listing every problem, led by the first. */
function invalidRecords(
  errors: readonly RecordIssue[],
  action: string,
): HttpError {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return new HttpError(
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

function positive(value: number, param: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(
      `Cannot create the ingest routes as '${param}' must be a positive safe integer: current value is ${
        describe(value)
      }`,
    );
  }
  return value;
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
