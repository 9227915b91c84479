import assert from "node:assert/strict";
import { ManualClock, SystemClock } from "../../src/time/clock.ts";
import { IdleClock } from "../../src/actors/idle_clock.ts";

Deno.test("IdleClock simulates a settable clock by default, moving it to the next timer and at least 1 ms on", () => {
  const clock = new ManualClock(100);
  const idle = new IdleClock(clock);
  assert.equal(idle.simulated, true);
  idle.advance(250);
  assert.equal(clock.now(), 250);
  idle.advance(250);
  assert.equal(clock.now(), 251);
  assert.equal(new IdleClock(clock, false).simulated, false);
});

Deno.test("IdleClock.sleep() ends at once on wake()", async () => {
  const idle = new IdleClock(new SystemClock());
  assert.equal(idle.simulated, false);
  const slept = idle.sleep(Infinity, 60_000);
  idle.wake();
  await slept;
  idle.wake(); // nothing to end: no effect
});
