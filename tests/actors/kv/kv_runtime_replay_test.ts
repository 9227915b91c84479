// The KV runtime's `watermarkRecovery: "replay"`: steps commit no event time; an actor taken over by another
// worker rebuilds it by reading its input again from its last checkpoint,
// so a record that was late stays late; channels keep the entries a
// replay needs, and nothing once the job is over. Deterministic: one
// ManualClock, one in-memory database shared by the workers.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../../src/windows/tumbling.ts";
import { KvStorage } from "../../../src/actors/kv/kv_storage.ts";
import type { ScriptStep } from "../../../src/connectors/sources/scripted.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";
import {
  lateDataJob,
  type Mode,
  type Reading,
} from "../../_support/sensor_job.ts";
import { driveKv } from "../../_support/drive_kv.ts";

const LEASE_MS = 1_000;
const BASE = ["weir", "late", "kvrt"];
const SOURCE = "late/source-0/0";
const WINDOW = "late/window-1/0";

// Ascending watermarks (periodic, every 200 ms), 1 s windows, a checkpoint
// every second. The record at 1.1 s moves event time to 4999 after the
// checkpoint at 1 s; the worker dies; the record at 3 s (ts 3500) is late
// only if the worker that takes over knows that.
const SCRIPT: ScriptStep<Reading>[] = [
  { at: 0, value: { sensor: 0, value: 1, ts: 100 } },
  { at: 1_100, value: { sensor: 0, value: 2, ts: 5_000 } },
  { at: 3_000, value: { sensor: 0, value: 4, ts: 3_500 } },
  { at: 3_100, value: { sensor: 0, value: 8, ts: 6_000 } },
];

interface World {
  kv: Deno.Kv;
  clock: ManualClock;
  storage: MemoryStorage;
  table: ExternalTable<string>;
  late: ExternalTable<string>;
}

/** A fresh clock, checkpoint storage and sinks around the database `kv`. */
function freshWorld(kv: Deno.Kv): World {
  return {
    kv,
    clock: new ManualClock(0),
    storage: new MemoryStorage(),
    table: new ExternalTable<string>(),
    late: new ExternalTable<string>(),
  };
}

function worker(
  world: World,
  id: string,
  mode: Mode,
  maxChannelLag?: number,
): KvRuntime {
  return lateDataJob({
    storage: world.storage,
    clock: world.clock,
    mode,
    table: world.table,
    late: world.late,
    script: SCRIPT,
    partitions: 1,
    parallelism: 1,
  }).createKvRuntime({
    kv: world.kv,
    workerId: id,
    leaseMs: LEASE_MS,
    maxChannelLag,
  });
}

async function inputWatermark(runtime: KvRuntime, id: string) {
  const status = (await runtime.status()).find((s) => s.id === id)!;
  return status.inputWatermark;
}

/** The entries of the source's output log still in KV, by sequence number. */
async function logEntries(kv: Deno.Kv): Promise<number[]> {
  const seqs: number[] = [];
  const prefix = [...BASE, "a", SOURCE, "v", "out", 0];
  for await (const entry of kv.list({ prefix }, { consistency: "strong" })) {
    seqs.push(entry.key[entry.key.length - 1] as number);
  }
  return seqs;
}

/** Runs worker A until the window actor has applied event time 4999, kills it, and lets worker B take over. */
async function takeOver(mode: Mode) {
  using kv = await Deno.openKv(":memory:");
  const world = freshWorld(kv);
  const a = worker(world, "a", mode);
  await driveKv(
    a,
    world.clock,
    async () => (await inputWatermark(a, WINDOW)) >= 4_999,
  );
  const killedAt = world.clock.now();
  assert.ok(killedAt < 2_000, `worker a is killed at ${killedAt} ms`);
  const retained = await logEntries(kv);
  // Worker a dies as it is: leases held, memory gone.
  const b = worker(world, "b", mode);
  await driveKv(
    b,
    world.clock,
    () => Promise.resolve(b.ownedActors.length === 4),
  );
  const rebuilt = await inputWatermark(b, WINDOW);
  await driveKv(b, world.clock);
  const left = await logEntries(kv);
  return {
    rows: world.table.rows(),
    late: world.late.rows(),
    rebuilt,
    retained,
    left,
  };
}

for (const mode of ["replay", "persist"] as const) {
  Deno.test(`KvRuntime (${mode} mode): a worker that takes over knows the event time of the one that died, so a late record stays late`, async () => {
    const result = await takeOver(mode);
    assert.equal(result.rebuilt, 4_999, "the window's event time on take-over");
    assert.deepEqual(result.late, ['"3500"']);
    assert.deepEqual(result.rows, ['"0=1"', '"5000=2"', '"6000=8"']);
    assert.deepEqual(result.left, [], "the job ends with empty channels");
  });
}

for (const mode of ["replay", "persist"] as const) {
  Deno.test(
    `KvRuntime (${mode} mode): a channel deletes the entries its consumer applied${
      mode === "replay" ? " up to its last checkpoint, not since" : ""
    }`,
    async () => {
      using kv = await Deno.openKv(":memory:");
      const world = freshWorld(kv);
      // A lag of 1: the source looks at what its consumer applied every step.
      const a = worker(world, "a", mode, 1);
      await driveKv(
        a,
        world.clock,
        () => Promise.resolve(world.clock.now() >= 1_900),
      );
      const meta = (await new KvStorage(kv, [...BASE, "a", WINDOW]).get<
        { inputs: number[]; replayFrom: number[] }
      >(["meta"]))!;
      const kept = await logEntries(kv);
      const applied = meta.inputs[0];
      if (mode === "replay") {
        const from = meta.replayFrom[0];
        assert.ok(
          from >= 1 && from < applied,
          `checkpoint cut ${from}, applied ${applied}`,
        );
        const since = Array.from(
          { length: applied - from },
          (_, i) => from + 1 + i,
        );
        // What a take-over reads again is there; what it never reads is not.
        assert.deepEqual(
          kept.filter((seq) => seq <= applied),
          since,
        );
      } else {
        assert.deepEqual(
          kept.filter((seq) => seq <= applied),
          [],
        );
      }
    },
  );
}

Deno.test("KvRuntime (replay mode): steps commit no event time", async () => {
  using kv = await Deno.openKv(":memory:");
  const world = freshWorld(kv);
  const a = worker(world, "a", "replay");
  await driveKv(
    a,
    world.clock,
    async () => (await inputWatermark(a, WINDOW)) >= 4_999,
  );
  // A second worker reads the window actor's committed state as it is.
  const state = await new KvStorage(kv, [...BASE, "a", WINDOW]).get<
    { valve?: unknown }
  >(["state"]);
  assert.ok(state !== undefined);
  assert.equal(state.valve, undefined, "no valve state in replay mode");
});

Deno.test("KvRuntime refuses to run a job in a database where it runs with the other watermarkRecovery", async () => {
  using kv = await Deno.openKv(":memory:");
  const world = freshWorld(kv);
  await worker(world, "a", "persist").tick();
  await assert.rejects(() => worker(world, "b", "replay").tick(), {
    name: "RangeError",
    message:
      /'watermarkRecovery' must match the job already running in this database \("persist"\): current value is "replay" \(.*--restore none/,
  });
});

/**
 * Two partitions into one window actor (parallelism 2): partition 1 says
 * one thing and is silent after, so `withIdleness` marks it idle once; at
 * 3 s only the window actor `window-1/0` is taken over (its lease handed
 * to a worker that died at once), so its upstream sends that idleness
 * never again. Returns the window actor's input watermark at 8 s and the
 * table.
 */
async function windowTakenOver(
  mode: Mode,
  checkpointIntervalMs: number,
): Promise<{ watermark: number; rows: string[] }> {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const script: ScriptStep<{ v: number; ts: number }>[] = [
    { at: 0, partition: 1, value: { v: -1, ts: 0 } },
    { at: 100_000, partition: 1, end: true },
  ];
  for (let i = 0; i < 100; i++) {
    script.push({ at: i * 100, partition: 0, value: { v: i, ts: i * 100 } });
  }
  const env = new StreamEnvironment({
    jobName: "idle",
    parallelism: 2,
    clock,
    checkpointIntervalMs,
    watermarkRecovery: mode,
    checkpointStorage: new MemoryStorage(),
  });
  env.fromSource(
    new ScriptedSource(script, { partitions: 2 }),
    WatermarkStrategy.forBoundedOutOfOrderness<{ v: number; ts: number }>(0)
      .withTimestampAssigner((r) => r.ts).withIdleness(300),
    "s",
  ).keyBy(() => 0).window(TumblingEventTimeWindows.of(1_000))
    .reduce<string>(
      (a, b) => ({ v: a.v + b.v, ts: a.ts }),
      (_k, ctx, [r], out) => out(`${ctx.window.start}=${r.v}`),
    )
    .sinkTo(twoPhaseSink(table));
  const runtime = env.createKvRuntime({ kv, workerId: "a", leaseMs: 1_000 });
  const until = async (ms: number) => {
    for (let round = 0; clock.now() < ms; round++) {
      assert.ok(round < 20_000, "the job must move");
      if (await runtime.tick()) continue;
      clock.set(Math.min(ms, Math.max(runtime.nextWakeup(), clock.now() + 1)));
    }
  };
  await until(3_000);
  const window = "idle/window-1/0";
  const key = ["weir", "idle", "kvrt", "lease", window];
  const lease = await kv.get<{ epoch: number }>(key);
  await kv.set(key, {
    owner: "gone",
    epoch: lease.value!.epoch + 1,
    expiresAt: clock.now() - 1,
  });
  await until(8_000);
  const watermark = (await runtime.status()).find((s) => s.id === window)!
    .inputWatermark;
  return { watermark, rows: table.rows() };
}

for (const mode of ["replay", "persist"] as const) {
  for (const checkpointIntervalMs of [500, 0]) {
    Deno.test(
      `KvRuntime (${mode} mode, ${
        checkpointIntervalMs === 0 ? "no checkpoints" : "checkpoints"
      }): an actor taken over alone still knows an input idle since before its last checkpoint`,
      async () => {
        const { watermark, rows } = await windowTakenOver(
          mode,
          checkpointIntervalMs,
        );
        assert.ok(watermark >= 7_000, `input watermark ${watermark} at 8 s`);
        // A two-phase sink commits at checkpoints (without, at the end).
        if (checkpointIntervalMs > 0) {
          assert.ok(rows.includes('"6000=645"'), rows.join(" "));
        }
      },
    );
  }
}

Deno.test("KvRuntime (replay mode, no checkpoints): a channel deletes what its consumer applied, as there is no checkpoint to read it again from", async () => {
  using kv = await Deno.openKv(":memory:");
  const world = freshWorld(kv);
  const env = lateDataJob({
    storage: world.storage,
    clock: world.clock,
    mode: "replay",
    table: world.table,
    late: world.late,
    script: SCRIPT,
    partitions: 1,
    parallelism: 1,
  });
  // The same job without checkpoints.
  const graph = env.getJobGraph();
  const runtime = new KvRuntime(graph, {
    kv,
    clock: world.clock,
    workerId: "a",
    watermarkRecovery: "replay",
    maxChannelLag: 1,
  });
  await driveKv(
    runtime,
    world.clock,
    () => Promise.resolve(world.clock.now() >= 1_900),
  );
  const meta = (await new KvStorage(kv, [...BASE, "a", WINDOW]).get<
    { inputs: number[] }
  >(["meta"]))!;
  const kept = await logEntries(kv);
  assert.ok(meta.inputs[0] >= 2, `applied ${meta.inputs[0]}`);
  assert.deepEqual(kept.filter((seq) => seq <= meta.inputs[0]), []);
});
