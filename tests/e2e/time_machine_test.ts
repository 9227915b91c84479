// The four test groups of the deterministic "time machine"
// source, through the DataStream API. One-minute tumbling windows counted
// over events one second apart, with 5 s of bounded out-of-orderness.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { type TimedRecord, timedSink } from "../_support/timed_sink.ts";

const T0 = Date.UTC(2024, 5, 15, 14, 0, 0);
const MINUTE = 60_000;

type Event = { ts: number };
type Fired = { start: string; count: number };

/** An event at `second` of event time, arriving at processing time `at`. */
function event(second: number, at = second * 1_000): ScriptStep<Event> {
  return { at, value: { ts: T0 + second * 1_000 } };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function hhmm(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

async function run(script: ScriptStep<Event>[]): Promise<{
  fired: TimedRecord<Fired>[];
  env: StreamEnvironment;
}> {
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "time-machine", clock });
  const fired: TimedRecord<Fired>[] = [];
  env.fromSource(
    new ScriptedSource(script),
    WatermarkStrategy.forBoundedOutOfOrderness<Event>(5_000)
      .withTimestampAssigner((e) => e.ts),
    "time machine",
  )
    .keyBy(() => "all")
    .window(TumblingEventTimeWindows.of(MINUTE))
    .aggregate<number, number, Fired>(
      {
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (_key, ctx, [count], out) =>
        out({ start: hhmm(ctx.window.start), count }),
    )
    .sinkTo(timedSink(clock, fired));
  await env.execute();
  return { fired, env };
}

Deno.test("time machine A (baseline): the 14:00 window fires once the watermark passes 14:01, about 5 s later", async () => {
  const { fired } = await run([...range(0, 70).map((s) => event(s)), {
    at: 80_000,
    end: true,
  }]);
  assert.deepEqual(fired.map((f) => f.value), [
    { start: "14:00", count: 60 },
    { start: "14:01", count: 11 },
  ]);
  // Event 14:01:05 arrives at 65 s; the next periodic watermark (200 ms) fires the window.
  assert.ok(
    fired[0].at >= 65_000 && fired[0].at <= 65_200,
    `fired at ${fired[0].at}`,
  );
  assert.equal(fired[0].timestamp, T0 + MINUTE - 1);
  assert.equal(
    fired[1].at,
    80_000,
    "the last window fires at the end of input",
  );
});

Deno.test("time machine B (late record): a record 30 s late is still counted while its window is open", async () => {
  const { fired } = await run([
    ...range(0, 59).map((s) => event(s)),
    event(30, 60_000),
    ...range(61, 70).map((s) => event(s)),
    { at: 80_000, end: true },
  ]);
  assert.deepEqual(fired[0].value, { start: "14:00", count: 61 });
  assert.ok(fired[0].at <= 65_200);
});

Deno.test("time machine C (frozen watermark): a record back at 14:00:00 does not move the watermark, and the window waits", async () => {
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "frozen", clock });
  const fired: TimedRecord<number>[] = [];
  env.fromSource(
    new ScriptedSource([
      ...range(0, 59).map((s) => event(s)),
      event(0, 60_000),
      { at: 120_000, end: true },
    ]),
    WatermarkStrategy.forBoundedOutOfOrderness<Event>(5_000)
      .withTimestampAssigner((e) => e.ts),
    "frozen",
  ).keyBy(() => "all").window(TumblingEventTimeWindows.of(MINUTE))
    .aggregate({
      createAccumulator: () => 0,
      add: (_e, n) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    })
    .sinkTo(timedSink(clock, fired));
  const runtime = env.createRuntime();
  for (let t = 0; t < 119_000; t += 100) {
    clock.set(t);
    runtime.runUntilIdle();
  }
  assert.equal(fired.length, 0);
  const window = runtime.status().find((s) => s.operator.startsWith("window"))!;
  assert.equal(window.inputWatermark, T0 + 59_000 - 5_000 - 1);
  await runtime.run();
  assert.deepEqual(fired.map((f) => [f.value, f.at]), [[61, 120_000]]);
});

Deno.test("time machine D (window jump): an event 5 minutes ahead fires the 14:00 window at once, and only it", async () => {
  const { fired } = await run([
    ...range(0, 59).map((s) => event(s)),
    event(300, 60_000),
    { at: 70_000, end: true },
  ]);
  assert.deepEqual(fired.map((f) => [f.value, f.at <= 60_200]), [
    [{ start: "14:00", count: 60 }, true],
    [{ start: "14:05", count: 1 }, false],
  ]);
});
