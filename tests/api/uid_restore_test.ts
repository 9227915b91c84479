// Restores of a changed job through StreamEnvironment.findCheckpoint(): the
// checkpoint store compares what each operator's state means, and
// checkpoints written before uids keep restoring vertex by vertex.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import { ExternalTable } from "../_support/two_phase_sink.ts";
import { drive } from "../_support/sensor_job.ts";
import {
  evolvingJob,
  type EvolvingJobOptions,
  evolvingResults,
} from "../_support/evolving_job.ts";

type Version = Omit<EvolvingJobOptions, "storage" | "clock" | "table">;

/** Runs `version` for 40 steps (several checkpoints), then drops it: a crash. */
async function crashed(version: Version) {
  const storage = new MemoryStorage();
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const env = evolvingJob({ storage, clock, table, ...version });
  await drive(env.createRuntime(), clock, 40);
  const next = (v: Version) => evolvingJob({ storage, clock, table, ...v });
  return { storage, clock, table, next };
}

Deno.test("StreamEnvironment.findCheckpoint() refuses a uid'd window whose size changed, naming its uid, both sizes and how to start over", async () => {
  const { next } = await crashed({ uids: true, parallelism: 2 });
  await assert.rejects(
    next({ uids: true, parallelism: 2, windowMs: 1_000 }).findCheckpoint(),
    {
      name: "CheckpointMismatchError",
      message:
        /: the state of operator 'sums' \(Window\) means something else: sizeMs is 500 in the checkpoint, 1000 in this job; to start over without its state, run with --restore none or execute\(\{ restore: "none" \}\)$/,
    },
  );
});

Deno.test("StreamEnvironment.findCheckpoint() refuses a uid moved from a window to a keyed process function, and a window of positional id whose size changed", async () => {
  const uids = await crashed({ uids: true, parallelism: 2 });
  await assert.rejects(
    uids.next({ uids: true, parallelism: 2, stateful: "process" })
      .findCheckpoint(),
    {
      name: "CheckpointMismatchError",
      message:
        /the state of operator 'sums' \(KeyedProcess\) means something else: operator is 'window' in the checkpoint, 'keyedProcess' in this job/,
    },
  );
  // Without uids the same check applies to positional ids: before uids this
  // restore was accepted and read 500 ms windows as 2 s ones.
  const positional = await crashed({ uids: false, parallelism: 2 });
  await assert.rejects(
    positional.next({ uids: false, parallelism: 2, windowMs: 2_000 })
      .findCheckpoint(),
    {
      name: "CheckpointMismatchError",
      message:
        /the state of operator 'window-1' \(Window\) means something else: sizeMs is 500 in the checkpoint, 2000 in this job/,
    },
  );
});

Deno.test("A checkpoint stored before uids (no operators in its fingerprint) is found and restored into the same job with uids added; a map added before the keyBy is refused as before", async () => {
  const { storage, clock, table, next } = await crashed({
    uids: false,
    parallelism: 2,
  });
  const latest =
    (await next({ uids: false, parallelism: 2 }).findCheckpoint())!;
  // Windows were open at the checkpoint: the restore matters.
  const slots = Object.values(latest.subtasks).flatMap((s) =>
    ((s as { operators?: { slots?: unknown[] }[] }).operators ?? [])
      .flatMap((op) => op?.slots ?? [])
  );
  assert.ok(slots.length > 0);
  // What weir stored before operators were part of the fingerprint.
  const { operators: _, ...legacy } = latest.fingerprint;
  await new CheckpointStore(storage).save({
    id: latest.id + 1,
    fingerprint: legacy,
    createdAt: latest.createdAt,
    subtasks: latest.subtasks,
  });
  await assert.rejects(
    next({ uids: true, parallelism: 2, extra: "before-keyBy" })
      .findCheckpoint(),
    {
      name: "CheckpointMismatchError",
      message:
        /: operator 'window-1' is missing in this job; operator 'window-2' is missing in the checkpoint; to start over/,
    },
  );
  const env = next({ uids: true, parallelism: 2 });
  const found = (await env.findCheckpoint())!;
  assert.equal(found.id, latest.id + 1);
  await drive(env.createRuntime(found), clock);
  assert.deepEqual(table.rows(), evolvingResults("window"));
});
