import assert from "node:assert/strict";
import { WatermarkEmitter } from "../../src/time/emitting_output.ts";
import { RecordingStatusOutput } from "../_support/recording_output.ts";

function emitter(): { emitter: WatermarkEmitter; out: RecordingStatusOutput } {
  const out = new RecordingStatusOutput();
  return { emitter: new WatermarkEmitter(out), out };
}

Deno.test("WatermarkEmitter.emitWatermark() drops watermarks that do not strictly increase", () => {
  const { emitter: e, out } = emitter();
  e.emitWatermark(4);
  e.emitWatermark(2);
  e.emitWatermark(4);
  e.emitWatermark(5);
  assert.deepEqual(out.take(), [{ watermark: 4 }, { watermark: 5 }]);
  assert.equal(e.currentWatermark, 5);
});

Deno.test("WatermarkEmitter never passes on -Infinity or NaN", () => {
  const { emitter: e, out } = emitter();
  e.emitWatermark(-Infinity);
  e.emitWatermark(NaN);
  assert.deepEqual(out.take(), []);
});

Deno.test("WatermarkEmitter passes on Infinity as the final watermark", () => {
  const { emitter: e, out } = emitter();
  e.emitWatermark(10);
  e.emitWatermark(Infinity);
  e.emitWatermark(Infinity);
  assert.deepEqual(out.take(), [{ watermark: 10 }, { watermark: Infinity }]);
});

Deno.test("WatermarkEmitter.markIdle() emits idle once per idle period", () => {
  const { emitter: e, out } = emitter();
  e.markIdle();
  e.markIdle();
  assert.deepEqual(out.take(), [{ status: "idle" }]);
  assert.equal(e.idle, true);
});

Deno.test("WatermarkEmitter re-activates before an advancing watermark, not for a dropped one", () => {
  const { emitter: e, out } = emitter();
  e.emitWatermark(10);
  e.markIdle();
  e.emitWatermark(9);
  assert.deepEqual(out.take(), [{ watermark: 10 }, { status: "idle" }]);
  e.emitWatermark(11);
  assert.deepEqual(out.take(), [{ status: "active" }, { watermark: 11 }]);
});

Deno.test("WatermarkEmitter.markActive() emits active only when idle (FLINK-40504)", () => {
  const { emitter: e, out } = emitter();
  e.markActive();
  assert.deepEqual(out.take(), []);
  e.markIdle();
  e.markActive();
  e.markActive();
  assert.deepEqual(out.take(), [{ status: "idle" }, { status: "active" }]);
});

Deno.test("WatermarkEmitter restores its last watermark and idle flag without emitting", () => {
  const { emitter: first } = emitter();
  first.emitWatermark(30);
  first.markIdle();
  const { emitter: second, out } = emitter();
  second.restoreState(structuredClone(first.snapshotState()));
  assert.deepEqual(out.take(), []);
  second.emitWatermark(30);
  second.emitWatermark(31);
  assert.deepEqual(out.take(), [{ status: "active" }, { watermark: 31 }]);
});
