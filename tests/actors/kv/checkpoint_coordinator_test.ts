// The KV runtime's checkpoint coordinator knows how long the checkpoints
// it completed took, from the start recorded in KV to the save.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { KvRuntimeView } from "../../../src/actors/kv/kv_runtime_view.ts";
import { sumsJob } from "../../_support/sums_job.ts";

Deno.test("KvRuntime.checkpointDurationMs() is the processing time from a checkpoint's start to its save, for those its coordinator completed", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const worker = sumsJob(kv, clock).createKvRuntime({ kv, workerId: "w1" });
  const startedAt = new Map<number, number>();
  while ((worker.latestCheckpoint?.id ?? 0) < 2) {
    const now = clock.now();
    const progressed = await worker.tick();
    const { pending } = await worker.checkpointProgress();
    if (pending !== null && !startedAt.has(pending)) {
      startedAt.set(pending, now);
    }
    // A millisecond per round: a checkpoint takes a few rounds.
    clock.set(progressed ? now + 1 : Math.max(worker.nextWakeup(), now + 1));
  }
  const latest = worker.latestCheckpoint!;
  const duration = latest.createdAt - startedAt.get(latest.id)!;
  assert.ok(duration > 0, `took ${duration} ms`);
  assert.equal(worker.checkpointDurationMs(latest.id), duration);
  assert.equal(worker.checkpointDurationMs(latest.id + 1), undefined);
  const view = new KvRuntimeView(worker);
  assert.equal(view.checkpointDurationMs(latest.id), duration);
});
