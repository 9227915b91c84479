import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";

Deno.test("PausableClock follows the underlying clock while running", () => {
  const wall = new ManualClock(500);
  const clock = new PausableClock(wall);
  wall.advance(20);
  assert.equal(clock.now(), 520);
  assert.equal(clock.paused, false);
});

Deno.test("PausableClock stands still while paused and subtracts paused time afterwards", () => {
  const wall = new ManualClock(0);
  const clock = new PausableClock(wall);
  wall.advance(10);
  clock.pause();
  wall.advance(1_000);
  assert.equal(clock.now(), 10);
  clock.resume();
  wall.advance(5);
  assert.equal(clock.now(), 15);
});

Deno.test("PausableClock stays paused until every pause is resumed", () => {
  const wall = new ManualClock(0);
  const clock = new PausableClock(wall);
  clock.pause();
  clock.pause();
  wall.advance(100);
  clock.resume();
  wall.advance(100);
  assert.equal(clock.now(), 0);
  assert.equal(clock.paused, true);
  clock.resume();
  wall.advance(7);
  assert.equal(clock.now(), 7);
});

Deno.test("PausableClock.resume() throws when the clock is not paused", () => {
  assert.throws(() => new PausableClock(new ManualClock()).resume(), {
    name: "RangeError",
    message: /pause count is 0/,
  });
});

Deno.test("PausableClock.restoreState() puts back the lag, so a restored clock reads as the original at the same underlying time", () => {
  const wall = new ManualClock(0);
  const clock = new PausableClock(wall);
  clock.pause();
  wall.advance(300);
  clock.resume();
  wall.advance(50);
  // A pause in force counts up to the snapshot.
  clock.pause();
  wall.advance(20);
  const snapshot = structuredClone(clock.snapshotState());
  assert.deepEqual(snapshot, { pausedMs: 320 });
  const restored = new PausableClock(wall);
  restored.restoreState(snapshot);
  assert.equal(restored.now(), clock.now());
  wall.advance(100);
  assert.equal(restored.now(), 150);
});

Deno.test("PausableClock.restoreState() keeps a pause in force, counting from the restore", () => {
  const wall = new ManualClock(1_000);
  const clock = new PausableClock(wall);
  clock.pause();
  wall.advance(50);
  clock.restoreState({ pausedMs: 400 });
  assert.equal(clock.now(), 650, "reads the underlying time minus the lag");
  wall.advance(100);
  assert.equal(clock.now(), 650);
  clock.resume();
  wall.advance(10);
  assert.equal(clock.now(), 660);
});

Deno.test("PausableClock.restoreState() rejects a negative or fractional lag, naming 'state.pausedMs'", () => {
  const clock = new PausableClock(new ManualClock(0));
  for (const pausedMs of [-1, 0.5]) {
    assert.throws(() => clock.restoreState({ pausedMs }), {
      name: "RangeError",
      message: /'state\.pausedMs'/,
    });
  }
});
