// The KV runtime started over (KvRuntime.reset, as --restore none and
// --restore <id> do) on a store with history: its coordinator numbers
// checkpoints above every id the store ever held, so the job runs to the
// end instead of dying at its first checkpoint (ids only grow within a store).

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import {
  expectedSums,
  readSums,
  SUMS_CHECKPOINTS,
  SUMS_JOB,
  sumsCheckpointKeys,
  sumsJob,
  sumsStore,
} from "../../_support/sums_job.ts";

/**
 * Runs the job on one KV-runtime worker until the store holds checkpoint
 * `count`, then drops the worker (a crash) and resets the job's KV state.
 */
async function history(
  kv: Deno.Kv,
  clock: ManualClock,
  count = 4,
): Promise<void> {
  const worker = sumsJob(kv, clock).createKvRuntime({ kv, workerId: "w1" });
  while ((worker.latestCheckpoint?.id ?? 0) < count) {
    if (await worker.tick()) continue;
    clock.set(Math.max(worker.nextWakeup(), clock.now() + 1));
  }
  assert.ok((await readSums(kv)).size < expectedSums().size);
  await KvRuntime.reset(kv, SUMS_JOB);
}

/** Runs a fresh worker of the job to the end, from `restore`. */
async function runToEnd(
  kv: Deno.Kv,
  clock: ManualClock,
  restore: "latest" | "none" | number,
): Promise<KvRuntime> {
  const env = sumsJob(kv, clock);
  const checkpoint = await env.findCheckpoint(restore);
  const worker = env.createKvRuntime(
    { kv, workerId: "w2" },
    checkpoint ?? undefined,
  );
  await worker.run();
  assert.equal(worker.finished, true);
  return worker;
}

for (const restore of ["none", 2, "latest"] as const) {
  Deno.test(`KvRuntime started over from ${restore} on a store with history runs to the end, numbering checkpoints above the store's`, async () => {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    await history(kv, clock);
    const worker = await runToEnd(kv, clock, restore);
    assert.deepEqual(await readSums(kv), expectedSums());
    const ids = (await sumsStore(kv).list()).map((c) => c.id);
    assert.ok(ids.at(-1)! > 4, ids.join(" "));
    assert.equal(worker.latestCheckpoint?.id, ids.at(-1));
  });
}

Deno.test("KvRuntime started over after every manifest was overwritten with garbage runs to the end and deletes them", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  await history(kv, clock);
  for (const id of [2, 3, 4]) {
    await kv.set([...SUMS_CHECKPOINTS, "v", "cp", id, "m"], "garbage");
  }
  await assert.rejects(sumsJob(kv, clock).findCheckpoint(), {
    name: "UnreadableCheckpointsError",
  });
  await runToEnd(kv, clock, "none");
  assert.deepEqual(await readSums(kv), expectedSums());
  for (const id of [2, 3, 4]) {
    assert.deepEqual(await sumsCheckpointKeys(kv, id), []);
  }
});
