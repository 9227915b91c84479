// Driving a KV-runtime worker tick by tick on a ManualClock, as the KV
// runtime's tests do: the one loop they share.

import assert from "node:assert/strict";
import type { ManualClock } from "../../src/time/clock.ts";
import type { KvRuntime } from "../../src/actors/kv/kv_runtime.ts";

/**
 * Ticks `runtime` (moving the clock to its next wake-up when a tick
 * committed nothing) until `until()` holds or the job has finished; fails
 * if the job is still running after 10 000 rounds or 60 s of the clock (the
 * tests' jobs end within a few seconds, so it is stuck). Returns the ticks
 * that committed something.
 *
 * @param runtime The worker.
 * @param clock The clock it runs on.
 * @param until Stops the loop early when it holds (checked before each tick).
 * @param what Added to the failure message, e.g. " after the take-over".
 */
export async function driveKv(
  runtime: KvRuntime,
  clock: ManualClock,
  until: () => boolean | Promise<boolean> = () => false,
  what = "",
): Promise<number> {
  let progressed = 0;
  for (let round = 0; !(await until()); round++) {
    assert.ok(
      round < 10_000 && clock.now() < 60_000,
      `worker ${runtime.workerId} must finish the job${what}`,
    );
    if (await runtime.tick()) {
      progressed++;
      continue;
    }
    if (runtime.finished) break;
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
  return progressed;
}
