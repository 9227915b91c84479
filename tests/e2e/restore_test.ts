// Crash and restore: the runtime is dropped between any two steps, a new one
// starts from the latest complete checkpoint, and the committed output equals
// a failure-free run.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import type { ScriptStep } from "../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ExternalTable, twoPhaseSink } from "../_support/two_phase_sink.ts";
import {
  drive,
  type Mode,
  type Reading,
  sensorJob,
} from "../_support/sensor_job.ts";

function readings(): ScriptStep<Reading>[] {
  const steps: ScriptStep<Reading>[] = [];
  for (let i = 0; i < 60; i++) {
    const at = i * 40;
    // Up to 150 ms out of order, within the 300 ms bound: no late records.
    steps.push({
      at,
      partition: i % 2,
      value: { sensor: i % 3, value: i, ts: at - (i * 37) % 150 },
    });
  }
  return steps;
}

function job(
  storage: MemoryStorage,
  clock: ManualClock,
  mode: Mode,
  table: ExternalTable<string>,
): StreamEnvironment {
  return sensorJob({
    storage,
    clock,
    mode,
    table,
    script: readings(),
    partitions: 2,
    parallelism: 2,
  });
}

async function failureFree(
  mode: Mode,
): Promise<{ rows: string[]; steps: number; checkpoints: number }> {
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  const runtime = job(storage, clock, mode, table).createRuntime();
  const steps = await drive(runtime, clock);
  return {
    rows: table.rows(),
    steps,
    checkpoints: runtime.latestCheckpoint?.id ?? 0,
  };
}

async function crashAfter(mode: Mode, steps: number): Promise<string[]> {
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  await drive(job(storage, clock, mode, table).createRuntime(), clock, steps);
  // Crash: the runtime and everything in memory is gone; storage and the
  // external table survive. A new process starts from the latest checkpoint.
  const env = job(storage, clock, mode, table);
  const checkpoint = await env.findCheckpoint();
  await drive(env.createRuntime(checkpoint ?? undefined), clock);
  return table.rows();
}

for (const mode of ["persist", "replay"] as const) {
  Deno.test(`Restoring after a crash at every step boundary gives the failure-free output (${mode} mode)`, async () => {
    const baseline = await failureFree(mode);
    assert.ok(baseline.rows.length >= 15, `${baseline.rows.length} results`);
    assert.ok(baseline.checkpoints >= 5, `${baseline.checkpoints} checkpoints`);
    for (let steps = 1; steps < baseline.steps; steps++) {
      assert.deepEqual(
        await crashAfter(mode, steps),
        baseline.rows,
        `crash after step ${steps}`,
      );
    }
  });
}

Deno.test("A restore refuses a checkpoint of another job, naming what differs", async () => {
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  const table = new ExternalTable<string>();
  await drive(job(storage, clock, "persist", table).createRuntime(), clock, 40);
  const other = new StreamEnvironment({
    jobName: "other",
    clock,
    checkpointStorage: storage,
  });
  other.fromCollection([1]).map((n) => n).sinkTo(
    twoPhaseSink(new ExternalTable<number>()),
  );
  await assert.rejects(() => other.findCheckpoint(), {
    name: "CheckpointMismatchError",
    message: /jobName is 'sensors' in the checkpoint, 'other' in this job/,
  });
});

Deno.test("A crash after a checkpoint is saved but before sinks commit loses nothing: the restore commits it again", async () => {
  const baseline = await failureFree("persist");
  for (const crashAtCheckpoint of [1, 3, 5]) {
    const table = new ExternalTable<string>();
    const clock = new ManualClock(0);
    const storage = new MemoryStorage();
    const env = job(storage, clock, "persist", table);
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
    const restarted = job(storage, clock, "persist", table);
    const checkpoint = await restarted.findCheckpoint();
    assert.equal(checkpoint?.id, crashAtCheckpoint);
    await drive(restarted.createRuntime(checkpoint!), clock);
    assert.deepEqual(
      table.rows(),
      baseline.rows,
      `crash at checkpoint ${crashAtCheckpoint}`,
    );
  }
});
