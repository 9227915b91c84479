// The KV runtime's `watermarkRecovery: "replay"` (DESIGN "The KV runtime's
// protocol"): steps commit no event time; an actor taken over by another
// worker rebuilds it by reading its input again from its last checkpoint,
// so a record that was late stays late; channels keep the entries a
// replay needs, and nothing once the job is over. Deterministic: one
// ManualClock, one in-memory database shared by the workers.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import type { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import { KvStorage } from "../../../src/actors/kv/kv_storage.ts";
import type { ScriptStep } from "../../../src/connectors/sources/scripted.ts";
import { ExternalTable } from "../../_support/two_phase_sink.ts";
import {
  lateDataJob,
  type Mode,
  type Reading,
} from "../../_support/sensor_job.ts";

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

/** Ticks `runtime` (moving the clock when idle) until `until()` or the end. */
async function drive(
  runtime: KvRuntime,
  clock: ManualClock,
  until: () => Promise<boolean> = () => Promise.resolve(false),
): Promise<void> {
  for (let round = 0; !(await until()); round++) {
    assert.ok(round < 5_000 && clock.now() < 60_000, "the job must end");
    if (await runtime.tick()) continue;
    if (runtime.finished) return;
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
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
  await drive(
    a,
    world.clock,
    async () => (await inputWatermark(a, WINDOW)) >= 4_999,
  );
  const killedAt = world.clock.now();
  assert.ok(killedAt < 2_000, `worker a is killed at ${killedAt} ms`);
  const retained = await logEntries(kv);
  // Worker a dies as it is: leases held, memory gone.
  const b = worker(world, "b", mode);
  await drive(
    b,
    world.clock,
    () => Promise.resolve(b.ownedActors.length === 4),
  );
  const rebuilt = await inputWatermark(b, WINDOW);
  await drive(b, world.clock);
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
      await drive(
        a,
        world.clock,
        () => Promise.resolve(world.clock.now() >= 1_900),
      );
      const meta = (await new KvStorage(kv, [...BASE, "a", WINDOW]).get<
        { inputs: number[]; replayFrom: number[] }
      >(["meta"]))!;
      const kept = await logEntries(kv);
      const applied = meta.inputs[0];
      const from = meta.replayFrom[0];
      assert.ok(
        from >= 1 && from < applied,
        `checkpoint cut ${from}, applied ${applied}`,
      );
      const since = Array.from(
        { length: applied - from },
        (_, i) => from + 1 + i,
      );
      if (mode === "replay") {
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
  await drive(
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
