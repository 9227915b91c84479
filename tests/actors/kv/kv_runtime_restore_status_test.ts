// The KV runtime restores every actor's committed state when a worker
// activates it: right after a take-over, status shows the event time the
// actors hold, not -Infinity until the watermark next moves.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { eventTime, quietJob } from "../../_support/quiet_job.ts";

const LEASE_MS = 1_000;

Deno.test("KvRuntime.status() right after a take-over shows the watermarks and idleness the actors committed", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const first = quietJob(clock).createKvRuntime({
    kv,
    workerId: "a",
    leaseMs: LEASE_MS,
  });
  // Until the sources are silent and idle and nothing is left to do.
  for (let round = 0;; round++) {
    assert.ok(round < 10_000, "the job must go quiet");
    if (await first.tick()) continue;
    if (clock.now() >= 3_000) break;
    clock.set(Math.max(first.nextWakeup(), clock.now() + 1));
  }
  const before = eventTime(await first.status());
  assert.ok(before.every((s) => s.outputWatermark > 1_000), "watermarks");
  assert.ok(before.every((s) => s.idle), "idle");
  // Worker a dies holding its leases; b takes every actor once they expire.
  clock.set(clock.now() + LEASE_MS + 1);
  const second = quietJob(clock).createKvRuntime({
    kv,
    workerId: "b",
    leaseMs: LEASE_MS,
  });
  await second.tick();
  assert.equal(second.ownedActors.length, before.length);
  assert.deepEqual(eventTime(await second.status()), before);
});
