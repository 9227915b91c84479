import assert from "node:assert/strict";
import { AscendingTimestampsWatermarks } from "../../src/time/ascending_timestamps.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

function emitAfter(events: number[]): Array<number | string> {
  const generator = new AscendingTimestampsWatermarks<null>();
  const output = new RecordingOutput();
  for (const ts of events) generator.onEvent(null, ts, output);
  generator.onPeriodicEmit(output);
  return output.calls;
}

Deno.test("AscendingTimestampsWatermarks emits -Infinity before any event", () => {
  assert.deepEqual(emitAfter([]), [-Infinity]);
});

Deno.test("AscendingTimestampsWatermarks emits one less than the highest timestamp", () => {
  assert.deepEqual(emitAfter([1337]), [1336]);
});

Deno.test("AscendingTimestampsWatermarks does not regress on a lower timestamp", () => {
  assert.deepEqual(emitAfter([12345, 12340]), [12344]);
});

Deno.test("AscendingTimestampsWatermarks is bounded out-of-orderness with a bound of 0", () => {
  assert.equal(new AscendingTimestampsWatermarks().maxOutOfOrdernessMs, 0);
});
