import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { ProcessingTimeTrigger } from "../../src/windows/processing_time_trigger.ts";
import { TumblingProcessingTimeWindows } from "../../src/windows/tumbling_processing_time.ts";

type Span = [number, number];

function assignAt(
  assigner: TumblingProcessingTimeWindows,
  now: number,
  timestamp = 0,
): Span[] {
  return assigner
    .assignWindows(null, timestamp, { clock: new ManualClock(now) })
    .map((w) => [w.start, w.end]);
}

Deno.test("TumblingProcessingTimeWindows.assignWindows() puts each record in the window of the current processing time", () => {
  const assigner = TumblingProcessingTimeWindows.of(5000);
  assert.deepEqual(assignAt(assigner, 0), [[0, 5000]]);
  assert.deepEqual(assignAt(assigner, 4999), [[0, 5000]]);
  assert.deepEqual(assignAt(assigner, 5000), [[5000, 10000]]);
});

Deno.test("TumblingProcessingTimeWindows.assignWindows() shifts windows by a positive or negative offset", () => {
  const positive = TumblingProcessingTimeWindows.of(5000, 100);
  assert.deepEqual(assignAt(positive, 100), [[100, 5100]]);
  assert.deepEqual(assignAt(positive, 5099), [[100, 5100]]);
  assert.deepEqual(assignAt(positive, 5100), [[5100, 10100]]);
  const negative = TumblingProcessingTimeWindows.of(5000, -100);
  assert.deepEqual(assignAt(negative, 0), [[-100, 4900]]);
  assert.deepEqual(assignAt(negative, 4899), [[-100, 4900]]);
  assert.deepEqual(assignAt(negative, 4900), [[4900, 9900]]);
});

Deno.test("TumblingProcessingTimeWindows.assignWindows() ignores the record timestamp, even a missing one", () => {
  const assigner = TumblingProcessingTimeWindows.of(5000);
  assert.deepEqual(assignAt(assigner, 7000, 123_456), [[5000, 10000]]);
  assert.deepEqual(assignAt(assigner, 7000, -Infinity), [[5000, 10000]]);
});

Deno.test("TumblingProcessingTimeWindows.assignWindows() reads the clock at every record", () => {
  const clock = new ManualClock(0);
  const assigner = TumblingProcessingTimeWindows.of(1000);
  const starts: number[] = [];
  for (const step of [0, 999, 1, 2500]) {
    clock.advance(step);
    starts.push(assigner.assignWindows(null, 0, { clock })[0].start);
  }
  assert.deepEqual(starts, [0, 0, 1000, 3000]);
});

Deno.test("TumblingProcessingTimeWindows.of() rejects abs(offsetMs) >= sizeMs, naming the argument to fix", () => {
  assert.throws(() => TumblingProcessingTimeWindows.of(-1_000), {
    name: "RangeError",
    message:
      "Cannot create TumblingProcessingTimeWindows as 'sizeMs' must satisfy abs(offsetMs) < sizeMs, with offsetMs 0: current value is -1000",
  });
  assert.throws(() => TumblingProcessingTimeWindows.of(10_000, 20_000), {
    name: "RangeError",
    message: /'offsetMs'.*abs\(offsetMs\) < sizeMs.*current value is 20000$/,
  });
  assert.throws(() => TumblingProcessingTimeWindows.of(10_000, -11_000), {
    name: "RangeError",
    message: /'offsetMs'.*abs\(offsetMs\) < sizeMs.*current value is -11000$/,
  });
  assert.throws(() => TumblingProcessingTimeWindows.of(1.5), {
    name: "RangeError",
    message: /'sizeMs'.*1\.5$/,
  });
  assert.throws(
    () => TumblingProcessingTimeWindows.of(null as unknown as number),
    {
      name: "TypeError",
      message: /'sizeMs'.*null$/,
    },
  );
});

Deno.test("TumblingProcessingTimeWindows is a processing-time assigner with a ProcessingTimeTrigger by default", () => {
  const assigner = TumblingProcessingTimeWindows.of(5000, -100);
  assert.equal(assigner.isEventTime, false);
  assert.equal(assigner.isMerging, false);
  assert.ok(assigner.defaultTrigger() instanceof ProcessingTimeTrigger);
  assert.equal(assigner.sizeMs, 5000);
  assert.equal(assigner.offsetMs, -100);
});
