import assert from "node:assert/strict";
import { MAX_KEY_BYTES, resolveIngestKey } from "../../src/api/ingest_key.ts";
import { createJobContext } from "../../src/api/job_context.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ManualClock } from "../../src/time/clock.ts";

const action = "declare ingest stream 'clicks'";

Deno.test("resolveIngestKey() fills in key, string or number, optional, 1024 bytes", () => {
  assert.equal(MAX_KEY_BYTES, 1024);
  assert.deepEqual(resolveIngestKey(undefined, action), {
    field: "key",
    types: ["string", "number"],
    required: false,
    maxBytes: 1024,
  });
  assert.deepEqual(
    resolveIngestKey(
      { field: "user", types: ["boolean"], maxBytes: 64 },
      action,
    ),
    { field: "user", types: ["boolean"], required: false, maxBytes: 64 },
  );
});

Deno.test("resolveIngestKey() refuses an empty field, unknown or no types, and maxBytes outside 1..1024", () => {
  assert.throws(() => resolveIngestKey({ field: "" }, action), {
    name: "RangeError",
    message: /'key\.field'/,
  });
  for (const types of [[], ["object"], ["string", "null"]]) {
    assert.throws(
      () => resolveIngestKey({ types: types as never }, action),
      { name: "RangeError", message: /'key\.types'.*"string", "number"/ },
    );
  }
  for (const maxBytes of [0, 1025, 1.5, NaN]) {
    assert.throws(() => resolveIngestKey({ maxBytes }, action), {
      name: "RangeError",
      message: /'key\.maxBytes' must be an integer from 1 to 1024/,
    });
  }
  assert.throws(() => resolveIngestKey({ required: "yes" as never }, action), {
    name: "TypeError",
    message: /'key\.required'/,
  });
});

Deno.test("JobContext.ingest() declares the stream's key rule for the service", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const env = new StreamEnvironment({
      jobName: "clicks-job",
      clock: new ManualClock(0),
    });
    const { context, streams } = createJobContext(env, kv);
    context.ingest("clicks", {
      timestampField: "at",
      key: { field: "page", required: true },
    });
    assert.deepEqual(streams[0].key, {
      field: "page",
      types: ["string", "number"],
      required: true,
      maxBytes: 1024,
    });
    assert.throws(
      () =>
        context.ingest("bad", {
          timestampField: "at",
          key: { maxBytes: 4096 },
        }),
      {
        name: "RangeError",
        message: /declare ingest stream 'bad'.*'key\.maxBytes'/,
      },
    );
  } finally {
    kv.close();
  }
});
