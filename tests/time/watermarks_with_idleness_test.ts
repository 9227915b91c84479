import assert from "node:assert/strict";
import { BoundedOutOfOrdernessWatermarks } from "../../src/time/bounded_out_of_orderness.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { NoWatermarksGenerator } from "../../src/time/no_watermarks.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import { PunctuatedWatermarks } from "../../src/time/punctuated.ts";
import { WatermarksWithIdleness } from "../../src/time/watermarks_with_idleness.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

function boundedWithIdleness(
  boundMs: number,
  idleTimeoutMs: number,
  clock: ManualClock,
): WatermarksWithIdleness<null> {
  return new WatermarksWithIdleness(
    new BoundedOutOfOrdernessWatermarks<null>(boundMs),
    idleTimeoutMs,
    clock,
  );
}

Deno.test("WatermarksWithIdleness rejects a zero or negative timeout", () => {
  const clock = new ManualClock();
  for (const timeout of [0, -1]) {
    assert.throws(
      () =>
        new WatermarksWithIdleness(new NoWatermarksGenerator(), timeout, clock),
      {
        name: "RangeError",
        message: new RegExp(`'idleTimeoutMs'.*${timeout}`),
      },
    );
  }
});

Deno.test("WatermarksWithIdleness goes idle at the first probe strictly past the timeout after the first quiet probe (FLINK-40503)", () => {
  const clock = new ManualClock(1_000);
  const generator = new WatermarksWithIdleness(
    new NoWatermarksGenerator<string>(),
    10,
    clock,
  );
  const output = new RecordingOutput();
  const idleAt: Array<[number, boolean]> = [];
  clock.set(1_004);
  generator.onEvent("x", 1, output);
  for (const t of [5, 10, 15, 20, 25]) {
    clock.set(1_000 + t);
    generator.onPeriodicEmit(output);
    idleAt.push([t, output.idle]);
  }
  assert.deepEqual(idleAt, [[5, false], [10, false], [15, false], [20, false], [
    25,
    true,
  ]]);
});

Deno.test("WatermarksWithIdleness marks idle once per idle period (FLINK-28975)", () => {
  const clock = new ManualClock(1);
  const generator = new WatermarksWithIdleness(
    new NoWatermarksGenerator<string>(),
    122,
    clock,
  );
  const output = new RecordingOutput();
  generator.onPeriodicEmit(output);
  for (let i = 0; i < 5; i++) {
    clock.advance(123);
    generator.onPeriodicEmit(output);
  }
  assert.deepEqual(output.calls, ["markIdle"]);
});

Deno.test("WatermarksWithIdleness does not call the wrapped generator's periodic emit while idle", () => {
  const clock = new ManualClock(1);
  const generator = boundedWithIdleness(0, 10, clock);
  const output = new RecordingOutput();
  generator.onEvent(null, 100, output);
  generator.onPeriodicEmit(output); // sees activity: emits 99
  generator.onPeriodicEmit(output); // first quiet probe: emits 99 again, starts countdown
  clock.advance(11);
  generator.onPeriodicEmit(output); // idle: no watermark
  assert.deepEqual(output.calls, [99, 99, "markIdle"]);
});

Deno.test("WatermarksWithIdleness marks active on the first record after idleness even if its watermark does not advance (FLINK-40504)", () => {
  const clock = new ManualClock(1);
  const generator = boundedWithIdleness(0, 10, clock);
  const output = new RecordingOutput();
  generator.onEvent(null, 100, output);
  generator.onPeriodicEmit(output);
  generator.onPeriodicEmit(output);
  clock.advance(11);
  generator.onPeriodicEmit(output);
  generator.onEvent(null, 50, output); // late record: the watermark stays 99
  generator.onEvent(null, 60, output);
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, [99, 99, "markIdle", "markActive", 99]);
  assert.equal(generator.idle, false);
});

Deno.test("WatermarksWithIdleness goes idle again after an idle-active-idle cycle (idle-active-idle)", () => {
  const clock = new ManualClock(1);
  const generator = new WatermarksWithIdleness(
    new NoWatermarksGenerator<null>(),
    10,
    clock,
  );
  const output = new RecordingOutput();
  generator.onPeriodicEmit(output);
  clock.advance(11);
  generator.onPeriodicEmit(output);
  generator.onEvent(null, 1, output);
  generator.onPeriodicEmit(output);
  generator.onPeriodicEmit(output);
  clock.advance(11);
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, ["markIdle", "markActive", "markIdle"]);
});

Deno.test("WatermarksWithIdleness does not count back-pressured time toward the timeout (FLINK-35886, back-pressure vector)", () => {
  const wall = new ManualClock(1);
  const activity = new PausableClock(wall);
  const generator = new WatermarksWithIdleness(
    new PunctuatedWatermarks<null>(() => null),
    100,
    activity,
  );
  const output = new RecordingOutput();
  activity.pause(); // hard back-pressure
  for (let step = 1; step <= 10; step++) {
    wall.advance(100);
    generator.onPeriodicEmit(output);
  }
  activity.pause(); // soft back-pressure on top, then hard ends
  activity.resume();
  for (let step = 11; step <= 20; step++) {
    wall.advance(100);
    generator.onPeriodicEmit(output);
  }
  assert.deepEqual(output.calls, []);
  activity.resume();
  for (let step = 21; step <= 30; step++) {
    wall.advance(100);
    generator.onPeriodicEmit(output);
  }
  assert.deepEqual(output.calls, ["markIdle"]);
});

Deno.test("WatermarksWithIdleness snapshots the wrapped generator's state", () => {
  const clock = new ManualClock(1);
  const first = boundedWithIdleness(5, 10, clock);
  first.onEvent(null, 1_000, new RecordingOutput());
  const second = boundedWithIdleness(5, 10, clock);
  second.restoreState(structuredClone(first.snapshotState()));
  const output = new RecordingOutput();
  second.onPeriodicEmit(output);
  assert.deepEqual(output.calls, [994]);
});

Deno.test("WatermarksWithIdleness restored while idle stays idle without marking idle again, and marks active on its next record", () => {
  const clock = new ManualClock(1);
  const first = boundedWithIdleness(5, 10, clock);
  const before = new RecordingOutput();
  first.onEvent(null, 1_000, before);
  first.onPeriodicEmit(before); // sees the record
  first.onPeriodicEmit(before); // starts the countdown
  clock.advance(11);
  first.onPeriodicEmit(before);
  assert.deepEqual(before.calls, [994, 994, "markIdle"]);
  const second = boundedWithIdleness(5, 10, clock);
  second.restoreState(structuredClone(first.snapshotState()));
  assert.equal(second.idle, true);
  const after = new RecordingOutput();
  clock.advance(100);
  second.onPeriodicEmit(after);
  second.onEvent(null, 2_000, after);
  second.onPeriodicEmit(after);
  assert.deepEqual(after.calls, ["markActive", 1_994]);
});

Deno.test("WatermarksWithIdleness restored mid-countdown goes idle at the same probe as the one that never stopped", () => {
  const clock = new ManualClock(1);
  const generators = [boundedWithIdleness(5, 10, clock)];
  const outputs = [new RecordingOutput(), new RecordingOutput()];
  generators[0].onEvent(null, 1_000, outputs[0]);
  generators[0].onPeriodicEmit(outputs[0]);
  generators[0].onPeriodicEmit(outputs[0]); // countdown from 1
  clock.advance(7);
  generators.push(boundedWithIdleness(5, 10, clock));
  generators[1].restoreState(structuredClone(generators[0].snapshotState()));
  const idleAt: number[] = [];
  for (let probe = 0; probe < 3; probe++) {
    clock.advance(2);
    generators.forEach((g, i) => {
      g.onPeriodicEmit(outputs[i]);
      if (g.idle && idleAt[i] === undefined) idleAt[i] = clock.now();
    });
  }
  assert.deepEqual(idleAt, [12, 12]);
});

Deno.test("WatermarksWithIdleness restores a snapshot without a countdown (an older version's) as active", () => {
  const clock = new ManualClock(1);
  const generator = boundedWithIdleness(5, 10, clock);
  generator.restoreState({ inner: { maxTimestamp: 1_000 } });
  const output = new RecordingOutput();
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, [994]);
  assert.equal(generator.idle, false);
});
