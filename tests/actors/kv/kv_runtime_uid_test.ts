// The KV runtime's job record (what a worker compares before it resumes a
// job from the actors' committed state) leaves out the fingerprint's
// operators: names and uids are not part of the running actors' layout.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";

function job(uids: boolean) {
  const env = new StreamEnvironment({
    jobName: "edges",
    parallelism: 2,
    clock: new ManualClock(0),
  });
  const sink = new CollectSink<number>();
  const numbers = env.fromSource(
    new ScriptedSource([1, 2, 3, 4].map((n) => ({ at: n * 10, value: n }))),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  );
  const tens = numbers.keyBy((n) => n % 2).process<number, undefined>({
    processElement: (n, _ctx, out) => out(n * 10),
  });
  if (uids) {
    numbers.uid("numbers");
    tens.uid("tens").name("Times ten");
  }
  tens.sinkTo(sink);
  return { env, sink };
}

Deno.test("KvRuntime resumes a job in a database where it ran after its operators got uids and names: the job record ignores them", async () => {
  using kv = await Deno.openKv(":memory:");
  await job(false).env.createKvRuntime({ kv }).run();
  const renamed = job(true);
  const runtime = renamed.env.createKvRuntime({ kv });
  // The same job, already finished here: nothing runs again, nothing refused.
  await runtime.run();
  assert.equal(runtime.finished, true);
  assert.deepEqual(renamed.sink.values, []);
});
