// Asynchronous operators in whole jobs: results always reach a downstream
// window before the watermark that closes it, and a held watermark survives
// a checkpoint, a crash and a restore.

import assert from "node:assert/strict";
import fc from "fast-check";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import type { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { DataStream } from "../../src/api/data_stream.ts";
import { ExternalTable, twoPhaseSink } from "../_support/two_phase_sink.ts";

type Event = { key: number; ts: number; hops: number };

/** Completes after `hops` microtask turns: a seeded, repeatable completion order. */
async function slowly(event: Event): Promise<Event> {
  for (let i = 0; i < event.hops; i++) await null;
  return event;
}

async function windowCounts(
  events: Event[],
  mode: "ordered" | "unordered" | "keyed",
): Promise<string[]> {
  const env = new StreamEnvironment({
    jobName: `async-${mode}`,
    parallelism: 2,
    clock: new ManualClock(),
  });
  const source = env.fromSource(
    new ScriptedSource(
      events.map((e, i) => ({ at: i * 10, partition: i % 2, value: e })),
      { partitions: 2 },
    ),
    WatermarkStrategy.forBoundedOutOfOrderness<Event>(100)
      .withTimestampAssigner((e) => e.ts),
    "events",
  );
  const results: DataStream<Event> = mode === "keyed"
    ? source.keyBy((e) => e.key).mapAsync(slowly)
    : source.mapAsync(slowly, { mode });
  const counts = results.keyBy((e) => e.key).window(
    TumblingEventTimeWindows.of(200),
  )
    .aggregate<number, number, string>(
      {
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (key, ctx, [n], out) => out(`${key}@${ctx.window.start}=${n}`),
    );
  return (await env.executeAndCollect(counts)).sort();
}

function expected(events: Event[]): string[] {
  const counts = new Map<string, number>();
  for (const e of events) {
    const id = `${e.key}@${e.ts - (e.ts % 200)}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts].map(([id, n]) => `${id}=${n}`).sort();
}

const eventsArbitrary = fc.array(
  fc.record({
    key: fc.integer({ min: 0, max: 3 }),
    jitter: fc.integer({ min: 0, max: 99 }),
    hops: fc.nat(40),
  }),
  { minLength: 1, maxLength: 60 },
).map((items) =>
  items.map((item, i) => ({
    key: item.key,
    ts: 1_000 + i * 10 - item.jitter,
    hops: item.hops,
  }))
);

for (const mode of ["ordered", "unordered", "keyed"] as const) {
  Deno.test(`A downstream window receives every async result before its closing watermark (${mode}, random completion orders)`, async () => {
    await fc.assert(
      fc.asyncProperty(eventsArbitrary, async (events) => {
        assert.deepEqual(await windowCounts(events, mode), expected(events));
      }),
      { seed: 42, numRuns: 25 },
    );
  });
}

/** Runs step by step, saving checkpoints after each step, until `until()` or the end. */
async function drive(
  runtime: LocalRuntime,
  clock: ManualClock,
  until: () => boolean = () => false,
): Promise<void> {
  while (!until()) {
    const worked = runtime.step();
    await runtime.flushCheckpoints();
    if (worked) continue;
    if (runtime.finished) return await runtime.run();
    await new Promise((resolve) => setTimeout(resolve, 0)); // let completions arrive
    if (runtime.step()) continue;
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
}

Deno.test("A checkpoint completes while a slow call holds a watermark; after a crash the re-run result comes before the held watermark", async () => {
  const script: ScriptStep<Event>[] = [
    { at: 0, value: { key: 0, ts: 1_000, hops: 0 } }, // A1: slow in the first run
    { at: 0, value: { key: 1, ts: 1_100, hops: 0 } }, // B1: fast
    { at: 100, value: { key: 1, ts: 2_500, hops: 0 } },
    { at: 1_000, value: { key: 1, ts: 4_000, hops: 0 } },
  ];
  const build = (
    storage: MemoryStorage,
    clock: ManualClock,
    table: ExternalTable<string>,
    slowA1: boolean,
  ) => {
    const env = new StreamEnvironment({
      jobName: "held",
      clock,
      checkpointIntervalMs: 250,
      watermarkRecovery: "persist",
      checkpointStorage: storage,
    });
    env.fromSource(
      new ScriptedSource(script),
      WatermarkStrategy.forMonotonousTimestamps<Event>().withTimestampAssigner((
        e,
      ) => e.ts),
      "events",
    )
      .keyBy((e) => e.key)
      .mapAsync((e) =>
        slowA1 && e.key === 0
          ? new Promise<Event>(() => {})
          : Promise.resolve(e)
      )
      .keyBy(() => "all")
      .window(TumblingEventTimeWindows.of(1_000))
      .aggregate<number, number, string>(
        {
          createAccumulator: () => 0,
          add: (_e, n) => n + 1,
          getResult: (n) => n,
          merge: (a, b) => a + b,
        },
        (_k, ctx, [n], out) => out(`${ctx.window.start}=${n}`),
      )
      .sinkTo(twoPhaseSink(table));
    return env;
  };

  const reference = new ExternalTable<string>();
  const refClock = new ManualClock(0);
  await drive(
    build(new MemoryStorage(), refClock, reference, false).createRuntime(),
    refClock,
  );
  assert.deepEqual(reference.rows(), ['"1000=2"', '"2000=1"', '"4000=1"']);

  const storage = new MemoryStorage();
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const first = build(storage, clock, table, true).createRuntime();
  await drive(first, clock, () => (first.latestCheckpoint?.id ?? 0) >= 2);
  const async = first.status().find((s) => s.operator.startsWith("async"))!;
  assert.equal(
    async.gauges.heldWatermarks > 0,
    true,
    "a watermark is held for A1",
  );
  assert.equal(async.gauges.asyncInFlight, 1);
  const held = Object.entries(first.latestCheckpoint!.subtasks).find(([id]) =>
    id.includes("async")
  )![1] as {
    operators: Array<{ pending: unknown[] }>;
  };
  assert.deepEqual(held.operators[0].pending[0], {
    value: { key: 0, ts: 1_000, hops: 0 },
    timestamp: 1_000,
  });
  // Crash; restart from the checkpoint, where A1 now answers at once.
  const env = build(storage, clock, table, false);
  await drive(env.createRuntime((await env.findCheckpoint())!), clock);
  assert.deepEqual(table.rows(), reference.rows());
});
