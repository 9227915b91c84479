import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { NoWatermarksGenerator } from "../../src/time/no_watermarks.ts";
import { PunctuatedWatermarks } from "../../src/time/punctuated.ts";
import { TimeLagWatermarks } from "../../src/time/time_lag.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

Deno.test("NoWatermarksGenerator emits nothing from either callback", () => {
  const generator = new NoWatermarksGenerator<number>();
  const output = new RecordingOutput();
  generator.onEvent(1, 1_000, output);
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, []);
});

Deno.test("PunctuatedWatermarks emits the extracted watermark right after its record and nothing periodically (punctuated)", () => {
  const generator = new PunctuatedWatermarks<[boolean, number]>((event) =>
    event[0] ? event[1] : null
  );
  const output = new RecordingOutput();
  generator.onEvent([true, 2], 2, output);
  generator.onEvent([false, 3], 3, output);
  generator.onEvent([true, 4], 4, output);
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, [2, 4]);
});

Deno.test("PunctuatedWatermarks passes the record's timestamp to the extractor", () => {
  const seen: Array<[string, number]> = [];
  const generator = new PunctuatedWatermarks<string>((event, ts) => {
    seen.push([event, ts]);
    return ts - 1;
  });
  const output = new RecordingOutput();
  generator.onEvent("a", 10, output);
  assert.deepEqual(seen, [["a", 10]]);
  assert.deepEqual(output.calls, [9]);
});

Deno.test("PunctuatedWatermarks rejects an extractor that is not a function", () => {
  assert.throws(() => new PunctuatedWatermarks(42 as unknown as () => null), {
    name: "TypeError",
    message: /'extract'.*42/,
  });
});

Deno.test("TimeLagWatermarks emits the clock minus the lag on each probe, ignoring records", () => {
  const clock = new ManualClock(100_000);
  const generator = new TimeLagWatermarks<string>(5_000, clock);
  const output = new RecordingOutput();
  generator.onEvent("late", 1, output);
  generator.onPeriodicEmit(output);
  clock.advance(200);
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, [95_000, 95_200]);
});

Deno.test("TimeLagWatermarks rejects a negative lag", () => {
  assert.throws(() => new TimeLagWatermarks(-1, new ManualClock()), {
    name: "RangeError",
    message: /'maxTimeLagMs'.*-1/,
  });
});

Deno.test("Stateless generators snapshot to null and restore from it", () => {
  for (
    const generator of [
      new NoWatermarksGenerator(),
      new PunctuatedWatermarks(() => null),
      new TimeLagWatermarks(1, new ManualClock()),
    ]
  ) {
    assert.equal(generator.snapshotState(), null);
    generator.restoreState(null);
  }
});
