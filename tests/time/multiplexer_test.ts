// The vectors of Flink's WatermarkOutputMultiplexerTest,
// asserting the newer behaviour: FLINK-38454, FLINK-39586 and FLINK-40504.

import assert from "node:assert/strict";
import { WatermarkOutputMultiplexer } from "../../src/time/multiplexer.ts";
import type { WatermarkOutput } from "../../src/time/watermark_output.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

function setup() {
  const out = new RecordingOutput();
  const multiplexer = new WatermarkOutputMultiplexer(out);
  let next = 0;
  function register(): string {
    const id = `output-${next++}`;
    multiplexer.registerNewOutput(id);
    return id;
  }
  return {
    out,
    multiplexer,
    immediate(): WatermarkOutput {
      return multiplexer.getImmediateOutput(register());
    },
    deferred(): WatermarkOutput {
      return multiplexer.getDeferredOutput(register());
    },
  };
}

Deno.test("WatermarkOutputMultiplexer forwards a single immediate watermark (vector 1)", () => {
  const { out, immediate } = setup();
  immediate().emitWatermark(0);
  assert.equal(out.lastWatermark, 0);
  assert.equal(out.idle, false);
});

Deno.test("WatermarkOutputMultiplexer marks idle when its only immediate output goes idle (vector 2)", () => {
  const { out, immediate } = setup();
  immediate().markIdle();
  assert.equal(out.lastWatermark, null);
  assert.equal(out.idle, true);
  assert.deepEqual(out.calls, ["markIdle"]);
});

Deno.test("WatermarkOutputMultiplexer marks active before the first watermark after idleness (vector 3, FLINK-40504)", () => {
  const { out, immediate } = setup();
  const output = immediate();
  output.markIdle();
  assert.equal(out.idle, true);
  output.emitWatermark(0);
  assert.equal(out.lastWatermark, 0);
  assert.equal(out.idle, false);
  assert.deepEqual(out.calls, ["markIdle", "markActive", 0]);
});

Deno.test("WatermarkOutputMultiplexer emits the minimum of the active immediate outputs (vector 4)", () => {
  const { out, immediate } = setup();
  const [first, second, third] = [immediate(), immediate(), immediate()];
  first.emitWatermark(2);
  second.emitWatermark(5);
  third.markIdle();
  assert.equal(out.lastWatermark, 2);
  assert.equal(out.idle, false);
});

Deno.test("WatermarkOutputMultiplexer advances when the slowest immediate output goes idle (vector 5)", () => {
  const { out, immediate } = setup();
  const [first, second] = [immediate(), immediate()];
  first.emitWatermark(2);
  second.emitWatermark(5);
  assert.equal(out.lastWatermark, 2);
  first.markIdle();
  assert.equal(out.lastWatermark, 5);
});

Deno.test("WatermarkOutputMultiplexer does not regress when an idle output resumes lower (vector 6)", () => {
  const { out, immediate } = setup();
  const [first, second] = [immediate(), immediate()];
  first.emitWatermark(2);
  second.emitWatermark(5);
  first.markIdle();
  assert.equal(out.lastWatermark, 5);
  first.emitWatermark(3);
  assert.equal(out.lastWatermark, 5);
  assert.deepEqual(out.calls, [2, 5]);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() with no outputs emits nothing and stays active (vector 7)", () => {
  const { out, multiplexer } = setup();
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, null);
  assert.equal(out.idle, false);
});

Deno.test("WatermarkOutputMultiplexer holds deferred watermarks until onPeriodicEmit() (vector 8)", () => {
  const { out, multiplexer, deferred } = setup();
  const [first, second] = [deferred(), deferred()];
  first.emitWatermark(0);
  second.emitWatermark(1);
  assert.equal(out.lastWatermark, null);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 0);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() forwards a single deferred watermark (vector 9)", () => {
  const { out, multiplexer, deferred } = setup();
  deferred().emitWatermark(0);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 0);
  assert.equal(out.idle, false);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() marks idle when its only deferred output is idle (vector 10)", () => {
  const { out, multiplexer, deferred } = setup();
  deferred().markIdle();
  assert.equal(out.idle, false);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, null);
  assert.equal(out.idle, true);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() resumes with a deferred watermark after idleness (vector 11, FLINK-40504)", () => {
  const { out, multiplexer, deferred } = setup();
  const output = deferred();
  output.markIdle();
  multiplexer.onPeriodicEmit();
  assert.equal(out.idle, true);
  output.emitWatermark(0);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 0);
  assert.equal(out.idle, false);
  assert.deepEqual(out.calls, ["markIdle", "markActive", 0]);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() emits the minimum of the active deferred outputs (vector 12)", () => {
  const { out, multiplexer, deferred } = setup();
  const [first, second, third] = [deferred(), deferred(), deferred()];
  first.emitWatermark(2);
  second.emitWatermark(5);
  third.markIdle();
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 2);
  assert.equal(out.idle, false);
});

Deno.test("WatermarkOutputMultiplexer immediate updates take deferred updates into account (vector 13)", () => {
  const { out, immediate, deferred } = setup();
  const a = immediate();
  const b = deferred();
  b.emitWatermark(5);
  assert.equal(out.lastWatermark, null);
  a.emitWatermark(2);
  assert.equal(out.lastWatermark, 2);
});

Deno.test("WatermarkOutputMultiplexer does not regress when an immediate update on the same output is lower than a deferred one (vector 14)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("test-id");
  const immediate = multiplexer.getImmediateOutput("test-id");
  const deferred = multiplexer.getDeferredOutput("test-id");
  deferred.emitWatermark(5);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 5);
  immediate.emitWatermark(2);
  assert.equal(out.lastWatermark, 5);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 5);
  assert.deepEqual(out.calls, [5]);
});

Deno.test("WatermarkOutputMultiplexer emits nothing for a lower immediate update on an output a deferred update already advanced (vector 15)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("1234-test");
  const immediate = multiplexer.getImmediateOutput("1234-test");
  const deferred = multiplexer.getDeferredOutput("1234-test");
  deferred.emitWatermark(5);
  immediate.emitWatermark(2);
  assert.equal(out.lastWatermark, null);
});

Deno.test("WatermarkOutputMultiplexer.unregisterOutput() unblocks the watermark at the next update (vector 16)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("lower");
  multiplexer.registerNewOutput("higher");
  multiplexer.getImmediateOutput("lower").emitWatermark(156765);
  multiplexer.unregisterOutput("lower");
  multiplexer.getImmediateOutput("higher").emitWatermark(156775);
  assert.equal(out.lastWatermark, 156775);
});

Deno.test("WatermarkOutputMultiplexer.unregisterOutput() of the slowest output does not advance the watermark by itself (vector 17)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("lower");
  multiplexer.registerNewOutput("higher");
  multiplexer.getImmediateOutput("lower").emitWatermark(-4343);
  multiplexer.getImmediateOutput("higher").emitWatermark(-4333);
  assert.equal(out.lastWatermark, -4343);
  multiplexer.unregisterOutput("lower");
  assert.equal(out.lastWatermark, -4343);
  assert.deepEqual(out.calls, [-4343]);
});

Deno.test("WatermarkOutputMultiplexer.unregisterOutput() of the fastest output never retracts the watermark (vector 18)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("higher");
  multiplexer.getImmediateOutput("higher").emitWatermark(2);
  multiplexer.unregisterOutput("higher");
  multiplexer.registerNewOutput("lower");
  multiplexer.getImmediateOutput("lower").emitWatermark(1);
  assert.equal(out.lastWatermark, 2);
  assert.deepEqual(out.calls, [2]);
});

Deno.test("WatermarkOutputMultiplexer.unregisterOutput() returns whether the id was registered (vector 19)", () => {
  const { multiplexer } = setup();
  multiplexer.registerNewOutput("does-exist");
  assert.equal(multiplexer.unregisterOutput("does-exist"), true);
  assert.equal(multiplexer.unregisterOutput("does-not-exist"), false);
  assert.equal(multiplexer.unregisterOutput("does-exist"), false);
});

Deno.test("WatermarkOutputMultiplexer flushes the maximum when all outputs go idle (FLINK-38454, vector 20)", () => {
  const { out, immediate } = setup();
  const [first, second] = [immediate(), immediate()];
  first.emitWatermark(5);
  second.emitWatermark(2);
  assert.equal(out.lastWatermark, 2);
  assert.equal(out.idle, false);
  first.markIdle();
  second.markIdle();
  assert.equal(out.lastWatermark, 5);
  assert.equal(out.idle, true);
  assert.deepEqual(out.calls, [2, 5, "markIdle"]);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() flushes the maximum when all deferred outputs went idle (FLINK-38454, vector 21)", () => {
  const { out, multiplexer, deferred } = setup();
  const [first, second] = [deferred(), deferred()];
  first.emitWatermark(5);
  first.markIdle();
  second.emitWatermark(2);
  second.markIdle();
  assert.equal(out.lastWatermark, null);
  assert.equal(out.idle, false);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 5);
  assert.equal(out.idle, true);
  assert.deepEqual(out.calls, [5, "markIdle"]);
});

Deno.test("WatermarkOutputMultiplexer marks idle once all outputs are unregistered after the watermark advanced (FLINK-39586, vector 22)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("x");
  multiplexer.getImmediateOutput("x").emitWatermark(1);
  assert.equal(out.idle, false);
  multiplexer.unregisterOutput("x");
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 1);
  assert.equal(out.idle, true);
  assert.deepEqual(out.calls, [1, "markIdle"]);
});

Deno.test("WatermarkOutputMultiplexer marks active when an idle immediate output is marked active (FLINK-40504, vector 23)", () => {
  const { out, immediate } = setup();
  const [first, second] = [immediate(), immediate()];
  first.emitWatermark(5);
  second.emitWatermark(2);
  first.markIdle();
  second.markIdle();
  assert.equal(out.lastWatermark, 5);
  assert.equal(out.idle, true);
  first.markActive();
  assert.equal(out.idle, false);
  assert.deepEqual(out.calls, [2, 5, "markIdle", "markActive"]);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() marks active when an idle deferred output resumes below the watermark (FLINK-40504, vector 24)", () => {
  const { out, multiplexer, deferred } = setup();
  const [first, second] = [deferred(), deferred()];
  first.emitWatermark(5);
  second.emitWatermark(2);
  first.markIdle();
  second.markIdle();
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 5);
  assert.equal(out.idle, true);
  first.emitWatermark(3);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, 5);
  assert.equal(out.idle, false);
  assert.deepEqual(out.calls, [5, "markIdle", "markActive"]);
});

Deno.test("WatermarkOutputMultiplexer.onPeriodicEmit() reports nothing for an output that never reported (FLINK-39586, vector 25)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("silent-output");
  multiplexer.onPeriodicEmit();
  assert.deepEqual(out.calls, []);
});

// Derived from the rules, not from a Flink test.

Deno.test("WatermarkOutputMultiplexer marks active when an idle immediate output resumes below the watermark (FLINK-40504, derived)", () => {
  const { out, immediate } = setup();
  const [first, second] = [immediate(), immediate()];
  first.emitWatermark(5);
  second.emitWatermark(2);
  first.markIdle();
  second.markIdle();
  first.emitWatermark(3);
  assert.equal(out.lastWatermark, 5);
  assert.equal(out.idle, false);
  assert.deepEqual(out.calls, [2, 5, "markIdle", "markActive"]);
});

Deno.test("WatermarkOutputMultiplexer marks idle once per idle period, not on every update (FLINK-38454, derived)", () => {
  const { out, multiplexer, immediate } = setup();
  const output = immediate();
  output.markIdle();
  output.markIdle();
  multiplexer.onPeriodicEmit();
  multiplexer.onPeriodicEmit();
  assert.deepEqual(out.calls, ["markIdle"]);
});

Deno.test("WatermarkOutputMultiplexer marks active when a new output is registered after all were removed (FLINK-39586, derived)", () => {
  const { out, multiplexer } = setup();
  multiplexer.registerNewOutput("x");
  multiplexer.getImmediateOutput("x").emitWatermark(1);
  multiplexer.unregisterOutput("x");
  multiplexer.onPeriodicEmit();
  multiplexer.registerNewOutput("y");
  multiplexer.onPeriodicEmit();
  assert.equal(out.idle, false);
  multiplexer.getImmediateOutput("y").emitWatermark(4);
  assert.deepEqual(out.calls, [1, "markIdle", "markActive", 4]);
});

Deno.test("WatermarkOutputMultiplexer never emits -Infinity, even when an idle output is flushed at -Infinity (derived)", () => {
  const { out, multiplexer, deferred } = setup();
  const output = deferred();
  output.emitWatermark(-Infinity);
  output.markIdle();
  multiplexer.onPeriodicEmit();
  assert.deepEqual(out.calls, ["markIdle"]);
});

Deno.test("WatermarkOutputMultiplexer forwards Infinity at the end of input (derived)", () => {
  const { out, immediate } = setup();
  const [first, second] = [immediate(), immediate()];
  first.emitWatermark(Infinity);
  second.emitWatermark(Infinity);
  assert.deepEqual(out.calls, [Infinity]);
});

Deno.test("WatermarkOutputMultiplexer returns the same immediate and deferred output objects on every call", () => {
  const { multiplexer } = setup();
  multiplexer.registerNewOutput("split-1");
  const immediate = multiplexer.getImmediateOutput("split-1");
  const deferred = multiplexer.getDeferredOutput("split-1");
  assert.equal(multiplexer.getImmediateOutput("split-1"), immediate);
  assert.equal(multiplexer.getDeferredOutput("split-1"), deferred);
  assert.notEqual(immediate, deferred);
});

Deno.test("WatermarkOutputMultiplexer.registerNewOutput() rejects a duplicate id", () => {
  const { multiplexer } = setup();
  multiplexer.registerNewOutput("a");
  assert.throws(() => multiplexer.registerNewOutput("a"), {
    name: "RangeError",
    message:
      "Cannot register output as 'id' must not be registered already: current value is \"a\"",
  });
});

Deno.test("WatermarkOutputMultiplexer.registerNewOutput() rejects an empty or non-string id", () => {
  const { multiplexer } = setup();
  assert.throws(() => multiplexer.registerNewOutput(""), {
    name: "RangeError",
    message: /'id'/,
  });
  assert.throws(
    // @ts-expect-error: testing a bad type
    () => multiplexer.registerNewOutput(1),
    { name: "TypeError", message: /'id'/ },
  );
});

Deno.test("WatermarkOutputMultiplexer.getImmediateOutput() and getDeferredOutput() reject an unknown id", () => {
  const { multiplexer } = setup();
  assert.throws(() => multiplexer.getImmediateOutput("x"), {
    name: "RangeError",
    message:
      "Cannot get immediate output as 'id' must be registered: current value is \"x\"",
  });
  assert.throws(() => multiplexer.getDeferredOutput("x"), {
    name: "RangeError",
    message: /'id'/,
  });
  multiplexer.registerNewOutput("x");
  multiplexer.unregisterOutput("x");
  assert.throws(() => multiplexer.getImmediateOutput("x"), {
    name: "RangeError",
    message: /'id'/,
  });
});

Deno.test("WatermarkOutputMultiplexer rejects an underlying output without the three methods", () => {
  assert.throws(
    // @ts-expect-error: testing a bad value
    () => new WatermarkOutputMultiplexer({ emitWatermark() {} }),
    { name: "TypeError", message: /'underlying.markIdle'/ },
  );
  assert.throws(
    // @ts-expect-error: testing a bad value
    () => new WatermarkOutputMultiplexer(null),
    { name: "TypeError", message: /'underlying.emitWatermark'/ },
  );
});

Deno.test("WatermarkOutputMultiplexer.restoreState() resumes combining exactly as the multiplexer it was taken from", () => {
  // An idle output at 9, an active one at 4, a third that never reported.
  function drive(multiplexer: WatermarkOutputMultiplexer): void {
    multiplexer.getImmediateOutput("a").emitWatermark(9);
    multiplexer.getImmediateOutput("b").emitWatermark(4);
    multiplexer.getImmediateOutput("a").markIdle();
  }
  const ids = ["a", "b", "c"];
  const original = new WatermarkOutputMultiplexer(new RecordingOutput());
  for (const id of ids) original.registerNewOutput(id);
  drive(original);
  original.getImmediateOutput("c").markIdle();
  const snapshot = structuredClone(original.snapshotState());
  const out = new RecordingOutput();
  const restored = new WatermarkOutputMultiplexer(out);
  for (const id of ids) restored.registerNewOutput(id);
  restored.restoreState(snapshot);
  assert.deepEqual(out.calls, [], "a restore emits nothing");
  // b going idle flushes the maximum (9) and marks idle, as in the original.
  restored.getImmediateOutput("b").markIdle();
  assert.deepEqual(out.calls, [9, "markIdle"]);
  // c resuming below the flushed watermark marks active, never regresses.
  restored.getDeferredOutput("c").emitWatermark(3);
  restored.onPeriodicEmit();
  assert.deepEqual(out.calls, [9, "markIdle", "markActive"]);
});

Deno.test("WatermarkOutputMultiplexer.restoreState() keeps an unregistered output out", () => {
  const original = new WatermarkOutputMultiplexer(new RecordingOutput());
  for (const id of ["a", "b"]) original.registerNewOutput(id);
  original.getImmediateOutput("a").emitWatermark(2);
  original.getImmediateOutput("b").emitWatermark(5);
  original.unregisterOutput("a");
  const snapshot = structuredClone(original.snapshotState());
  assert.deepEqual(snapshot.outputs.map((o) => o.id), ["b"]);
  const out = new RecordingOutput();
  const restored = new WatermarkOutputMultiplexer(out);
  restored.registerNewOutput("b");
  restored.restoreState(snapshot);
  restored.onPeriodicEmit();
  assert.deepEqual(out.calls, [5]);
});

Deno.test("WatermarkOutputMultiplexer.restoreState() rejects an output that is not registered, naming it", () => {
  const original = new WatermarkOutputMultiplexer(new RecordingOutput());
  original.registerNewOutput("a");
  const restored = new WatermarkOutputMultiplexer(new RecordingOutput());
  assert.throws(() => restored.restoreState(original.snapshotState()), {
    name: "RangeError",
    message: /'state\.outputs\[0\]\.id'.*"a"/,
  });
  assert.throws(
    () =>
      restored.restoreState(
        { outputs: "a" } as unknown as Parameters<
          WatermarkOutputMultiplexer["restoreState"]
        >[0],
      ),
    { name: "TypeError", message: /'state\.outputs'/ },
  );
});
