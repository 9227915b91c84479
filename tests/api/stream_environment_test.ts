import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";

type Bid = { auction: number; price: number; ts: number };

function bids(n: number): Bid[] {
  const out: Bid[] = [];
  let seed = 3;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    // Roughly ascending event time, up to 3 s out of order.
    out.push({
      auction: seed % 17,
      price: seed % 1_000,
      ts: i * 50 - (seed % 3_000),
    });
  }
  return out;
}

async function pipeline(parallelism: number): Promise<string[]> {
  const env = new StreamEnvironment({
    jobName: "bids",
    parallelism,
    clock: new ManualClock(),
  });
  const source = env.fromSource(
    new ScriptedSource(
      bids(2_000).map((bid, i) => ({ at: i, partition: i % 4, value: bid })),
      { partitions: 4 },
    ),
    WatermarkStrategy.forBoundedOutOfOrderness<Bid>(3_000)
      .withTimestampAssigner((b) => b.ts),
    "bids",
  );
  const maxPerWindow = source
    .filter((b) => b.price > 10)
    .map((b) => ({ ...b, price: b.price * 2 }))
    .keyBy((b) => b.auction)
    .window(SlidingEventTimeWindows.of(10_000, 5_000))
    .reduce<string>(
      (a, b) => (a.price >= b.price ? a : b),
      (key, ctx, [max], out) => out(`${key}|${ctx.window.start}|${max.price}`),
    );
  return (await env.executeAndCollect(maxPerWindow)).sort();
}

Deno.test("StreamEnvironment: the same pipeline gives the same results at parallelism 1, 2 and 4", async () => {
  const one = await pipeline(1);
  assert.ok(one.length > 100, `${one.length} results`);
  assert.deepEqual(await pipeline(2), one);
  assert.deepEqual(await pipeline(4), one);
});

Deno.test("StreamEnvironment.fromCollection() fires every window at the end of input", async () => {
  const env = new StreamEnvironment({
    jobName: "c",
    parallelism: 3,
    clock: new ManualClock(),
  });
  const sums = env.fromCollection([1, 2, 3, 4, 5, 6], {
    timestampOf: (n) => n * 1_000,
  })
    .keyBy((n) => n % 2)
    .window(TumblingEventTimeWindows.of(4_000))
    .reduce((a, b) => a + b);
  const records = await env.executeAndCollectRecords(sums);
  assert.deepEqual(
    records.map((r) => `${r.value}@${r.timestamp}`).sort(),
    ["10@7999", "2@3999", "4@3999", "5@7999"].sort(),
  );
});

Deno.test("StreamEnvironment: late records reach the side output of the window", async () => {
  const clock = new ManualClock();
  const env = new StreamEnvironment({ jobName: "late", clock });
  const late = new OutputTag<Bid>("late");
  const script = [
    { at: 0, value: { auction: 1, price: 1, ts: 1_000 } },
    { at: 1, value: { auction: 1, price: 2, ts: 20_000 } },
    // Arrives after the watermark passed 10 s: too late for [0, 10s).
    { at: 500, value: { auction: 1, price: 3, ts: 2_000 } },
  ];
  const windows = env.fromSource(
    new ScriptedSource(script),
    WatermarkStrategy.forMonotonousTimestamps<Bid>().withTimestampAssigner((
      b,
    ) => b.ts),
    "bids",
  ).keyBy((b) => b.auction).window(TumblingEventTimeWindows.of(10_000))
    .sideOutputLateData(late)
    .reduce((a, b) => ({ ...a, price: a.price + b.price }));
  const lateSink = new CollectSink<Bid>();
  windows.getSideOutput(late).sinkTo(lateSink);
  const results = await env.executeAndCollect(windows);
  assert.deepEqual(results.map((b) => b.price), [1, 2]);
  assert.deepEqual(lateSink.values.map((b) => b.price), [3]);
});

Deno.test("StreamEnvironment: union merges streams and sessions merge across them", async () => {
  const env = new StreamEnvironment({
    jobName: "u",
    parallelism: 2,
    clock: new ManualClock(),
  });
  const a = env.fromCollection([1_000, 2_000], { timestampOf: (t) => t });
  const b = env.fromCollection([2_500, 9_000], { timestampOf: (t) => t });
  const sessions = a.union(b).keyBy(() => "k").window(
    EventTimeSessionWindows.withGap(1_000),
  )
    .process<string>((_k, ctx, elements, out) =>
      out(`${ctx.window.start}-${ctx.window.end}:${elements.length}`)
    );
  assert.deepEqual((await env.executeAndCollect(sessions)).sort(), [
    "1000-3500:3",
    "9000-10000:1",
  ]);
});

Deno.test("StreamEnvironment chains operators of equal parallelism into one vertex", () => {
  const env = new StreamEnvironment({
    jobName: "chain",
    parallelism: 2,
    clock: new ManualClock(),
  });
  env.fromCollection([1, 2, 3]).map((n) => n + 1).filter((n) => n > 2)
    .keyBy((n) => n).window(TumblingEventTimeWindows.of(10)).reduce((a, b) =>
      a + b
    )
    .map(String).setParallelism(1)
    .sinkTo(new CollectSink());
  const graph = env.getJobGraph();
  assert.deepEqual(graph.vertices.map((v) => [v.name, v.parallelism]), [
    ["Collection -> Map -> Filter", 2],
    ["Window", 2],
    ["Map -> Sink: collect", 1],
  ]);
  assert.deepEqual(graph.edges.map((e) => `${e.from}->${e.to}`), [
    "source-0->window-3",
    "window-3->map-4",
  ]);
});

Deno.test("StreamEnvironment rejects bad options and parallelism, naming them", () => {
  assert.throws(() => new StreamEnvironment({ jobName: "" }), {
    name: "RangeError",
    message: /'jobName'/,
  });
  assert.throws(() => new StreamEnvironment({ jobName: "j", parallelism: 0 }), {
    name: "RangeError",
    message: /'parallelism'.*0/,
  });
  assert.throws(
    () => new StreamEnvironment({ jobName: "j", parallelism: 200 }),
    {
      name: "RangeError",
      message: /'parallelism'.*200/,
    },
  );
  assert.throws(
    () =>
      new StreamEnvironment({
        jobName: "j",
        errorPolicy: "retry" as unknown as "fail",
      }),
    {
      name: "RangeError",
      message:
        /'errorPolicy' must be "fail" or "dead-letter": current value is "retry"/,
    },
  );
  const env = new StreamEnvironment({ jobName: "j" });
  assert.throws(() => env.fromCollection([1]).setParallelism(129), {
    name: "RangeError",
    message: /'parallelism'.*129/,
  });
});

Deno.test("StreamEnvironment.ingestionTime() stamps records with the clock when the source reads them", async () => {
  const clock = new ManualClock(5_000);
  const env = new StreamEnvironment({ jobName: "ingest", clock });
  const stream = env.fromSource(
    new ScriptedSource([{ at: 5_000, value: "a" }, { at: 7_000, value: "b" }]),
    env.ingestionTime<string>(),
    "ingest",
  );
  const records = await env.executeAndCollectRecords(stream);
  assert.deepEqual(records.map((r) => [r.value, r.timestamp]), [["a", 5_000], [
    "b",
    7_000,
  ]]);
});

Deno.test('StreamEnvironment: withWatermarkPolicy("max") lets the fastest input drive a union\'s windows', async () => {
  async function run(policy: "min" | "max"): Promise<string[]> {
    const clock = new ManualClock(0);
    const env = new StreamEnvironment({ jobName: `policy-${policy}`, clock });
    const strategy = WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n);
    const fast = env.fromSource(
      new ScriptedSource([{ at: 0, value: 1_000 }, { at: 100, value: 30_000 }, {
        at: 5_000,
        value: 31_000,
      }]),
      strategy,
      "fast",
    );
    const slow = env.fromSource(
      new ScriptedSource([
        { at: 0, value: 2_000 },
        { at: 1_000, value: 5_000 },
        { at: 5_000, value: 6_000 },
      ]),
      strategy,
      "slow",
    );
    const fired: string[] = [];
    fast.union(slow).withWatermarkPolicy(policy).keyBy(() => "k")
      .window(TumblingEventTimeWindows.of(10_000))
      .process<string>((_k, ctx, elements, out) =>
        out(
          `${ctx.window.start}:${
            [...elements].sort((a, b) => a - b).join(",")
          }`,
        )
      )
      .sinkTo({
        name: "t",
        createWriter: () => ({
          write: (v) => v.forEach((x) => fired.push(`${x}@${clock.now()}`)),
        }),
      });
    await env.execute();
    return fired;
  }
  // min: [0, 10s) waits for the slow source, until the end of input.
  assert.deepEqual(await run("min"), [
    "0:1000,2000,5000,6000@5000",
    "30000:30000,31000@5000",
  ]);
  // max: the fast source's watermark closes [0, 10s) at once; 5000 and 6000 are late.
  const max = await run("max");
  assert.equal(max[0], "0:1000,2000@200");
});

Deno.test("StreamEnvironment.createKvRuntime() refuses mailboxCapacity, an option of the local runtime, by name", async () => {
  using kv = await Deno.openKv(":memory:");
  const env = new StreamEnvironment({
    jobName: "bounded",
    clock: new ManualClock(0),
    mailboxCapacity: 8,
  });
  env.fromCollection([1, 2]).sinkTo(new CollectSink<number>());
  assert.throws(() => env.createKvRuntime({ kv }), {
    name: "RangeError",
    message:
      /'mailboxCapacity' must be unset .*: current value is 8; the KV runtime's bound is 'maxChannelLag'/,
  });
});
