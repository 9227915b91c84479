import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { AlignmentReporter } from "../../src/actors/alignment_reporter.ts";

function graph(aligned: boolean) {
  const env = new StreamEnvironment({
    jobName: "align",
    clock: new ManualClock(0),
    parallelism: 2,
  });
  const base = WatermarkStrategy.forMonotonousTimestamps<number>()
    .withTimestampAssigner((n) => n);
  const a = env.fromSource(
    new ScriptedSource([{ at: 0, value: 1 }]),
    aligned ? base.withWatermarkAlignment("g", 100, 50) : base,
    "a",
  );
  const b = env.fromSource(
    new ScriptedSource([{ at: 0, value: 1 }]),
    aligned ? base.withWatermarkAlignment("g", 100, 30) : base,
    "b",
  );
  a.union(b).sinkTo(new CollectSink());
  return env.getJobGraph();
}

Deno.test("AlignmentReporter announces nothing, and is never due, without aligned sources", () => {
  const reporter = new AlignmentReporter(graph(false));
  assert.equal(reporter.enabled, false);
  assert.equal(reporter.intervalMs, Infinity);
  assert.equal(reporter.nextMs, Infinity);
  assert.equal(reporter.due(1e12), false);
});

Deno.test("AlignmentReporter registers the aligned sources, with the smallest update interval, due at once until scheduled", () => {
  const reporter = new AlignmentReporter(graph(true));
  assert.equal(reporter.enabled, true);
  assert.equal(reporter.intervalMs, 30);
  assert.ok(reporter.isAligned("source-0") && reporter.isAligned("source-1"));
  assert.equal(reporter.due(-1e12), true);
  reporter.schedule(100);
  assert.equal(reporter.due(99), false);
  assert.equal(reporter.due(100), true);
});

Deno.test("AlignmentReporter.report() holds a group to its slowest subtask; finished counts as Infinity, no watermark yet as nothing", () => {
  const reporter = new AlignmentReporter(graph(true));
  const running = (w: number) => ({
    finished: false,
    currentWatermark: w,
    idle: false,
  });
  reporter.report("source-0", 0, running(1_000));
  reporter.report("source-0", 1, running(-Infinity));
  reporter.report("source-1", 0, running(400));
  reporter.report("source-1", 1, { ...running(5), finished: true });
  const limits: [string, number, number][] = [];
  reporter.announce((vertex, index, max) => limits.push([vertex, index, max]));
  assert.deepEqual(limits, [
    ["source-0", 0, 500],
    ["source-1", 0, 500],
    ["source-1", 1, 500],
  ]);
});

Deno.test("AlignmentReporter.take() is true when due and schedules the next an update interval later", () => {
  const reporter = new AlignmentReporter(graph(true));
  assert.equal(reporter.take(0), true);
  assert.equal(reporter.nextMs, 30);
  assert.equal(reporter.take(29), false);
  assert.equal(reporter.take(45), true);
  assert.equal(reporter.nextMs, 75);
  assert.equal(new AlignmentReporter(graph(false)).take(1e12), false);
});

Deno.test("AlignmentReporter.announceRound() reports the known states and limits only the subtasks this runtime runs", () => {
  const reporter = new AlignmentReporter(graph(true));
  const subtasks = [
    { vertex: "source-0", index: 0, watermark: 1_000 },
    { vertex: "source-0", index: 1, watermark: undefined },
    { vertex: "source-1", index: 0, watermark: 400 },
  ];
  const running = { maxDesiredWatermark: Infinity };
  reporter.announceRound(
    subtasks,
    (s) =>
      s.watermark === undefined
        ? undefined
        : { finished: false, currentWatermark: s.watermark, idle: false },
    (vertex, index) =>
      vertex === "source-1" && index === 0 ? running : undefined,
  );
  assert.equal(running.maxDesiredWatermark, 500);
});
