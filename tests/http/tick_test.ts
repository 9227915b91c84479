// POST /tick and the KV runtime's view in the app: a round of the worker on
// demand (guarded by the token), and /jobs answering from what the actors
// committed to KV.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { KvRuntimeView } from "../../src/actors/kv/kv_runtime_view.ts";
import { createApp } from "../../src/http/app.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";

async function setUp(token?: string) {
  const kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({
    jobName: "ticks",
    parallelism: 1,
    clock,
  });
  const sink = new CollectSink<number>();
  env.fromSource(
    new ScriptedSource([{ at: 0, value: 1 }, { at: 0, value: 2 }]),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).map((n) => n * 10).sinkTo(sink);
  const runtime = env.createKvRuntime({ kv });
  const view = new KvRuntimeView(runtime);
  const handle = new LocalJobHandle({
    runtime: view,
    graph: env.getJobGraph(),
    clock,
  });
  const app = createApp({
    jobs: new Map([["ticks", handle]]),
    streams: new Map(),
    clock,
    token,
    tick: () => runtime.tick(),
  });
  return { kv, app, sink, view, handle };
}

Deno.test("POST /tick runs one round of the KV-runtime worker and says whether it committed anything", async () => {
  const { kv, app, sink, view } = await setUp();
  try {
    const first = await app.request("/tick", { method: "POST" });
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { progressed: true });
    for (let i = 0; i < 20; i++) {
      await (await app.request("/tick", { method: "POST" })).json();
    }
    assert.deepEqual(sink.values, [10, 20]);
    await view.refresh();
    const [status] = view.status();
    assert.equal(status.id, "ticks/source-0/0");
    assert.equal(status.recordsIn, 2);
    assert.deepEqual(
      await (await app.request("/tick", { method: "POST" })).json(),
      { progressed: false },
    );
  } finally {
    kv.close();
  }
});

Deno.test("POST /tick needs the token when one is set", async () => {
  const { kv, app } = await setUp("s3cret");
  try {
    const denied = await app.request("/tick", { method: "POST" });
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    const allowed = await app.request("/tick", {
      method: "POST",
      headers: { authorization: "Bearer s3cret" },
    });
    assert.equal(allowed.status, 200);
    await allowed.body?.cancel();
  } finally {
    kv.close();
  }
});

Deno.test("GET /jobs/:job answers from the KV runtime's committed state", async () => {
  const { kv, app, view, handle } = await setUp();
  try {
    for (let i = 0; i < 20; i++) {
      await (await app.request("/tick", { method: "POST" })).json();
    }
    await view.refresh();
    handle.sample();
    const job = await (await app.request("/jobs/ticks")).json();
    assert.equal(job.recordsIn, 2);
    const [subtask] = job.operators[0].subtasks;
    assert.equal(subtask.recordsIn, 2);
    // The worker that holds the actor, in the JSON and on the dashboard.
    assert.equal(typeof subtask.worker, "string");
    const page = await (await app.request("/")).text();
    assert.ok(
      page.includes(` on ${subtask.worker}</td>`),
      "the dashboard names the worker",
    );
  } finally {
    kv.close();
  }
});

Deno.test("POST /jobs/:job/checkpoints asks the KV runtime's coordinator for one, with its id; a second while it runs is a conflict", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "cps", parallelism: 1, clock });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 50 }, (_, i) => ({ at: i * 100, value: i })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).sinkTo(new CollectSink<number>());
  const runtime = env.createKvRuntime({ kv });
  const view = new KvRuntimeView(runtime);
  const handle = new LocalJobHandle({
    runtime: view,
    graph: env.getJobGraph(),
    clock,
  });
  const app = createApp({
    jobs: new Map([["cps", handle]]),
    streams: new Map(),
    clock,
  });
  const post = () => app.request("/jobs/cps/checkpoints", { method: "POST" });
  await runtime.tick();
  await view.refresh();
  const first = await post();
  assert.equal(first.status, 202);
  assert.deepEqual(await first.json(), { id: 1 });
  const second = await post();
  assert.equal(second.status, 409);
  await second.body?.cancel();
  for (let i = 0; i < 10 && runtime.latestCheckpoint === null; i++) {
    await runtime.tick();
  }
  assert.equal(runtime.latestCheckpoint?.id, 1);
  await view.refresh();
  const third = await post();
  assert.deepEqual(await third.json(), { id: 2 });
});
