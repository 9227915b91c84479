// KeyedStream.process() in whole jobs: a join of two tagged streams (the
// shape of Nexmark q3's persons and auctions) that buffers auctions until
// their seller arrives and gives up on them after a timeout (an event-time
// timer), run at parallelism 1 and 2.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { DataStream } from "../../src/api/data_stream.ts";
import type { KeyedProcessFunction } from "../../src/runtime/operators/keyed_process.ts";

type Person = { kind: "person"; id: number; name: string; ts: number };
type Auction = {
  kind: "auction";
  item: string;
  seller: number;
  ts: number;
};
type Event = Person | Auction;
/** The seller's name once known, and the auctions waiting for it with their deadlines. */
type Seller = { name: string | null; pending: Array<[string, number]> };

const TIMEOUT_MS = 10_000;

const join: KeyedProcessFunction<Event, string, number, Seller> = {
  processElement(event, ctx, out) {
    const seller = ctx.state ?? { name: null, pending: [] };
    if (event.kind === "person") {
      for (const [item, deadline] of seller.pending) {
        out(`${item} by ${event.name}`);
        ctx.deleteEventTimeTimer(deadline);
      }
      ctx.setState({ name: event.name, pending: [] });
    } else if (seller.name !== null) {
      out(`${event.item} by ${seller.name}`);
    } else {
      const deadline = event.ts + TIMEOUT_MS;
      ctx.setState({
        name: null,
        pending: [...seller.pending, [event.item, deadline]],
      });
      ctx.registerEventTimeTimer(deadline);
    }
  },
  onTimer(timestamp, ctx, out) {
    const seller = ctx.state!;
    for (const [item, deadline] of seller.pending) {
      if (deadline === timestamp) out(`${item} unmatched (seller ${ctx.key})`);
    }
    const pending = seller.pending.filter(([, d]) => d !== timestamp);
    if (pending.length === 0) ctx.clearState();
    else ctx.setState({ ...seller, pending });
  },
};

function person(at: number, id: number, name: string, ts: number) {
  return { at, value: { kind: "person" as const, id, name, ts } };
}

function auction(at: number, item: string, seller: number, ts: number) {
  return { at, value: { kind: "auction" as const, item, seller, ts } };
}

function joinJob(parallelism: number): [StreamEnvironment, DataStream<string>] {
  const env = new StreamEnvironment({
    jobName: `join-${parallelism}`,
    parallelism,
    clock: new ManualClock(0),
  });
  const strategy = WatermarkStrategy.forMonotonousTimestamps<Event>()
    .withTimestampAssigner((e) => e.ts);
  const persons = env.fromSource(
    new ScriptedSource<Event>([
      person(100, 1, "alice", 1_000),
      person(500, 2, "bob", 5_000),
      // Eve moves the persons' watermark past auction "lamp"'s deadline
      // (12_500), so it times out before its seller, carol, arrives.
      person(2_000, 5, "eve", 20_000),
      person(4_000, 3, "carol", 30_000),
    ]),
    strategy,
    "persons",
  );
  const auctions = env.fromSource(
    new ScriptedSource<Event>([
      auction(0, "bike", 1, 500),
      auction(200, "desk", 2, 2_000),
      auction(300, "lamp", 3, 2_500),
      auction(600, "sofa", 1, 6_000),
      auction(2_100, "vase", 5, 21_000),
      auction(5_000, "clock", 3, 35_000),
      // Seller 9 never arrives: the final watermark fires its timer.
      auction(5_100, "piano", 9, 41_000),
    ]),
    strategy,
    "auctions",
  );
  const joined = persons.union(auctions)
    .keyBy((e) => e.kind === "person" ? e.id : e.seller)
    .process(join);
  return [env, joined];
}

const EXPECTED = [
  "bike by alice",
  "clock by carol",
  "desk by bob",
  "lamp unmatched (seller 3)@12500",
  "piano unmatched (seller 9)@51000",
  "sofa by alice",
  "vase by eve",
];

for (const parallelism of [1, 2]) {
  Deno.test(`KeyedStream.process() joins two tagged streams by key, buffering until the other side arrives and timing out on the watermark, at parallelism ${parallelism}`, async () => {
    const [env, joined] = joinJob(parallelism);
    const records = await env.executeAndCollectRecords(joined);
    assert.deepEqual(
      records.map((r) =>
        r.value.includes("unmatched") ? `${r.value}@${r.timestamp}` : r.value
      ).sort(),
      EXPECTED,
    );
  });
}

Deno.test("KeyedStream.process() keeps running state per key across subtasks and fires timers at the end of a bounded input", async () => {
  const env = new StreamEnvironment({
    jobName: "counts",
    parallelism: 2,
    clock: new ManualClock(),
  });
  const words = "a b c a b a d a".split(" ");
  const counts = env.fromCollection(words, { timestampOf: () => 1_000 })
    .keyBy((w) => w)
    .process<string, number>({
      processElement(_word, ctx) {
        if (ctx.state === undefined) ctx.registerEventTimeTimer(5_000);
        ctx.setState((ctx.state ?? 0) + 1);
      },
      onTimer(timestamp, ctx, out) {
        out(`${ctx.key}=${ctx.state} wm=${ctx.currentWatermark}@${timestamp}`);
      },
    });
  const records = await env.executeAndCollectRecords(counts);
  assert.deepEqual(
    records.map((r) => `${r.value}/${r.timestamp}`).sort(),
    [
      "a=4 wm=Infinity@5000/5000",
      "b=2 wm=Infinity@5000/5000",
      "c=1 wm=Infinity@5000/5000",
      "d=1 wm=Infinity@5000/5000",
    ],
  );
  assert.deepEqual(
    env.getJobGraph().vertices.map((v) => v.name),
    ["Collection", "KeyedProcess -> Sink: collect"],
  );
});

Deno.test("KeyedStream.process() rejects a function without processElement when the job is defined, naming it", () => {
  const env = new StreamEnvironment({ jobName: "bad" });
  const keyed = env.fromCollection([1]).keyBy((n) => n);
  assert.throws(() => keyed.process({} as never), {
    name: "TypeError",
    message: /'fn\.processElement'/,
  });
});
