// No record can kill a job, end to end: whole jobs on the
// LocalRuntime (executeAndCollect) fed records at and near both ends of the
// safe range. The source emits periodic watermarks between the records
// (ScriptedSource steps 1 s apart on the job's clock), so the generators,
// the valves, the window operators and the timers all see extreme values.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { DataStream } from "../../src/api/data_stream.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import type { WindowAssigner } from "../../src/windows/window_assigner.ts";

const MAX = Number.MAX_SAFE_INTEGER;
const MIN = Number.MIN_SAFE_INTEGER;
const END = 2 ** 53;

type Reading = { key: string; ts: number };

/**
 * A bounded source of `[key, ts]` readings, one per second on the job's
 * clock, dealt round-robin over `partitions` partitions.
 */
function readings(
  env: StreamEnvironment,
  items: Array<[string, number]>,
  partitions = 2,
): DataStream<Reading> {
  const script = items.map(([key, ts], i) => ({
    at: i * 1_000,
    partition: i % partitions,
    value: { key, ts },
  }));
  return env.fromSource(
    new ScriptedSource(script, { partitions }),
    WatermarkStrategy.forBoundedOutOfOrderness<Reading>(1_000)
      .withTimestampAssigner((r) => r.ts),
    "readings",
  );
}

/** Counts readings per key and window, rendered `key [start, end) n @ts`. */
async function windowCounts(
  assigner: WindowAssigner<Reading>,
  items: Array<[string, number]>,
  parallelism = 2,
  partitions = 2,
): Promise<string[]> {
  const env = new StreamEnvironment({
    jobName: "extreme",
    parallelism,
    clock: new ManualClock(),
  });
  const counts = readings(env, items, partitions).keyBy((r) => r.key).window(
    assigner,
  )
    .process<string>((key, ctx, elements, out) =>
      out(`${key} [${ctx.window.start}, ${ctx.window.end}) ${elements.length}`)
    );
  const records = await env.executeAndCollectRecords(counts);
  return records.map((r) => `${r.value} @${r.timestamp}`).sort();
}

const EXTREMES: Array<[string, number]> = [
  ["a", MIN],
  ["a", MIN + 5],
  ["b", 0],
  ["a", MAX - 5],
  ["a", MAX],
  ["b", MAX - 1],
];

Deno.test("A keyed tumbling-window count runs to the end over timestamps at both ends of the safe range", async () => {
  const expected = [
    `a [${MIN}, ${MIN + 991}) 2 @${MIN + 990}`,
    `a [9007199254740000, ${END}) 2 @${MAX}`,
    `b [0, 1000) 1 @999`,
    `b [9007199254740000, ${END}) 1 @${MAX}`,
  ].sort();
  assert.deepEqual(
    await windowCounts(TumblingEventTimeWindows.of(1_000), EXTREMES),
    expected,
  );
  assert.deepEqual(
    // One partition: its watermark (MIN - 1001 at first) is the source's.
    await windowCounts(TumblingEventTimeWindows.of(1_000), EXTREMES, 1, 1),
    expected,
  );
});

Deno.test("A keyed sliding-window count keeps the windows clipped at both ends apart", async () => {
  assert.deepEqual(
    await windowCounts(SlidingEventTimeWindows.of(1_000, 500), EXTREMES),
    [
      `a [${MIN}, ${MIN + 491}) 2 @${MIN + 490}`,
      `a [${MIN}, ${MIN + 991}) 2 @${MIN + 990}`,
      `a [9007199254740000, ${END}) 2 @${MAX}`,
      `a [9007199254740500, ${END}) 2 @${MAX}`,
      `b [-500, 500) 1 @499`,
      `b [0, 1000) 1 @999`,
      `b [9007199254740000, ${END}) 1 @${MAX}`,
      `b [9007199254740500, ${END}) 1 @${MAX}`,
    ].sort(),
  );
});

Deno.test("A keyed session-window count merges sessions that end past MAX_SAFE_INTEGER", async () => {
  assert.deepEqual(
    await windowCounts(EventTimeSessionWindows.withGap(1_000), EXTREMES),
    [
      `a [${MIN}, ${MIN + 1_005}) 2 @${MIN + 1_004}`,
      `a [${MAX - 5}, ${END}) 2 @${MAX}`,
      `b [0, 1000) 1 @999`,
      `b [${MAX - 1}, ${END}) 1 @${MAX}`,
    ].sort(),
  );
});

Deno.test("A window with allowed lateness past MAX_SAFE_INTEGER takes late records and sends later ones to the side output", async () => {
  const env = new StreamEnvironment({
    jobName: "late",
    clock: new ManualClock(),
  });
  const late = new OutputTag<Reading>("late");
  const sums = readings(env, [
    ["a", MIN + 20_000],
    ["a", MIN + 5], // too late: the watermark passed MIN + 990 + 5000
    ["a", MAX],
    ["a", MAX - 3], // within the bound: on time
    ["a", MAX - 3_000], // behind the watermark, within lateness: fires at once
  ], 1).keyBy((r) => r.key).window(TumblingEventTimeWindows.of(1_000))
    .allowedLateness(5_000).sideOutputLateData(late)
    .process<string>((_k, ctx, elements, out) =>
      out(`[${ctx.window.start}, ${ctx.window.end}) ${elements.length}`)
    );
  const lateSink = new CollectSink<Reading>();
  sums.getSideOutput(late).sinkTo(lateSink);
  const results = await env.executeAndCollectRecords(sums);
  assert.deepEqual(results.map((r) => `${r.value} @${r.timestamp}`), [
    `[${MIN + 19_991}, ${MIN + 20_991}) 1 @${MIN + 20_990}`,
    `[9007199254737000, 9007199254738000) 1 @9007199254737999`,
    `[9007199254740000, ${END}) 2 @${MAX}`,
  ]);
  assert.deepEqual(lateSink.values.map((r) => r.ts), [MIN + 5]);
});

Deno.test("Keyed process timers at and near both ends of the safe range fire in order, with valid timestamps", async () => {
  const env = new StreamEnvironment({
    jobName: "timers",
    parallelism: 2,
    clock: new ManualClock(),
  });
  const fired = readings(env, EXTREMES).keyBy((r) => r.key)
    .process<string, number>({
      processElement(reading, ctx) {
        ctx.registerEventTimeTimer(reading.ts);
        if (reading.ts === 0) {
          ctx.registerEventTimeTimer(MAX);
          ctx.registerEventTimeTimer(MIN);
        }
      },
      onTimer(timestamp, ctx, out) {
        out(`${ctx.key} ${timestamp} ${ctx.currentWatermark}`);
      },
    });
  const records = await env.executeAndCollectRecords(fired);
  for (const r of records) assert.ok(Number.isSafeInteger(r.timestamp));
  const byKey = (key: string) =>
    records.filter((r) => r.value.startsWith(key)).map((r) =>
      r.value.split(" ")[1]
    );
  assert.deepEqual(byKey("a"), [MIN, MIN + 5, MAX - 5, MAX].map(String));
  assert.deepEqual(byKey("b"), [MIN, 0, MAX - 1, MAX].map(String));
});

Deno.test("env.fromCollection() windows records at MIN_SAFE_INTEGER and MAX_SAFE_INTEGER", async () => {
  const env = new StreamEnvironment({
    jobName: "collection",
    clock: new ManualClock(),
  });
  const sums = env.fromCollection([MIN, MIN + 1, MAX - 1, MAX], {
    timestampOf: (ts) => ts,
  }).keyBy(() => "k").window(TumblingEventTimeWindows.of(60_000))
    .reduce((a, b) => Math.max(a, b));
  const records = await env.executeAndCollectRecords(sums);
  assert.deepEqual(records.map((r) => [r.value, r.timestamp]), [
    [MIN + 1, MIN + 990],
    [MAX, MAX],
  ]);
});
