// The schedule of the KV runtime's watermark alignment announcements; what
// they hold is checked on both runtimes by the conformance suite.

import assert from "node:assert/strict";
import { AlignmentAnnouncer } from "../../../src/actors/kv/_watermark_alignment.ts";
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

Deno.test("AlignmentAnnouncer is never due without aligned sources", () => {
  const job = graph(false);
  const announcer = new AlignmentAnnouncer(job, wireActors(job));
  assert.equal(announcer.nextAt, Infinity);
  assert.equal(announcer.due(0), false);
  assert.equal(announcer.nextAt, Infinity);
});

Deno.test("AlignmentAnnouncer.due() is true at once, then every update interval", () => {
  const job = graph(true);
  const announcer = new AlignmentAnnouncer(job, wireActors(job));
  assert.equal(announcer.nextAt, -Infinity);
  assert.equal(announcer.due(0), true);
  assert.equal(announcer.nextAt, 100);
  assert.equal(announcer.due(99), false);
  assert.equal(announcer.due(150), true);
  assert.equal(announcer.nextAt, 250);
});
