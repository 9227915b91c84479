import assert from "node:assert/strict";
import { BoundedOutOfOrdernessWatermarks } from "../../src/time/bounded_out_of_orderness.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

function emitAfter(events: number[], probes = 1): RecordingOutput {
  const generator = new BoundedOutOfOrdernessWatermarks<null>(10);
  const output = new RecordingOutput();
  for (const ts of events) generator.onEvent(null, ts, output);
  for (let i = 0; i < probes; i++) generator.onPeriodicEmit(output);
  return output;
}

Deno.test("BoundedOutOfOrdernessWatermarks emits -Infinity before any event", () => {
  assert.deepEqual(emitAfter([]).calls, [-Infinity]);
});

Deno.test("BoundedOutOfOrdernessWatermarks emits the highest timestamp minus the bound minus one (vector 1337)", () => {
  assert.deepEqual(emitAfter([1337]).calls, [1326]);
});

Deno.test("BoundedOutOfOrdernessWatermarks ignores out-of-order lower timestamps", () => {
  assert.deepEqual(emitAfter([12345, 12300, 12340, 12280]).calls, [12334]);
});

Deno.test("BoundedOutOfOrdernessWatermarks emits on every periodic probe even when unchanged", () => {
  assert.deepEqual(emitAfter([723456], 2).calls, [723445, 723445]);
});

Deno.test("BoundedOutOfOrdernessWatermarks.onEvent() never emits", () => {
  const output = new RecordingOutput();
  new BoundedOutOfOrdernessWatermarks(0).onEvent("x", 5, output);
  assert.deepEqual(output.calls, []);
});

Deno.test("BoundedOutOfOrdernessWatermarks restores its highest timestamp from a snapshot", () => {
  const first = new BoundedOutOfOrdernessWatermarks<null>(10);
  first.onEvent(null, 5_000, new RecordingOutput());
  const snapshot = structuredClone(first.snapshotState());
  const second = new BoundedOutOfOrdernessWatermarks<null>(10);
  second.restoreState(snapshot);
  second.onEvent(null, 4_000, new RecordingOutput());
  assert.equal(second.currentWatermark, 4_989);
  assert.deepEqual(new BoundedOutOfOrdernessWatermarks(3).snapshotState(), {
    maxTimestamp: -Infinity,
  });
});

Deno.test("BoundedOutOfOrdernessWatermarks rejects a negative, fractional or non-number bound", () => {
  assert.throws(() => new BoundedOutOfOrdernessWatermarks(-5), {
    name: "RangeError",
    message:
      "Cannot create BoundedOutOfOrdernessWatermarks as 'maxOutOfOrdernessMs' must be a non-negative safe integer: current value is -5",
  });
  assert.throws(() => new BoundedOutOfOrdernessWatermarks(1.5), {
    name: "RangeError",
    message: /'maxOutOfOrdernessMs'.*1\.5/,
  });
  assert.throws(() => new BoundedOutOfOrdernessWatermarks(NaN), {
    name: "RangeError",
    message: /'maxOutOfOrdernessMs'.*NaN/,
  });
  assert.throws(
    () => new BoundedOutOfOrdernessWatermarks("5" as unknown as number),
    {
      name: "TypeError",
      message: /'maxOutOfOrdernessMs'.*"5"/,
    },
  );
});
