import assert from "node:assert/strict";
import { createApp } from "../../src/http/app.ts";
import { createJobContext, StreamEnvironment } from "../../src/mod.ts";
import { ManualClock } from "../../src/time/mod.ts";
import ingestCounts from "../../examples/ingest_counts.ts";

Deno.test("examples/ingest_counts.ts: its stream refuses a record without the key it keys by, at the door", async () => {
  using kv = await Deno.openKv(":memory:");
  const env = new StreamEnvironment({
    jobName: "ingest_counts",
    parallelism: 1,
    clock: new ManualClock(),
  });
  const { context, streams } = createJobContext(env, kv);
  ingestCounts(context);
  const app = createApp({
    jobs: new Map(),
    streams: new Map(streams.map((s) => [s.name, s])),
    clock: new ManualClock(0),
  });
  const post = (records: unknown[]) =>
    app.request("/ingest/events", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(records),
    });
  const keyless = await post([{ ts: 1_700_000_000_000 }]);
  assert.equal(keyless.status, 400);
  const { error } = await keyless.json();
  assert.equal(error.code, "INVALID_RECORDS");
  assert.deepEqual(
    error.details.errors.map((e: { field: string }) => e.field),
    ["key"],
  );
  const keyed = await post([{ key: "a", ts: 1_700_000_000_000 }]);
  assert.equal(keyed.status, 202);
  await keyed.body?.cancel();
});
