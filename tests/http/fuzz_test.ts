// Throws 10,000 random requests at POST /ingest/:stream: random bytes,
// random JSON, arrays of random records, NDJSON with garbage lines, raw
// number literals JSON.stringify cannot write (1e400, -0, 1.5), deep
// nesting, random content types, lengths, paths and tokens. The app must
// never answer 5xx, every answer must be one of the documented statuses
// with a JSON body, and everything it appended must read back from the log.
// Some requests carry an Idempotency-Key from a small pool, so repeats
// (202, appended 0) and reuses with another body (422) come up.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createApp } from "../../src/http/app.ts";
import { KvLog } from "../../src/connectors/sources/kv_log.ts";
import { ManualClock } from "../../src/time/clock.ts";

const TOKEN = "fuzz-token";
const PARTITIONS = 3;
const STATUSES = new Set([202, 400, 401, 404, 405, 413, 415, 422]);
// The timestamps ingest accepts: years 0001 to 9999.
const MIN_TIMESTAMP = -62135596800000;
const MAX_TIMESTAMP = 253402300799999;

const printable = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);

const timestamp = fc.oneof(
  fc.integer({ min: 1_000_000_000_000, max: 2_000_000_000_000 }),
  fc.maxSafeInteger(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constantFrom(null, true, "NaN", "Infinity", 2 ** 53, -(2 ** 53), []),
);

const fieldName = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom("at", "key", "__proto__", "constructor", "prototype", ""),
);

const record = fc.tuple(
  fc.dictionary(fieldName, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
  fc.option(timestamp, { freq: 5 }),
  fc.option(fc.jsonValue({ maxDepth: 2 }), { freq: 2 }),
).map(([fields, at, key]) => {
  const value: Record<string, unknown> = { ...fields };
  if (at !== null) value.at = at;
  if (key !== null) value.key = key;
  return value;
});

// Records that pass validation, to exercise the append and the read-back.
const validRecord = fc.tuple(
  fc.dictionary(
    fc.string({ maxLength: 8 }).filter((k) =>
      !["__proto__", "constructor", "prototype", "at", "key"].includes(k)
    ),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 5 },
  ),
  fc.integer({ min: MIN_TIMESTAMP, max: MAX_TIMESTAMP }),
  fc.option(
    fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    ),
    { freq: 2 },
  ),
).map(([fields, at, key]) => {
  const value: Record<string, unknown> = { ...fields, at };
  if (key !== null) value.key = key;
  return value;
});

const anything = fc.oneof(record, fc.jsonValue({ maxDepth: 2 }));

// Number literals only raw JSON text can carry.
const rawNumber = fc.constantFrom(
  "1e400",
  "-1e400",
  "1.5",
  "-0",
  "1E12",
  "9007199254740993",
  "0.0",
  "1700000000000.000",
);

const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(validRecord, { maxLength: 30 }).map((xs) =>
      JSON.stringify(xs)
    ),
  },
  {
    weight: 3,
    arbitrary: fc.array(validRecord, { maxLength: 30 }).map((xs) =>
      xs.map((x) => JSON.stringify(x)).join("\n")
    ),
  },
  fc.uint8Array({ maxLength: 2_000 }),
  fc.json({ maxDepth: 3 }),
  fc.array(anything, { maxLength: 30 }).map((xs) => JSON.stringify(xs)),
  fc.array(record, { maxLength: 30 }).map((xs) => JSON.stringify(xs)),
  fc.array(
    fc.oneof(
      { weight: 5, arbitrary: anything.map((x) => JSON.stringify(x)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
      { weight: 1, arbitrary: fc.constantFrom("", "  ", "\r") },
    ),
    { maxLength: 30 },
  ).map((lines) => lines.join("\n")),
  fc.array(rawNumber, { minLength: 1, maxLength: 5 }).map((xs) =>
    `[${xs.map((x) => `{"at":${x},"n":${x}}`).join(",")}]`
  ),
  fc.tuple(fc.integer({ min: 1, max: 8_000 }), fc.boolean()).map((
    [depth, inRecord],
  ) =>
    inRecord
      ? `[{"at":1700000000000,"d":${"[".repeat(depth)}${"]".repeat(depth)}}]`
      : "[".repeat(depth) + "]".repeat(depth)
  ),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.integer({ min: 0, max: 40_000 }).map((n) =>
    `[{"at":1700000000000,"pad":"${"x".repeat(n)}"}]`
  ),
);

const contentType = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "application/json",
      "application/x-ndjson",
      "application/json; charset=utf-8",
      "application/x-ndjson; charset=UTF-8",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "text/plain",
      "APPLICATION/JSON",
      "application/json; charset=latin1",
      "",
    ),
  },
  { weight: 1, arbitrary: printable },
  { weight: 1, arbitrary: fc.constant(null) },
);

const contentLength = fc.oneof(
  { weight: 3, arbitrary: fc.constant<"none">("none") },
  { weight: 2, arbitrary: fc.constant<"exact">("exact") },
  { weight: 1, arbitrary: fc.nat({ max: 100_000 }).map(String) },
  { weight: 1, arbitrary: printable },
);

const path = fc.oneof(
  { weight: 8, arbitrary: fc.constant("/ingest/clicks") },
  {
    weight: 1,
    arbitrary: fc.string({ maxLength: 10 }).map((s) =>
      `/ingest/${encodeURIComponent(s)}`
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "/ingest/%ZZ",
      "/ingest/%E0%A4%A",
      "/ingest/clicks/extra",
      "/ingest",
      "/ingest/",
    ),
  },
);

const authorization = fc.oneof(
  { weight: 8, arbitrary: fc.constant(`Bearer ${TOKEN}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, "Bearer", `bearer ${TOKEN}`, "Basic x"),
  },
  { weight: 1, arbitrary: printable },
);

const idempotencyKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.constantFrom("k1", "k2", '"k3"') },
  { weight: 1, arbitrary: printable },
);

const method = fc.oneof(
  { weight: 12, arbitrary: fc.constant("POST") },
  { weight: 1, arbitrary: fc.constantFrom("GET", "PUT", "DELETE", "PATCH") },
);

Deno.test({
  name:
    "POST /ingest/:stream never answers 5xx to 10,000 random requests and keeps answering",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const kv = await Deno.openKv(":memory:");
    try {
      const log = new KvLog<Record<string, unknown>>(kv, "clicks", {
        partitions: PARTITIONS,
      });
      const app = createApp({
        jobs: new Map(),
        streams: new Map([["clicks", {
          name: "clicks",
          log,
          timestampField: "at",
        }]]),
        token: TOKEN,
        maxBodyBytes: 16_384,
        clock: new ManualClock(0),
      });
      let accepted = 0;
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            body,
            contentType,
            contentLength,
            path,
            authorization,
            idempotencyKey,
            method,
          }),
          async (request) => {
            const bytes: Uint8Array<ArrayBuffer> =
              typeof request.body === "string"
                ? new TextEncoder().encode(request.body)
                : new Uint8Array(request.body);
            const headers: Record<string, string> = {};
            if (request.contentType !== null) {
              headers["Content-Type"] = request.contentType;
            }
            if (request.authorization !== null) {
              headers.Authorization = request.authorization;
            }
            if (request.idempotencyKey !== null) {
              headers["Idempotency-Key"] = request.idempotencyKey;
            }
            if (request.contentLength === "exact") {
              headers["Content-Length"] = String(bytes.byteLength);
            } else if (request.contentLength !== "none") {
              headers["Content-Length"] = request.contentLength;
            }
            const hasBody = request.method !== "GET";
            const res = await app.request(request.path, {
              method: request.method,
              headers,
              body: hasBody ? bytes : undefined,
            });
            const text = await res.text();
            assert.ok(res.status < 500, `${res.status}: ${text}`);
            assert.ok(STATUSES.has(res.status), `${res.status}: ${text}`);
            const answer = JSON.parse(text);
            seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
            if (res.status === 202) {
              assert.ok(Number.isSafeInteger(answer.accepted));
              assert.equal(
                answer.appended,
                answer.duplicate ? 0 : answer.accepted,
              );
              accepted += answer.appended;
            } else {
              assert.equal(typeof answer.error.code, "string");
              assert.equal(typeof answer.error.message, "string");
            }
          },
        ),
        { numRuns: 10_000, seed: 0x5eed_2026 },
      );
      // Every kind of answer came up, so the generators reach every branch.
      for (const status of STATUSES) {
        assert.ok(
          (seen.get(status) ?? 0) > 0,
          `no ${status} among ${[...seen]}`,
        );
      }
      // Everything accepted reads back, with safe-integer timestamps.
      let stored = 0;
      for (let p = 0; p < PARTITIONS; p++) {
        const records = await log.read(p, 0, 1_000_000);
        assert.equal(records.length, await log.head(p));
        for (const r of records) assert.ok(Number.isSafeInteger(r.timestamp));
        stored += records.length;
      }
      assert.equal(stored, accepted);
      assert.ok(accepted > 0);
      // And the app still takes a plain request.
      const res = await app.request("/ingest/clicks", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${TOKEN}`,
        },
        body: '[{"at":1700000000000}]',
      });
      assert.equal(res.status, 202);
      assert.equal((await res.json()).appended, 1);
    } finally {
      kv.close();
    }
  },
});
