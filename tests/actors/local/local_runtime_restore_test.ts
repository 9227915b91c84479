// The local runtime right after a persist-mode restore: status shows the
// restored event time, and watermark alignment goes on on the schedule of
// the run that took the checkpoint.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import type { LocalRuntime } from "../../../src/actors/local/local_runtime.ts";
import { eventTime, quietJob } from "../../_support/quiet_job.ts";

/** Steps the runtime, moving the clock when idle, until `until` ms. */
function runUntil(runtime: LocalRuntime, clock: ManualClock, until: number) {
  while (clock.now() < until) {
    if (runtime.step()) continue;
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
  runtime.runUntilIdle();
}

Deno.test("LocalRuntime.status() right after a persist-mode restore shows the restored watermarks and idleness of every subtask", async () => {
  const clock = new ManualClock(0);
  const first = quietJob(clock).createRuntime();
  runUntil(first, clock, 3_000);
  first.triggerCheckpoint();
  first.runUntilIdle();
  await first.flushCheckpoints();
  const before = eventTime(first.status());
  // Every subtask has seen event time, and the silent sources made it idle.
  assert.ok(before.every((s) => s.outputWatermark > 1_000), "watermarks");
  assert.ok(before.every((s) => s.idle), "idle");
  const restored = quietJob(new ManualClock(clock.now())).createRuntime(
    first.latestCheckpoint!,
  );
  assert.deepEqual(eventTime(restored.status()), before);
});
