// Rescaling: a job checkpointed at parallelism 2 crashes and is restored
// at parallelism 3 or 1 (keyed windows by key group, read positions by
// partition, pending sink transactions handed over); the committed output
// equals a failure-free run at parallelism 2 (Flink's
// rescaling from a checkpoint).

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import type { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ExternalTable } from "../_support/two_phase_sink.ts";
import {
  drive,
  lateDataJob,
  type Mode,
  type Reading,
  READING_PARTITIONS as PARTITIONS,
  sensorJob,
  sensorReadings,
} from "../_support/sensor_job.ts";

// The source vertex's id in the plan (ids are numbered in the order operators are added).
const SOURCE = "source-0";

// Up to 150 ms out of order, within the 300 ms bound: no late records,
// whichever subtask reads a partition and whatever the interleaving.
const readings = () => sensorReadings(120);

function job(
  storage: MemoryStorage,
  clock: ManualClock,
  mode: Mode,
  table: ExternalTable<string>,
  parallelism: number,
): StreamEnvironment {
  return sensorJob({
    storage,
    clock,
    mode,
    table,
    script: readings(),
    partitions: PARTITIONS,
    parallelism,
  });
}

async function failureFree(
  mode: Mode,
): Promise<{ rows: string[]; steps: number; checkpoints: number }> {
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const runtime = job(new MemoryStorage(), clock, mode, table, 2)
    .createRuntime();
  const steps = await drive(runtime, clock);
  return {
    rows: table.rows(),
    steps,
    checkpoints: runtime.latestCheckpoint?.id ?? 0,
  };
}

/**
 * Runs at parallelism 2 for `steps` steps, crashes, and restores the latest
 * checkpoint at `parallelism`; returns the committed rows.
 */
async function rescaleAfter(
  mode: Mode,
  steps: number,
  parallelism: number,
): Promise<string[]> {
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  const first = job(storage, clock, mode, table, 2).createRuntime();
  await drive(first, clock, steps);
  // Sources still running: no sink has made its final commit yet (that
  // transaction is keyed by the subtask index, which a rescale reuses).
  const sources = first.status().filter((s) => s.operator === SOURCE);
  assert.ok(sources.every((s) => s.outputWatermark < Infinity));
  // Crash: the runtime and everything in memory is gone; storage and the
  // external table survive. A new process at another parallelism restores.
  const env = job(storage, clock, mode, table, parallelism);
  const checkpoint = await env.findCheckpoint();
  assert.ok(checkpoint !== null, `a checkpoint after ${steps} steps`);
  const restored = env.createRuntime(checkpoint);
  assert.equal(
    restored.status().filter((s) => s.operator === SOURCE).length,
    parallelism,
  );
  await drive(restored, clock);
  return table.rows();
}

for (const mode of ["persist", "replay"] as const) {
  for (const parallelism of [3, 1]) {
    Deno.test(`Restoring a checkpoint of parallelism 2 at parallelism ${parallelism} after a crash gives the failure-free output (${mode} mode)`, async () => {
      const baseline = await failureFree(mode);
      assert.ok(baseline.rows.length >= 30, `${baseline.rows.length} rows`);
      assert.ok(baseline.checkpoints >= 6, `${baseline.checkpoints} cps`);
      for (const fraction of [0.2, 0.35, 0.5, 0.6, 0.7, 0.8]) {
        const steps = Math.round(baseline.steps * fraction);
        assert.deepEqual(
          await rescaleAfter(mode, steps, parallelism),
          baseline.rows,
          `crash after step ${steps} of ${baseline.steps}`,
        );
      }
    });
  }
}

Deno.test("Rescaling twice, 2 to 3 then 3 to 1, gives the failure-free output (persist mode)", async () => {
  const baseline = await failureFree("persist");
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  let runtime = job(storage, clock, "persist", table, 2).createRuntime();
  for (const [parallelism, fraction] of [[3, 0.3], [1, 0.6]]) {
    await drive(runtime, clock, Math.round(baseline.steps * fraction));
    const env = job(storage, clock, "persist", table, parallelism);
    const checkpoint = (await env.findCheckpoint())!;
    // The second restore starts from a checkpoint taken at parallelism 3.
    const readers = Object.keys(checkpoint.subtasks).filter((id) =>
      id.startsWith(`sensors/${SOURCE}/`)
    );
    assert.equal(readers.length, parallelism === 3 ? 2 : 3);
    runtime = env.createRuntime(checkpoint);
  }
  await drive(runtime, clock);
  assert.deepEqual(table.rows(), baseline.rows);
});

Deno.test("A restore refuses a checkpoint that holds no snapshot of a vertex, naming it", async () => {
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  const env = job(storage, clock, "persist", new ExternalTable(), 2);
  await drive(env.createRuntime(), clock, 200);
  const checkpoint = (await env.findCheckpoint())!;
  const subtasks = Object.fromEntries(
    Object.entries(checkpoint.subtasks).filter(([id]) =>
      !id.startsWith(`sensors/${SOURCE}/`)
    ),
  );
  assert.throws(
    () => env.createRuntime({ ...checkpoint, subtasks }),
    { name: "RangeError", message: /snapshots of vertex 'source-0'/ },
  );
});

Deno.test("A crash after a checkpoint is saved but before sinks commit loses nothing at another parallelism: new subtask 0 commits every old writer's transactions again", async () => {
  const baseline = await failureFree("persist");
  for (const [crashAtCheckpoint, parallelism] of [[2, 3], [4, 1], [5, 3]]) {
    const table = new ExternalTable<string>();
    const clock = new ManualClock(0);
    const storage = new MemoryStorage();
    const env = job(storage, clock, "persist", table, 2);
    const store = new CheckpointStore(storage);
    const runtime = new LocalRuntime(env.getJobGraph(), {
      clock,
      checkpointIntervalMs: 250,
      watermarkRecovery: "persist",
      checkpointStore: {
        async save(checkpoint) {
          await store.save(checkpoint);
          if (checkpoint.id === crashAtCheckpoint) {
            throw new Error("crash before commit");
          }
        },
      },
    });
    await assert.rejects(() => drive(runtime, clock), {
      message: "crash before commit",
    });
    const restarted = job(storage, clock, "persist", table, parallelism);
    const checkpoint = await restarted.findCheckpoint();
    assert.equal(checkpoint?.id, crashAtCheckpoint);
    await drive(restarted.createRuntime(checkpoint!), clock);
    assert.deepEqual(
      table.rows(),
      baseline.rows,
      `crash at checkpoint ${crashAtCheckpoint}, restored at ${parallelism}`,
    );
  }
});

Deno.test("Persist mode keeps a late-data decision across a restore at another parallelism", async () => {
  async function run(parallelism: number) {
    const clock = new ManualClock(0);
    const storage = new MemoryStorage();
    const table = new ExternalTable<string>();
    const late = new ExternalTable<string>();
    const r = (ts: number): Reading => ({ sensor: 0, value: ts, ts });
    const build = (parallelism: number) =>
      lateDataJob({
        storage,
        clock,
        mode: "persist",
        table,
        late,
        partitions: 2,
        parallelism,
        script: [
          { at: 0, partition: 0, value: r(1_000) },
          { at: 0, partition: 1, value: r(1_001) },
          { at: 100, partition: 0, value: r(3_000) },
          { at: 100, partition: 1, value: r(3_001) },
          // After the checkpoint at 1000 ms, for the window [1000, 2000)
          // that the watermark (2999) already closed.
          { at: 1_100, partition: 0, value: r(1_500) },
          { at: 1_500, partition: 0, value: r(5_000) },
          { at: 1_500, partition: 1, value: r(5_001) },
        ],
      });
    const first = build(2).createRuntime();
    while (clock.now() < 1_000 || first.latestCheckpoint === null) {
      if (!first.step()) {
        clock.set(Math.max(first.nextWakeup(), clock.now() + 1));
      }
      await first.flushCheckpoints();
    }
    const env = build(parallelism);
    await drive(env.createRuntime((await env.findCheckpoint())!), clock);
    return { rows: table.rows(), late: late.rows() };
  }
  for (const parallelism of [1, 3]) {
    const { rows, late } = await run(parallelism);
    assert.deepEqual(late, ['"1500"'], `at parallelism ${parallelism}`);
    assert.deepEqual(rows, ['"1000=2001"', '"3000=6001"', '"5000=10001"']);
  }
});
