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

/**
 * Runs the quiet job on one database; at `replaceAt` ms (once nothing is
 * left to do then) its worker is stopped and a new one goes on at the same
 * processing time. Returns when each source subtask's output went idle.
 */
async function idleTimes(replaceAt: number): Promise<number[]> {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  let workers = 0;
  const worker = () =>
    quietJob(clock).createKvRuntime({ kv, workerId: `w${workers++}` });
  let runtime = worker();
  const idleAt: number[] = [];
  for (let round = 0; idleAt.filter((t) => t > 0).length < 2; round++) {
    assert.ok(round < 10_000, "the sources must go idle");
    const progressed = await runtime.tick();
    const sources = (await runtime.status()).filter((s) =>
      s.operator === "source-0"
    );
    sources.forEach((s, i) => {
      if (s.idle && idleAt[i] === undefined) idleAt[i] = clock.now();
    });
    if (progressed) continue;
    const next = runtime.nextWakeup();
    if (clock.now() >= replaceAt && workers === 1) {
      runtime.stop();
      await runtime.run();
      runtime = worker();
    }
    clock.set(Math.max(next, clock.now() + 1));
  }
  runtime.stop();
  await runtime.run();
  return idleAt;
}

Deno.test("KvRuntime persists a periodic emission that only starts an idleness countdown, so a worker replaced mid-countdown goes idle when the first would have", async () => {
  const baseline = await idleTimes(Infinity);
  // Records until 950 ms, probes every 200 ms, idle after 500 ms of quiet.
  assert.deepEqual(baseline, [1_800, 1_800]);
  for (const replaceAt of [1_200, 1_300, 1_400, 1_600]) {
    assert.deepEqual(await idleTimes(replaceAt), baseline, `at ${replaceAt}`);
  }
});
