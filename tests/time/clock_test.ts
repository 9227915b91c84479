import assert from "node:assert/strict";
import { ManualClock, SystemClock } from "../../src/time/clock.ts";

Deno.test("ManualClock starts at the given time and advances only when told", () => {
  const clock = new ManualClock(42);
  assert.equal(clock.now(), 42);
  clock.advance(8);
  assert.equal(clock.now(), 50);
  clock.set(60);
  assert.equal(clock.now(), 60);
  assert.equal(new ManualClock().now(), 0);
});

Deno.test("ManualClock rejects going backwards or non-integer steps, naming 'ms'", () => {
  const clock = new ManualClock(100);
  assert.throws(() => clock.advance(-1), {
    name: "RangeError",
    message: /'ms'.*-1/,
  });
  assert.throws(() => clock.advance(0.5), {
    name: "RangeError",
    message: /'ms'.*0\.5/,
  });
  assert.throws(() => clock.set(99), {
    name: "RangeError",
    message: /'ms'.*99/,
  });
  assert.throws(() => new ManualClock(NaN), {
    name: "RangeError",
    message: /'start'.*NaN/,
  });
  assert.equal(clock.now(), 100);
});

Deno.test("SystemClock reads epoch milliseconds", () => {
  const now = new SystemClock().now();
  assert.ok(Number.isSafeInteger(now) && now > 1.7e12, `got ${now}`);
});
