import assert from "node:assert/strict";
import type { Hono } from "hono";
import { createApp } from "../../src/http/app.ts";
import type { ServiceOptions } from "../../src/http/service.ts";
import { KvLog, type LogRecord } from "../../src/connectors/sources/kv_log.ts";
import { ManualClock } from "../../src/time/clock.ts";

type Json = Record<string, unknown>;

/** One record's problem, as the service lists it. */
interface Issue {
  index: number;
  line?: number;
  field: string | null;
  reason: string;
}

/** `error.details` of a list of problems (other shapes compare as unknown). */
interface Details {
  errors: Issue[];
  errorCount: number;
}

interface Fixture {
  readonly app: Hono;
  readonly log: KvLog<Json>;
}

/**
 * Runs `fn` against an app with one stream "clicks" (timestamp field "at")
 * on a fresh `:memory:` KV, closed afterwards; sanitizers on.
 */
function ingestTest(
  name: string,
  fn: (fixture: Fixture) => Promise<void>,
  options: { partitions?: number } & Partial<ServiceOptions> = {},
): void {
  Deno.test({
    name,
    sanitizeOps: true,
    sanitizeResources: true,
    async fn() {
      const kv = await Deno.openKv(":memory:");
      try {
        const log = new KvLog<Json>(kv, "clicks", {
          partitions: options.partitions ?? 1,
        });
        const streams = new Map([["clicks", {
          name: "clicks",
          log,
          timestampField: "at",
        }]]);
        const app = createApp({
          jobs: new Map(),
          streams,
          clock: new ManualClock(0),
          ...options,
        });
        await fn({ app, log });
      } finally {
        kv.close();
      }
    },
  });
}

function post(
  app: Hono,
  body: BodyInit | null,
  contentType: string | null = "application/json",
  headers: Record<string, string> = {},
  path = "/ingest/clicks",
): Promise<Response> {
  // A Request, not (path, init): on Deno 2.5, Hono's RequestInit (from
  // @types/node) does not take a null body.
  return Promise.resolve(app.request(
    new Request(`http://localhost${path}`, {
      method: "POST",
      body,
      headers: contentType === null
        ? headers
        : { "Content-Type": contentType, ...headers },
    }),
  ));
}

async function errorOf(res: Response) {
  assert.equal(res.headers.get("Content-Type"), "application/json");
  const body = await res.json();
  return body.error as { code: string; message: string; details: Details };
}

async function readAll(log: KvLog<Json>): Promise<LogRecord<Json>[][]> {
  const out: LogRecord<Json>[][] = [];
  for (let p = 0; p < log.numPartitions; p++) {
    out.push(await log.read(p, 0, 10_000));
  }
  return out;
}

async function heads(log: KvLog<Json>): Promise<number[]> {
  const out: number[] = [];
  for (let p = 0; p < log.numPartitions; p++) out.push(await log.head(p));
  return out;
}

ingestTest(
  "POST /ingest/:stream appends a JSON array and answers 202 after the append",
  async ({ app, log }) => {
    const records = [
      { at: 1_700_000_000_000, page: "/a" },
      { at: 1_700_000_000_005, page: "/b" },
      { at: -5, page: "/before-1970" },
    ];
    const res = await post(app, JSON.stringify(records));
    assert.equal(res.status, 202);
    assert.deepEqual(await res.json(), {
      accepted: 3,
      appended: 3,
      duplicate: false,
      offsets: [{ partition: 0, firstOffset: 0, lastOffset: 2 }],
      warnings: [],
      warningCount: 0,
    });
    const [stored] = await readAll(log);
    assert.deepEqual(
      stored.map((r) => [r.offset, r.timestamp, r.value]),
      records.map((r, i) => [i, r.at, r]),
    );
  },
);

ingestTest(
  "POST /ingest/:stream appends NDJSON, ignoring blank lines and \\r",
  async ({ app, log }) => {
    const body =
      '{"at":1700000000000,"n":1}\r\n\n   \n{"at":1700000000001,"n":2}\n';
    const res = await post(app, body, "application/x-ndjson; charset=UTF-8");
    assert.equal(res.status, 202);
    assert.equal((await res.json()).accepted, 2);
    const [stored] = await readAll(log);
    assert.deepEqual(stored.map((r) => [r.timestamp, r.value.n]), [
      [1_700_000_000_000, 1],
      [1_700_000_000_001, 2],
    ]);
  },
);

ingestTest(
  "POST /ingest/:stream matches the media type case-insensitively",
  async ({ app }) => {
    const res = await post(
      app,
      '[{"at":1700000000000}]',
      'Application/JSON; charset="utf-8"',
    );
    assert.equal(res.status, 202);
  },
);

ingestTest(
  "POST /ingest/:stream answers 415 for other content types, a missing one or another charset",
  async ({ app, log }) => {
    const body = '[{"at":1700000000000}]';
    for (
      const type of [
        "text/plain",
        "application/xml",
        "multipart/form-data",
        null,
        "application/json; charset=iso-8859-1",
      ]
    ) {
      const res = await post(app, body, type);
      assert.equal(res.status, 415, String(type));
      const error = await errorOf(res);
      assert.equal(error.code, "UNSUPPORTED_MEDIA_TYPE");
      assert.match(error.message, /'Content-Type' must be application\/json/);
    }
    assert.deepEqual(await heads(log), [0]);
  },
);

ingestTest(
  "POST /ingest/:stream answers 400 MALFORMED_BODY naming the position of a JSON syntax error",
  async ({ app, log }) => {
    const res = await post(app, '[{"at": 1},\n {"at": 2');
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "MALFORMED_BODY");
    assert.match(error.message, /must be valid JSON/);
    assert.deepEqual(error.details, { position: 21, line: 2, column: 10 });
    for (const body of ["", "[1,}", "nope"]) {
      const res = await post(app, body);
      assert.equal(res.status, 400, body);
      assert.equal((await errorOf(res)).code, "MALFORMED_BODY");
    }
    assert.deepEqual(await heads(log), [0]);
  },
);

ingestTest(
  "POST /ingest/:stream answers 400 MALFORMED_BODY listing every bad NDJSON line",
  async ({ app, log }) => {
    const body = '{"at":1}\n{"at":\n\n{"at":3}\nnope\n';
    const res = await post(app, body, "application/x-ndjson");
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "MALFORMED_BODY");
    assert.match(error.message, /line 2 of the NDJSON body .* \(and 1 more\)/);
    assert.deepEqual(error.details.errors.map((e) => e.line), [2, 5]);
    assert.equal(error.details.errorCount, 2);
    assert.deepEqual(await heads(log), [0]);
  },
);

ingestTest(
  "POST /ingest/:stream answers 400 MALFORMED_BODY for bytes that are not UTF-8",
  async ({ app }) => {
    const bytes = new Uint8Array([0x5b, 0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const res = await post(app, bytes);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "MALFORMED_BODY");
    assert.match(error.message, /UTF-8/);
  },
);

ingestTest(
  "POST /ingest/:stream answers 400 BAD_REQUEST when the JSON body is not an array",
  async ({ app }) => {
    const res = await post(app, '{"at":1700000000000}');
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "BAD_REQUEST");
    assert.match(error.message, /must be an array of records/);
  },
);

ingestTest(
  "POST /ingest/:stream lists every bad record by index, field and reason, and appends nothing",
  async ({ app, log }) => {
    const body = `[
      {"at": 1700000000000},
      {"page": "/no-timestamp"},
      {"at": "NaN"},
      {"at": 1e400},
      {"at": 1.5},
      {"at": "1700000000000"},
      {"at": null},
      {"at": 9007199254740993},
      42,
      [1, 2],
      null,
      {"at": -1e400},
      {"at": 1700000000001}
    ]`;
    const res = await post(app, body);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "INVALID_RECORDS");
    assert.match(
      error.message,
      /^Cannot ingest into 'clicks' as record 1 field 'at' is missing/,
    );
    assert.match(error.message, /\(and 10 more\); nothing was appended$/);
    assert.equal(error.details.errorCount, 11);
    const errors = error.details.errors;
    assert.deepEqual(
      errors.map((e) => [e.index, e.field]),
      [
        [1, "at"],
        [2, "at"],
        [3, "at"],
        [4, "at"],
        [5, "at"],
        [6, "at"],
        [7, "at"],
        [8, null],
        [9, null],
        [10, null],
        [11, "at"],
      ],
    );
    const reasons = errors.map((e) => e.reason);
    assert.match(reasons[0], /is missing/);
    assert.match(reasons[1], /safe integer: current value is "NaN"$/);
    assert.match(reasons[2], /current value is Infinity$/);
    assert.match(reasons[3], /current value is 1\.5$/);
    assert.match(reasons[4], /send it as a number, without quotes$/);
    assert.match(reasons[5], /current value is null$/);
    assert.match(reasons[6], /current value is 9007199254740992$/);
    assert.match(reasons[7], /must be a JSON object: current value is 42$/);
    assert.match(reasons[8], /current value is an array of 2 items$/);
    assert.match(reasons[9], /current value is null$/);
    assert.match(reasons[10], /current value is -Infinity$/);
    assert.deepEqual(await heads(log), [0]);
  },
);

ingestTest(
  "POST /ingest/:stream gives NDJSON record errors their line",
  async ({ app, log }) => {
    const body = '{"at":1700000000000}\n\n{"at":"x"}\n';
    const res = await post(app, body, "application/x-ndjson");
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.deepEqual(error.details.errors, [{
      index: 1,
      line: 3,
      field: "at",
      reason:
        'must be epoch milliseconds as a safe integer: current value is "x"',
    }]);
    assert.deepEqual(await heads(log), [0]);
  },
);

ingestTest(
  "POST /ingest/:stream refuses records too large, too deep or with keys the log cannot store",
  async ({ app, log }) => {
    const deep = '{"x":'.repeat(70) + "1" + "}".repeat(70);
    const body = `[
      {"at": 1700000000000, "blob": "${"x".repeat(70_000)}"},
      {"at": 1700000000000, "deep": ${deep}},
      {"at": 1700000000000, "meta": {"constructor": 1}},
      {"at": 1700000000000, "__proto__": {"polluted": true}}
    ]`;
    const res = await post(app, body);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    const errors = error.details.errors;
    assert.deepEqual(errors.map((e) => e.index), [0, 1, 2, 3]);
    assert.match(errors[0].reason, /at most 61440 bytes as JSON/);
    assert.match(errors[1].reason, /at most 64 levels deep/);
    assert.equal(errors[2].field, "meta.constructor");
    assert.equal(errors[3].field, "__proto__");
    assert.deepEqual(await heads(log), [0]);
    assert.equal(({} as Json).polluted, undefined);
  },
);

ingestTest(
  "POST /ingest/:stream answers 413 when Content-Length says the body is too large",
  async ({ app, log }) => {
    const res = await post(app, '[{"at":1700000000000}]', "application/json", {
      "Content-Length": "2000",
    });
    assert.equal(res.status, 413);
    const error = await errorOf(res);
    assert.equal(error.code, "PAYLOAD_TOO_LARGE");
    assert.match(
      error.message,
      /at most 1024 bytes: current size is 2000 bytes/,
    );
    assert.deepEqual(error.details, { maxBodyBytes: 1024 });
    assert.deepEqual(await heads(log), [0]);
  },
  { maxBodyBytes: 1024 },
);

ingestTest(
  "POST /ingest/:stream answers 413 by the bytes read when Content-Length is absent or lies",
  async ({ app, log }) => {
    const records = Array.from({ length: 100 }, (_, i) => ({ at: i + 1e12 }));
    const body = JSON.stringify(records);
    assert.ok(body.length > 1024);
    for (
      const headers of [{}, { "Content-Length": "10" }] as Record<
        string,
        string
      >[]
    ) {
      const res = await post(app, body, "application/json", headers);
      assert.equal(res.status, 413);
      assert.equal((await errorOf(res)).code, "PAYLOAD_TOO_LARGE");
    }
    assert.deepEqual(await heads(log), [0]);
    // A body of exactly the limit is fine.
    const exact = JSON.stringify([{ at: 1e12, pad: "" }]);
    const padded = exact.replace('""', `"${"p".repeat(1024 - exact.length)}"`);
    assert.equal(padded.length, 1024);
    assert.equal((await post(app, padded)).status, 202);
  },
  { maxBodyBytes: 1024 },
);

ingestTest(
  "POST /ingest/:stream stops reading an endless body at the limit",
  async ({ app }) => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("[" + " ".repeat(255)));
      },
    });
    const res = await post(app, endless);
    assert.equal(res.status, 413);
    await res.body?.cancel();
    assert.ok(pulled <= 10, `pulled ${pulled} chunks`);
  },
  { maxBodyBytes: 1024 },
);

ingestTest(
  "POST /ingest/:stream answers 400 for a Content-Length that is not a number",
  async ({ app }) => {
    const res = await post(app, "[]", "application/json", {
      "Content-Length": "lots",
    });
    assert.equal(res.status, 400);
    assert.equal((await errorOf(res)).code, "BAD_REQUEST");
  },
);

ingestTest(
  "POST /ingest/:stream answers 404 for an unknown stream",
  async ({ app }) => {
    const res = await post(app, "[]", "application/json", {}, "/ingest/nope");
    assert.equal(res.status, 404);
    const error = await errorOf(res);
    assert.equal(error.code, "NOT_FOUND");
    assert.equal(
      error.message,
      `Cannot ingest into "nope" as no such stream exists`,
    );
    assert.deepEqual(error.details, { streams: ["clicks"] });
  },
);

ingestTest(
  "GET /ingest/:stream answers 405 with Allow: POST",
  async ({ app }) => {
    const res = await app.request("/ingest/clicks");
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("Allow"), "POST");
    assert.equal((await errorOf(res)).code, "METHOD_NOT_ALLOWED");
  },
);

ingestTest(
  "POST /ingest/:stream with a token answers 401 without it or with another, and 202 with it",
  async ({ app, log }) => {
    const body = '[{"at":1700000000000}]';
    for (
      const headers of [
        {},
        { Authorization: "Bearer wrong" },
        { Authorization: "Bearer s3cret-but-longer" },
        { Authorization: "Basic czNjcmV0" },
        { Authorization: "Bearer" },
        { Authorization: "s3cret" },
      ] as Record<string, string>[]
    ) {
      const res = await post(app, body, "application/json", headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.headers.get("WWW-Authenticate"), 'Bearer realm="weir"');
      assert.equal((await errorOf(res)).code, "UNAUTHORIZED");
    }
    // Unknown streams are not revealed without the token.
    const hidden = await post(app, body, "application/json", {}, "/ingest/x");
    assert.equal(hidden.status, 401);
    await hidden.body?.cancel();
    assert.deepEqual(await heads(log), [0]);
    for (const scheme of ["Bearer", "bearer"]) {
      const res = await post(app, body, "application/json", {
        Authorization: `${scheme} s3cret`,
      });
      assert.equal(res.status, 202);
      await res.body?.cancel();
    }
    assert.deepEqual(await heads(log), [2]);
  },
  { token: "s3cret" },
);

ingestTest(
  "POST /ingest/:stream warns by index about timestamps that look like seconds",
  async ({ app, log }) => {
    const res = await post(
      app,
      JSON.stringify([{ at: 1_700_000_000 }, { at: 1_700_000_000_000 }, {
        at: 0,
      }, { at: 99_999_999_999 }]),
    );
    assert.equal(res.status, 202);
    const body = await res.json();
    assert.equal(body.accepted, 4);
    assert.equal(body.warningCount, 2);
    assert.deepEqual(body.warnings.map((w: Issue) => [w.index, w.field]), [
      [0, "at"],
      [3, "at"],
    ]);
    assert.match(
      body.warnings[0].reason,
      /1700000000 looks like seconds; multiply by 1000/,
    );
    assert.deepEqual(await heads(log), [4]);
  },
);

ingestTest(
  "POST /ingest/:stream accepts an empty batch as a no-op",
  async ({ app, log }) => {
    for (
      const [body, type] of [["[]", "application/json"], [
        "\n\n",
        "application/x-ndjson",
      ], ["", "application/x-ndjson"]]
    ) {
      const res = await post(app, body, type);
      assert.equal(res.status, 202);
      assert.deepEqual(await res.json(), {
        accepted: 0,
        appended: 0,
        duplicate: false,
        offsets: [],
        warnings: [],
        warningCount: 0,
      });
    }
    assert.deepEqual(await heads(log), [0, 0]);
  },
  { partitions: 2 },
);

ingestTest(
  "POST /ingest/:stream routes records with equal keys to one partition and the others round-robin from 0",
  async ({ app, log }) => {
    const keyed = [1, 2, 3].map((i) => ({ at: 1e12 + i, key: "user-7" }));
    const res = await post(app, JSON.stringify(keyed));
    assert.equal(res.status, 202);
    const { offsets } = await res.json();
    assert.equal(offsets.length, 1);
    assert.deepEqual(
      { first: offsets[0].firstOffset, last: offsets[0].lastOffset },
      { first: 0, last: 2 },
    );
    const keyedPartition = offsets[0].partition;
    // Keyless records continue round-robin across requests: 0, 1, 2, 0, ...
    const keyless = (n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ at: 1e12 + i })));
    await (await post(app, keyless(2))).body?.cancel();
    await (await post(app, keyless(2))).body?.cancel();
    const stored = await readAll(log);
    const counts = stored.map((records) =>
      records.filter((r) => r.value.key === undefined).length
    );
    assert.deepEqual(counts, [2, 1, 1]);
    assert.equal(
      stored[keyedPartition].filter((r) => r.value.key === "user-7").length,
      3,
    );
  },
  { partitions: 3 },
);

Deno.test("createApp() refuses a body limit that is not a positive safe integer and an empty token", () => {
  const base = {
    jobs: new Map(),
    streams: new Map(),
    clock: new ManualClock(0),
  };
  for (const maxBodyBytes of [0, -1, 1.5, NaN]) {
    assert.throws(() => createApp({ ...base, maxBodyBytes }), {
      name: "RangeError",
      message: /'maxBodyBytes'/,
    });
  }
  for (const token of ["", "two words"]) {
    assert.throws(() => createApp({ ...base, token }), {
      name: "RangeError",
      message: /'token'/,
    });
  }
});
