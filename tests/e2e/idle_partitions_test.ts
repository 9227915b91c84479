// Four source partitions, one silent. Without idleness the
// silent partition holds event time at -Infinity and no window fires; with
// withIdleness it is left out after the timeout; when it speaks again it
// holds the watermark back again.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { type TimedRecord, timedSink } from "../_support/timed_sink.ts";

const T0 = 1_700_000_000_000;
type Click = { ts: number; partition: number };

function script(resumeAt: number | null): ScriptStep<Click>[] {
  const steps: ScriptStep<Click>[] = [];
  for (let s = 0; s <= 40; s++) {
    for (const partition of [0, 1, 2]) {
      steps.push({
        at: s * 1_000,
        partition,
        value: { ts: T0 + s * 1_000, partition },
      });
    }
  }
  if (resumeAt !== null) {
    // The silent partition speaks for two seconds, with old event times.
    steps.push({
      at: resumeAt,
      partition: 3,
      value: { ts: T0 + 14_000, partition: 3 },
    });
    steps.push({
      at: resumeAt + 1_000,
      partition: 3,
      value: { ts: T0 + 15_000, partition: 3 },
    });
  }
  for (const partition of [0, 1, 2, 3]) {
    steps.push({ at: 45_000, partition, end: true });
  }
  return steps;
}

function build(idleTimeoutMs: number | null, resumeAt: number | null) {
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "idle", parallelism: 2, clock });
  let strategy = WatermarkStrategy.forBoundedOutOfOrderness<Click>(2_000)
    .withTimestampAssigner((c) => c.ts);
  if (idleTimeoutMs !== null) strategy = strategy.withIdleness(idleTimeoutMs);
  const fired: TimedRecord<number>[] = [];
  env.fromSource(
    new ScriptedSource(script(resumeAt), { partitions: 4 }),
    strategy,
    "clicks",
  )
    .keyBy((c) => c.partition)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate({
      createAccumulator: () => 0,
      add: (_c, n) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    })
    .sinkTo(timedSink(clock, fired));
  return { clock, runtime: env.createRuntime(), fired };
}

function advance(
  clock: ManualClock,
  runtime: LocalRuntime,
  until: number,
): void {
  for (let t = clock.now(); t <= until; t += 100) {
    clock.set(t);
    runtime.runUntilIdle();
  }
}

function windowWatermark(runtime: LocalRuntime): number {
  return Math.min(
    ...runtime.status().filter((s) => s.operator.startsWith("window")).map((
      s,
    ) => s.inputWatermark),
  );
}

Deno.test("A silent partition holds every window back when idleness is not configured", () => {
  const { clock, runtime, fired } = build(null, null);
  advance(clock, runtime, 40_000);
  assert.equal(fired.length, 0);
  assert.equal(windowWatermark(runtime), -Infinity);
});

Deno.test("withIdleness leaves a silent partition out after the timeout and windows fire", () => {
  const { clock, runtime, fired } = build(5_000, null);
  advance(clock, runtime, 13_000);
  // Partition 3 is idle after 5 s + up to 3 probes; the first window ends at
  // T0+10s and needs event time 12 s (bound 2 s) to fire.
  assert.ok(fired.length > 0, "the first window fired");
  assert.ok(fired.every((f) => f.timestamp === T0 + 9_999));
  assert.ok(
    fired[0].at >= 12_000 && fired[0].at <= 12_200,
    `fired at ${fired[0].at}`,
  );
});

Deno.test("A partition that resumes holds the watermark back again until it catches up or goes idle", () => {
  const { clock, runtime } = build(5_000, 20_000);
  advance(clock, runtime, 19_900);
  const before = windowWatermark(runtime);
  assert.equal(before, T0 + 19_000 - 2_001);
  advance(clock, runtime, 25_000);
  // Held: the resumed partition's watermark (15 s - 2 s) is below `before`,
  // so the merged watermark cannot advance although partitions 0-2 do.
  assert.equal(windowWatermark(runtime), before);
  advance(clock, runtime, 30_000);
  assert.ok(
    windowWatermark(runtime) > before,
    "moves on once it is idle again",
  );
});
