// kv.watch wakes a worker whose actor's producer runs elsewhere: with
// polling set to a minute, two workers sharing one database (two processes,
// or Deploy instances) finish a job in a moment only because each commit of
// a producer wakes the consumer's worker.

import assert from "node:assert/strict";
import { SystemClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";

Deno.test("A consumer in another worker is woken by kv.watch, not by polling", async () => {
  using kv = await Deno.openKv(":memory:");
  const sink = new CollectSink<number>();
  // Records over 1.5 s of real time, so that both workers take part.
  const t0 = Date.now();
  const script = Array.from({ length: 50 }, (_, i) => ({
    at: t0 + i * 30,
    value: i,
  }));
  const build = (withSink: boolean) => {
    const env = new StreamEnvironment({
      jobName: "watched",
      parallelism: 1,
      clock: new SystemClock(),
    });
    env.fromSource(
      new ScriptedSource(script),
      WatermarkStrategy.forMonotonousTimestamps<number>()
        .withTimestampAssigner((n) => n),
      "numbers",
    ).keyBy((n) => n % 3).process<number, undefined>({
      processElement: (n, _ctx, out) => out(n * 2),
    }).sinkTo(withSink ? sink : new CollectSink<number>());
    return env;
  };
  const options = { kv, leaseMs: 2_000, pollIntervalMs: 60_000 };
  const a = build(true).createKvRuntime({ ...options, workerId: "a" });
  const b = build(true).createKvRuntime({ ...options, workerId: "b" });
  const started = Date.now();
  const timeout = setTimeout(() => {
    a.stop();
    b.stop();
  }, 30_000);
  // Who runs the consumer (the process-and-sink subtask), sampled.
  const consumerOwners = new Set<string>();
  const sampling = setInterval(() => {
    for (const w of [a, b]) {
      if (w.ownedActors.includes("watched/process-1/0")) {
        consumerOwners.add(w.workerId);
      }
    }
  }, 20);
  try {
    await Promise.all([a.run(), b.run()]);
  } finally {
    clearTimeout(timeout);
    clearInterval(sampling);
  }
  // The consumer ran in the worker that does not run the source.
  assert.ok(consumerOwners.has("b"), `${[...consumerOwners]}`);
  assert.equal(a.finished && b.finished, true, "the job finished");
  assert.ok(Date.now() - started < 30_000, "well before the first poll");
  assert.deepEqual(
    sink.values.sort((x, y) => x - y),
    Array.from({ length: 50 }, (_, i) => i * 2),
  );
});
