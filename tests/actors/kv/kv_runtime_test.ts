// KvRuntime's contract at its edges: options checked by name, a changed plan
// refused until the job's KV state is reset, reset() starting over, and a
// finished job's workers ending.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";

function job(parallelism: number, clock = new ManualClock(0)) {
  const env = new StreamEnvironment({ jobName: "edges", parallelism, clock });
  const sink = new CollectSink<number>();
  env.fromSource(
    new ScriptedSource([1, 2, 3, 4].map((n) => ({ at: n * 10, value: n }))),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).keyBy((n) => n % 2).process<number, undefined>({
    processElement: (n, _ctx, out) => out(n * 10),
  }).sinkTo(sink);
  return { env, sink };
}

Deno.test("new KvRuntime() names a bad option and its value", async () => {
  using kv = await Deno.openKv(":memory:");
  const graph = job(1).env.getJobGraph();
  const clock = new ManualClock(0);
  assert.throws(
    () => new KvRuntime(graph, { kv: {} as Deno.Kv, clock }),
    { name: "TypeError", message: /'kv' must be a Deno.Kv/ },
  );
  for (const param of ["leaseMs", "pollIntervalMs", "maxChannelLag"]) {
    assert.throws(
      () => new KvRuntime(graph, { kv, clock, [param]: 0 }),
      {
        name: "RangeError",
        message: new RegExp(
          `'${param}' must be a positive safe integer: current value is 0`,
        ),
      },
    );
  }
  assert.throws(
    () =>
      new KvRuntime(graph, {
        kv,
        clock,
        overlapSteps: "yes" as unknown as boolean,
      }),
    { name: "TypeError", message: /'overlapSteps' must be a boolean/ },
  );
});

Deno.test("A job runs to its end on one worker, which then owns nothing and reports finished", async () => {
  using kv = await Deno.openKv(":memory:");
  const { env, sink } = job(2);
  const runtime = env.createKvRuntime({ kv, workerId: "solo" });
  await runtime.run();
  assert.equal(runtime.finished, true);
  assert.deepEqual(sink.values.sort((a, b) => a - b), [10, 20, 30, 40]);
  assert.deepEqual(runtime.ownedActors, []);
  assert.equal(await runtime.tick(), false);
  // Everything it held was given up.
  for await (
    const entry of kv.list<{ expiresAt: number }>({
      prefix: ["weir", "edges", "kvrt", "lease"],
    })
  ) {
    assert.equal(entry.value.expiresAt, 0, String(entry.key.at(-1)));
  }
});

Deno.test("A changed plan is refused in a database where the job ran, until KvRuntime.reset()", async () => {
  using kv = await Deno.openKv(":memory:");
  await job(2).env.createKvRuntime({ kv }).run();
  const changed = job(3);
  await assert.rejects(() => changed.env.createKvRuntime({ kv }).run(), {
    name: "RangeError",
    message:
      /job 'edges' in the KV runtime as its plan must match the one already running in this database: current value differs \(start over with --restore none or KvRuntime.reset\(\)\)/,
  });
  const deleted = await KvRuntime.reset(kv, "edges");
  assert.ok(deleted > 0);
  await changed.env.createKvRuntime({ kv }).run();
  assert.deepEqual(changed.sink.values.sort((a, b) => a - b), [10, 20, 30, 40]);
});

Deno.test("A job already finished in the database is not run again by a new worker", async () => {
  using kv = await Deno.openKv(":memory:");
  await job(1).env.createKvRuntime({ kv }).run();
  const again = job(1);
  const runtime = again.env.createKvRuntime({ kv });
  await runtime.run();
  assert.equal(runtime.finished, true);
  assert.deepEqual(again.sink.values, []);
});

Deno.test("new KvRuntime() refuses a subtask whose step could not fit one KV commit, naming it and the numbers", () => {
  const wide = (parallelism: number, jobName = "w") => {
    const env = new StreamEnvironment({
      jobName,
      parallelism: 1,
      maxParallelism: 512,
      clock: new ManualClock(0),
    });
    env.fromSource(
      new ScriptedSource([{ at: 0, value: 1 }]),
      WatermarkStrategy.forMonotonousTimestamps<number>()
        .withTimestampAssigner((n) => n),
      "numbers",
    ).keyBy((n) => n).process<number, undefined>({
      processElement: (n, _ctx, out) => out(n),
    }).setParallelism(parallelism).sinkTo(new CollectSink<number>());
    return env.getJobGraph();
  };
  const kv = {} as Deno.Kv;
  Object.assign(kv, { atomic() {} });
  const clock = new ManualClock(0);
  // 250 channels fit with a short job name...
  new KvRuntime(wide(250), { kv, clock });
  // ...320 do not (mutations), nor 250 under a long job name (key bytes).
  assert.throws(() => new KvRuntime(wide(320), { kv, clock }), {
    name: "RangeError",
    message:
      /subtask 'w\/source-0\/0' must have few enough output channels .*: current value is 320 channels, up to 1032 mutations/,
  });
  assert.throws(
    () => new KvRuntime(wide(250, "x".repeat(60)), { kv, clock }),
    {
      name: "RangeError",
      message:
        /current value is 250 channels, up to 822 mutations and \d+ bytes of keys/,
    },
  );
});

Deno.test("KvRuntime.status() names the worker that holds each actor and counts the log entries waiting at its inputs", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const { env } = job(1, clock);
  const runtime = env.createKvRuntime({ kv, workerId: "w7" });
  // One round with every record due: the consumer steps first (nothing
  // yet), then the source writes its entries.
  clock.set(100);
  await runtime.tick();
  const statuses = await runtime.status();
  assert.deepEqual(statuses.map((s) => s.worker), ["w7", "w7"]);
  const consumer = statuses.find((s) => s.operator !== "source-0")!;
  assert.ok(consumer.mailboxDepth >= 1, `${consumer.mailboxDepth} waiting`);
  await runtime.tick();
  const after = (await runtime.status()).find((s) => s.id === consumer.id)!;
  assert.equal(after.mailboxDepth, 0);
});
