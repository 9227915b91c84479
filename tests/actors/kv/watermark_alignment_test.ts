// The schedule of the KV runtime's watermark alignment announcements; what
// they hold is checked on both runtimes by the conformance suite.

import assert from "node:assert/strict";
import { KvAlignment } from "../../../src/actors/kv/_watermark_alignment.ts";
import { wireActors } from "../../../src/actors/kv/_wiring.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import type { JobGraph } from "../../../src/runtime/job_graph.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";

function graph(aligned: boolean): JobGraph {
  const env = new StreamEnvironment({
    jobName: "j",
    parallelism: 1,
    clock: new ManualClock(0),
  });
  const monotonous = WatermarkStrategy.forMonotonousTimestamps<number>()
    .withTimestampAssigner((n) => n);
  const strategy = aligned
    ? monotonous.withWatermarkAlignment("g", 1_000, 100)
    : monotonous;
  env.fromSource(new ScriptedSource([{ at: 0, value: 1 }]), strategy, "src")
    .sinkTo(new CollectSink<number>());
  return env.getJobGraph();
}

Deno.test("KvAlignment is never due without aligned sources", () => {
  const job = graph(false);
  const announcer = new KvAlignment(job, wireActors(job));
  assert.equal(announcer.nextMs, Infinity);
  assert.equal(announcer.take(0), false);
  assert.equal(announcer.nextMs, Infinity);
});

Deno.test("KvAlignment.take() is true at once, then every update interval", () => {
  const job = graph(true);
  const announcer = new KvAlignment(job, wireActors(job));
  assert.equal(announcer.nextMs, -Infinity);
  assert.equal(announcer.take(0), true);
  assert.equal(announcer.nextMs, 100);
  assert.equal(announcer.take(99), false);
  assert.equal(announcer.take(150), true);
  assert.equal(announcer.nextMs, 250);
});
