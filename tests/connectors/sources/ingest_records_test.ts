// What ingest accepts, every job can process: key types, key
// size and the timestamp range are checked at the door.

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  errorOf,
  ingestTest,
  postJson,
  readValues,
} from "../../http/_ingest_support.ts";
import { hashKey } from "../../../src/runtime/key_groups.ts";
import { KvTableSink } from "../../../src/connectors/sinks/kv_table.ts";
import { checkIngestRecords } from "../../../src/connectors/sources/ingest_records.ts";

const AT = 1_767_225_600_000;

ingestTest(
  "POST /ingest/:stream refuses null, object, array and boolean keys by default, naming the field, the type and the allowed types",
  async ({ app, log }) => {
    const res = await postJson(app, [
      { at: AT, key: "ok" },
      { at: AT, key: null },
      { at: AT, key: { user: 7 } },
      { at: AT, key: [1, 2] },
      { at: AT, key: true },
      { at: AT, key: 42 },
      { at: AT },
    ]);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.code, "INVALID_RECORDS");
    assert.deepEqual(
      error.details.errors.map((e) => [e.index, e.field]),
      [[1, "key"], [2, "key"], [3, "key"], [4, "key"]],
    );
    const reasons = error.details.errors.map((e) => e.reason);
    assert.match(reasons[0], /must be a string or number.*null of type null/);
    assert.match(reasons[1], /string or number.*an object of type object/);
    assert.match(reasons[2], /string or number.*of type array/);
    assert.match(reasons[3], /string or number.*true of type boolean/);
    assert.match(error.message, /record 1 field 'key' must be a string/);
    assert.deepEqual(await readValues(log), [[]]);
  },
);

ingestTest(
  "POST /ingest/:stream takes the key from the stream's key field, of its declared types, and requires it when told",
  async ({ app, log }) => {
    const refused = await postJson(app, [
      { at: AT, user: "u1" },
      { at: AT, user: 7, key: { ignored: "not the key field" } },
      { at: AT },
      { at: AT, user: false },
    ]);
    assert.equal(refused.status, 400);
    const error = await errorOf(refused);
    assert.deepEqual(
      error.details.errors.map((e) => [e.index, e.field]),
      [[1, "user"], [2, "user"]],
    );
    assert.match(
      error.details.errors[0].reason,
      /must be a string or boolean.*7 of type number/,
    );
    assert.match(
      error.details.errors[1].reason,
      /is missing; this stream requires a key: a string or boolean of at most 1024 bytes/,
    );
    const res = await postJson(app, [
      { at: AT, user: "u1" },
      { at: AT, user: false },
    ]);
    assert.equal(res.status, 202);
    const stored = (await readValues(log)).flat();
    assert.equal(stored.length, 2);
  },
  {
    stream: {
      key: { field: "user", types: ["string", "boolean"], required: true },
    },
  },
);

ingestTest(
  "POST /ingest/:stream refuses keys over 1024 bytes of UTF-8, and over a stream's lower maxBytes",
  async ({ app }) => {
    const at1024 = "é".repeat(512); // 2 bytes each
    const over = "é".repeat(512) + "x";
    const res = await postJson(app, [
      { at: AT, key: at1024 },
      { at: AT, key: over },
    ]);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.deepEqual(error.details.errors.map((e) => e.index), [1]);
    assert.match(
      error.details.errors[0].reason,
      /at most 1024 bytes in UTF-8.*2048.*current size is 1025 bytes/,
    );
    assert.equal((await postJson(app, [{ at: AT, key: at1024 }])).status, 202);
  },
);

ingestTest(
  "POST /ingest/:stream measures a key as Deno KV encodes it, a NUL as 2 bytes, so every accepted key fits a KvTableSink row",
  async ({ app, kv }) => {
    const at1024 = "\0".repeat(512);
    const over = "\0".repeat(1024);
    const res = await postJson(app, [
      { at: AT, key: at1024 },
      { at: AT, key: over },
    ]);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.deepEqual(error.details.errors.map((e) => e.index), [1]);
    assert.match(
      error.details.errors[0].reason,
      /each NUL character taking 2.*current size is 2048 bytes/,
    );
    assert.equal((await postJson(app, [{ at: AT, key: at1024 }])).status, 202);
    // The largest accepted key, as ingest_counts.ts stores its rows.
    const sink = new KvTableSink<{ id: string }>(kv, "event-counts", {
      key: (row) => row.id,
    });
    const writer = sink.createWriter(0, 1);
    writer.check!({ id: `${at1024}@${AT}` }, 0);
  },
);

ingestTest(
  "POST /ingest/:stream measures a number key by its JSON text against the stream's maxBytes",
  async ({ app }) => {
    const res = await postJson(app, [
      { at: AT, key: 1234 },
      { at: AT, key: 12345 },
      { at: AT, key: "abcde" },
    ]);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.deepEqual(error.details.errors.map((e) => e.index), [1, 2]);
    assert.match(error.details.errors[0].reason, /current size is 5 bytes/);
  },
  { stream: { key: { maxBytes: 4 } } },
);

ingestTest(
  "POST /ingest/:stream accepts timestamps from 0001-01-01 to 9999-12-31 and refuses others, naming the value and the range as ISO dates",
  async ({ app, log }) => {
    const MIN = -62135596800000;
    const MAX = 253402300799999;
    const res = await postJson(app, [
      { at: MIN },
      { at: MAX },
      { at: MIN - 1 },
      { at: MAX + 1 },
      { at: Number.MAX_SAFE_INTEGER },
    ]);
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.deepEqual(
      error.details.errors.map((e) => [e.index, e.field]),
      [[2, "at"], [3, "at"], [4, "at"]],
    );
    const range = "0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z";
    for (const e of error.details.errors) assert.ok(e.reason.includes(range));
    assert.match(
      error.details.errors[0].reason,
      /current value is -62135596800001 \(0000-12-31T23:59:59\.999Z\)/,
    );
    assert.match(
      error.details.errors[1].reason,
      /current value is 253402300800000 \(\+010000-01-01T00:00:00\.000Z\)/,
    );
    assert.match(error.details.errors[2].reason, /beyond any date/);
    assert.deepEqual(await readValues(log), [[]]);
    assert.equal((await postJson(app, [{ at: MIN }, { at: MAX }])).status, 202);
  },
);

ingestTest(
  "POST /ingest/:stream lists a record's timestamp and key problems together",
  async ({ app }) => {
    const res = await postJson(app, [{ at: "soon", key: [] }]);
    const error = await errorOf(res);
    assert.deepEqual(
      error.details.errors.map((e) => [e.index, e.field]),
      [[0, "at"], [0, "key"]],
    );
    assert.equal(error.details.errorCount, 2);
  },
);

ingestTest(
  "Every key POST /ingest/:stream accepts can be hashed by keyBy and fits the KV sinks' budget",
  async ({ app, log }) => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 700 })),
        async (key) => {
          const res = await postJson(app, [{ at: AT, key }]);
          await res.body?.cancel();
          assert.ok(res.status === 202 || res.status === 400);
        },
      ),
      { numRuns: 300, seed: 16 },
    );
    const stored = (await readValues(log)).flat();
    assert.ok(stored.length > 0);
    for (const { key } of stored) {
      assert.equal(typeof hashKey(key), "number", JSON.stringify(key));
      assert.ok(new TextEncoder().encode(String(key)).length <= 1024);
    }
  },
  { partitions: 3 },
);

Deno.test("checkIngestRecords() returns every problem, with NDJSON lines, without throwing", () => {
  const rules = {
    timestampField: "at",
    key: {
      field: "key",
      types: ["string"] as const,
      required: false,
      maxBytes: 1024,
    },
  };
  const checked = checkIngestRecords(
    [{ at: AT, key: "a" }, 7, { at: 1_700_000_000, key: 1 }],
    [1, 3, 4],
    rules,
  );
  assert.deepEqual(
    checked.errors.map((e) => [e.index, e.line, e.field]),
    [[1, 3, null], [2, 4, "key"]],
  );
  assert.deepEqual(
    checked.warnings.map((w) => [w.index, w.field]),
    [[2, "at"]],
  );
  assert.deepEqual(checked.timestamps[0], AT);
});
