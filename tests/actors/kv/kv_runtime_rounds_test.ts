// Rounds of a KV-runtime worker never overlap: run(), a Deno.cron tick and
// POST /tick may all call tick() at once, and each actor must still take
// one step at a time.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import { ExternalTable } from "../../_support/two_phase_sink.ts";
import { type Reading, sensorJob } from "../../_support/sensor_job.ts";
import type { ScriptStep } from "../../../src/connectors/sources/scripted.ts";

function readings(): ScriptStep<Reading>[] {
  const steps: ScriptStep<Reading>[] = [];
  for (let i = 0; i < 80; i++) {
    steps.push({
      at: i * 20,
      partition: i % 2,
      value: { sensor: i % 3, value: i, ts: i * 20 },
    });
  }
  return steps;
}

Deno.test("KvRuntime.tick() called three times at once runs the rounds one after the other: every result once", async () => {
  using kv = await Deno.openKv(":memory:");
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const env = sensorJob({
    storage: new MemoryStorage(),
    clock,
    mode: "persist",
    table,
    script: readings(),
    partitions: 2,
    parallelism: 2,
  });
  const runtime = env.createKvRuntime({ kv });
  for (let round = 0; round < 2_000 && !runtime.finished; round++) {
    const progressed = await Promise.all([
      runtime.tick(),
      runtime.tick(),
      runtime.tick(),
    ]);
    if (!progressed.some((p) => p)) {
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
  }
  assert.equal(runtime.finished, true);
  const sums = new Map<string, number>();
  for (const step of readings()) {
    if (!("value" in step)) continue;
    const key = `${step.value.sensor}@${Math.floor(step.value.ts / 500) * 500}`;
    sums.set(key, (sums.get(key) ?? 0) + step.value.value);
  }
  assert.deepEqual(
    table.rows(),
    [...sums].map(([k, v]) => JSON.stringify(`${k}=${v}`)).sort(),
  );
});
