// No record can kill a job: every safe integer is a valid
// timestamp, and the watermarks computed from one must stay valid
// watermarks (a safe integer or ±Infinity) rather than leave the safe range
// and make the valve throw. Flink starts BoundedOutOfOrdernessWatermarks at
// `Long.MIN_VALUE + bound + 1`, so its watermark never goes below
// `Long.MIN_VALUE`; weir's `-Infinity` plays that part.

import assert from "node:assert/strict";
import { AdaptiveOutOfOrdernessWatermarks } from "../../src/time/adaptive_out_of_orderness.ts";
import { AscendingTimestampsWatermarks } from "../../src/time/ascending_timestamps.ts";
import { AutoTunedOutOfOrdernessWatermarks } from "../../src/time/auto_tuned_out_of_orderness.ts";
import { BoundedOutOfOrdernessWatermarks } from "../../src/time/bounded_out_of_orderness.ts";
import { ManualClock } from "../../src/time/clock.ts";
import {
  MAX_TIMESTAMP,
  MIN_TIMESTAMP,
  MIN_WATERMARK,
} from "../../src/time/constants.ts";
import { WatermarkEmitter } from "../../src/time/emitting_output.ts";
import { WatermarkOutputMultiplexer } from "../../src/time/multiplexer.ts";
import { PunctuatedWatermarks } from "../../src/time/punctuated.ts";
import { TimeLagWatermarks } from "../../src/time/time_lag.ts";
import { StatusWatermarkValve } from "../../src/time/valve.ts";
import type { WatermarkGenerator } from "../../src/time/watermark_generator.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import {
  RecordingOutput,
  RecordingStatusOutput,
} from "../_support/recording_output.ts";

const MAX = Number.MAX_SAFE_INTEGER;
const MIN = Number.MIN_SAFE_INTEGER;
const EXTREMES = [
  MIN,
  MIN + 1,
  MIN + 5,
  MIN + 1_000,
  MIN + 1_001,
  MAX - 5,
  MAX,
];

function isWatermark(value: number): boolean {
  return Number.isSafeInteger(value) || value === Infinity ||
    value === -Infinity;
}

/** Feeds `timestamps` one by one, emitting after each; returns what was emitted. */
function emitted(
  generator: WatermarkGenerator<null>,
  timestamps: number[],
): number[] {
  const output = new RecordingOutput();
  for (const ts of timestamps) {
    generator.onEvent(null, ts, output);
    generator.onPeriodicEmit(output);
  }
  return output.calls.filter((c): c is number => typeof c === "number");
}

Deno.test("MIN_TIMESTAMP and MAX_TIMESTAMP are years 1 and 9999, far inside the safe range", () => {
  assert.equal(
    new Date(MIN_TIMESTAMP).toISOString(),
    "0001-01-01T00:00:00.000Z",
  );
  assert.equal(
    new Date(MAX_TIMESTAMP).toISOString(),
    "9999-12-31T23:59:59.999Z",
  );
  // Room for a size, bound or lateness of over 280,000 years either way.
  assert.ok(MIN_TIMESTAMP - MIN > 2 ** 52 && MAX - MAX_TIMESTAMP > 2 ** 52);
});

Deno.test("BoundedOutOfOrdernessWatermarks() saturates a watermark below the safe range to -Infinity, as Flink's Long.MIN_VALUE start does", () => {
  const generator = new BoundedOutOfOrdernessWatermarks<null>(1_000);
  // MIN + 1000 - 1000 - 1 = MIN - 1 is not a safe integer: nothing is known yet.
  assert.deepEqual(emitted(generator, [MIN, MIN + 5, MIN + 1_000]), [
    MIN_WATERMARK,
    MIN_WATERMARK,
    MIN_WATERMARK,
  ]);
  assert.equal(generator.currentWatermark, MIN_WATERMARK);
  // The first timestamp whose watermark is representable gives exactly MIN.
  assert.deepEqual(emitted(generator, [MIN + 1_001]), [MIN]);
  assert.deepEqual(emitted(generator, [MAX]), [MAX - 1_001]);
});

Deno.test("BoundedOutOfOrdernessWatermarks() with the largest bound stays in range at both ends", () => {
  const generator = new BoundedOutOfOrdernessWatermarks<null>(MAX);
  assert.deepEqual(emitted(generator, [MIN, 0, MAX]), [
    MIN_WATERMARK,
    MIN_WATERMARK,
    -1,
  ]);
});

Deno.test("AscendingTimestampsWatermarks() emits -Infinity for MIN_SAFE_INTEGER and MAX_SAFE_INTEGER - 1 for the largest timestamp", () => {
  const generator = new AscendingTimestampsWatermarks<null>();
  assert.deepEqual(emitted(generator, [MIN, MIN + 1, MAX - 5, MAX]), [
    MIN_WATERMARK,
    MIN,
    MAX - 6,
    MAX - 1,
  ]);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks() keeps its watermark in range for extreme timestamps", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>({
    floorLatenessMs: 1_000,
  });
  const watermarks = emitted(generator, [MIN, MIN + 5, MIN, MAX - 5, MIN]);
  assert.ok(watermarks.every(isWatermark), `${watermarks}`);
  assert.equal(watermarks[0], MIN_WATERMARK);
  assert.ok(watermarks.at(-1)! < MAX - 5);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks() keeps its watermark in range for extreme timestamps", () => {
  const clock = new ManualClock(0);
  const generator = new AutoTunedOutOfOrdernessWatermarks<null>(clock, {
    floorMs: 1_000,
  });
  const watermarks = emitted(generator, [MIN, MIN + 5, MIN]);
  clock.advance(60_000);
  watermarks.push(...emitted(generator, [MAX - 5, MIN, MAX]));
  assert.ok(watermarks.every(isWatermark), `${watermarks}`);
  assert.equal(watermarks[0], MIN_WATERMARK);
});

Deno.test("TimeLagWatermarks() saturates to -Infinity when the clock is within the lag of MIN_SAFE_INTEGER", () => {
  const clock = new ManualClock(MIN + 10);
  const generator = new TimeLagWatermarks<null>(1_000, clock);
  assert.deepEqual(emitted(generator, [0]), [MIN_WATERMARK]);
  clock.set(MIN + 1_000);
  assert.deepEqual(emitted(generator, [0]), [MIN]);
});

Deno.test("WatermarkEmitter.emitWatermark() saturates a finite watermark beyond the safe range: below to -Infinity (dropped), above to MAX_SAFE_INTEGER", () => {
  const out = new RecordingStatusOutput();
  const emitter = new WatermarkEmitter(out);
  emitter.emitWatermark(MIN - 1_001);
  assert.equal(emitter.currentWatermark, MIN_WATERMARK);
  emitter.emitWatermark(MIN);
  emitter.emitWatermark(2 ** 53 + 2);
  emitter.emitWatermark(MAX);
  assert.deepEqual(out.take(), [{ watermark: MIN }, { watermark: MAX }]);
  assert.equal(emitter.currentWatermark, MAX);
  emitter.emitWatermark(Infinity);
  assert.deepEqual(out.take(), [{ watermark: Infinity }]);
});

Deno.test("A user's punctuated generator computing ts - bound - 1 at MIN_SAFE_INTEGER does not make the valve throw", () => {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(1, out);
  const emitter = new WatermarkEmitter({
    emitWatermark: (w) => valve.inputWatermark(w, 0),
    emitWatermarkStatus: (s) => valve.inputWatermarkStatus(s, 0),
  });
  const generator = new PunctuatedWatermarks<null>((_e, ts) => ts - 5_000 - 1);
  for (const ts of [MIN, MIN + 4_000, MIN + 5_001, MAX]) {
    generator.onEvent(null, ts, emitter);
  }
  assert.deepEqual(out.take(), [{ watermark: MIN }, {
    watermark: MAX - 5_001,
  }]);
});

Deno.test("A bounded strategy, an emitter and a valve take records at every extreme timestamp", () => {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(2, out);
  const emitters = [0, 1].map((channel) =>
    new WatermarkEmitter({
      emitWatermark: (w) => valve.inputWatermark(w, channel),
      emitWatermarkStatus: (s) => valve.inputWatermarkStatus(s, channel),
    })
  );
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<null>(1_000);
  const context = {
    clock: new ManualClock(),
    subtaskIndex: 0,
    metrics: { gauge() {} },
  };
  const generators = emitters.map(() =>
    strategy.createWatermarkGenerator(context)
  );
  for (const ts of EXTREMES) {
    for (let c = 0; c < 2; c++) {
      generators[c].onEvent(null, ts, emitters[c]);
      generators[c].onPeriodicEmit(emitters[c]);
    }
  }
  assert.deepEqual(out.take(), [
    { watermark: MIN },
    { watermark: MAX - 1_006 },
    { watermark: MAX - 1_001 },
  ]);
  emitters[0].emitWatermark(Infinity);
  emitters[1].emitWatermark(Infinity);
  assert.deepEqual(out.take(), [{ watermark: Infinity }]);
});

Deno.test("StatusWatermarkValve merges the extreme safe watermarks and flushes the maximum when all go idle", () => {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(3, out);
  valve.inputWatermark(MAX, 0);
  valve.inputWatermark(MIN, 1);
  valve.inputWatermark(MIN + 1, 2);
  assert.deepEqual(out.take(), [{ watermark: MIN }]);
  valve.inputWatermark(MAX - 1, 1);
  assert.deepEqual(out.take(), [{ watermark: MIN + 1 }]);
  valve.inputWatermarkStatus("idle", 2);
  assert.deepEqual(out.take(), [{ watermark: MAX - 1 }]);
  valve.inputWatermarkStatus("idle", 1);
  valve.inputWatermarkStatus("idle", 0);
  assert.deepEqual(out.take(), [{ watermark: MAX }, { status: "idle" }]);
});

Deno.test("WatermarkOutputMultiplexer combines the extreme safe watermarks of its outputs", () => {
  const out = new RecordingOutput();
  const multiplexer = new WatermarkOutputMultiplexer(out);
  for (const id of ["a", "b"]) multiplexer.registerNewOutput(id);
  multiplexer.getImmediateOutput("a").emitWatermark(MAX);
  multiplexer.getImmediateOutput("b").emitWatermark(MIN);
  assert.equal(out.lastWatermark, MIN);
  multiplexer.getDeferredOutput("b").emitWatermark(MAX - 1);
  multiplexer.onPeriodicEmit();
  assert.equal(out.lastWatermark, MAX - 1);
  multiplexer.getImmediateOutput("b").markIdle();
  assert.equal(out.lastWatermark, MAX);
});
