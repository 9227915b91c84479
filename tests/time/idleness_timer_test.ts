import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { IdlenessTimer } from "../../src/time/idleness_timer.ts";

function idleTimer(
  timeoutMs: number,
): { timer: IdlenessTimer; clock: ManualClock } {
  const clock = new ManualClock(1_000);
  const timer = new IdlenessTimer(clock, timeoutMs);
  assert.equal(timer.checkIfIdle(), false);
  clock.advance(timeoutMs + 1);
  assert.equal(timer.checkIfIdle(), true);
  return { timer, clock };
}

Deno.test("IdlenessTimer rejects a zero or negative timeout", () => {
  const clock = new ManualClock();
  assert.throws(() => new IdlenessTimer(clock, 0), {
    name: "RangeError",
    message: /'idleTimeoutMs'.*0/,
  });
  assert.throws(() => new IdlenessTimer(clock, -1), {
    name: "RangeError",
    message: /'idleTimeoutMs'.*-1/,
  });
});

Deno.test("IdlenessTimer.checkIfIdle() is false on a fresh timer", () => {
  assert.equal(new IdlenessTimer(new ManualClock(), 10).checkIfIdle(), false);
});

Deno.test("IdlenessTimer goes idle without events after the timeout (idle without events)", () => {
  idleTimer(10);
});

Deno.test("IdlenessTimer stays idle on repeated checks (repeated idle checks)", () => {
  const { timer, clock } = idleTimer(122);
  assert.equal(timer.checkIfIdle(), true);
  clock.advance(100);
  assert.equal(timer.checkIfIdle(), true);
});

Deno.test("IdlenessTimer is active again after activity (active after idleness)", () => {
  const { timer } = idleTimer(10);
  timer.activity();
  assert.equal(timer.checkIfIdle(), false);
});

Deno.test("IdlenessTimer restarts the countdown after idle-active-idle (idle-active-idle)", () => {
  const { timer, clock } = idleTimer(122);
  timer.activity();
  assert.equal(timer.checkIfIdle(), false);
  assert.equal(timer.checkIfIdle(), false); // restarts the countdown
  clock.advance(122);
  assert.equal(timer.checkIfIdle(), false);
  clock.advance(1);
  assert.equal(timer.checkIfIdle(), true);
});

Deno.test("IdlenessTimer needs strictly more than the timeout (boundary)", () => {
  const clock = new ManualClock(1_000);
  const timer = new IdlenessTimer(clock, 10);
  timer.checkIfIdle();
  clock.advance(10);
  assert.equal(timer.checkIfIdle(), false);
});

Deno.test("IdlenessTimer starts its countdown at clock time 0, unlike Flink's sentinel", () => {
  const clock = new ManualClock(0);
  const timer = new IdlenessTimer(clock, 10);
  timer.checkIfIdle();
  clock.advance(11);
  assert.equal(timer.checkIfIdle(), true);
});

Deno.test("IdlenessTimer.restoreState() resumes a running countdown: idle at the same probe as the original", () => {
  const clock = new ManualClock(1_000);
  const original = new IdlenessTimer(clock, 10);
  assert.equal(original.checkIfIdle(), false); // starts the countdown at 1000
  clock.advance(6);
  const restored = new IdlenessTimer(clock, 10);
  restored.restoreState(structuredClone(original.snapshotState()));
  clock.advance(4);
  assert.deepEqual([original.checkIfIdle(), restored.checkIfIdle()], [
    false,
    false,
  ]);
  clock.advance(1);
  assert.deepEqual([original.checkIfIdle(), restored.checkIfIdle()], [
    true,
    true,
  ]);
});

Deno.test("IdlenessTimer.restoreState() keeps activity seen since the last probe, so the next probe restarts the countdown", () => {
  const { timer, clock } = idleTimer(10);
  timer.activity();
  const restored = new IdlenessTimer(clock, 10);
  restored.restoreState(structuredClone(timer.snapshotState()));
  assert.deepEqual(timer.snapshotState(), {
    activity: true,
    countdownStart: 1_000,
  });
  clock.advance(100);
  assert.equal(restored.checkIfIdle(), false); // saw the activity
  assert.equal(restored.checkIfIdle(), false); // starts the countdown
  clock.advance(11);
  assert.equal(restored.checkIfIdle(), true);
});

Deno.test("IdlenessTimer.restoreState() rejects a malformed countdown, naming the field", () => {
  const timer = new IdlenessTimer(new ManualClock(0), 10);
  assert.throws(
    () =>
      timer.restoreState({
        activity: "yes" as unknown as boolean,
        countdownStart: null,
      }),
    { name: "TypeError", message: /'state\.activity'/ },
  );
  assert.throws(
    () =>
      timer.restoreState({
        activity: false,
        countdownStart: "0" as unknown as number,
      }),
    { name: "TypeError", message: /'state\.countdownStart'/ },
  );
});
