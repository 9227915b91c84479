import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";

type Span = [number, number];

const context = { clock: new ManualClock() };

function assign(assigner: SlidingEventTimeWindows, timestamp: number): Span[] {
  return assigner.assignWindows(null, timestamp, context).map((w) => [
    w.start,
    w.end,
  ]);
}

/** The windows of Flink's sliding-window table, which lists them by ascending start. */
function ascending(
  firstStart: number,
  count: number,
  size: number,
  slide: number,
): Span[] {
  return Array.from({ length: count }, (_, i) => {
    const start = firstStart + i * slide;
    return [start, start + size] as Span;
  });
}

/** Flink's loop yields the latest start first. */
function expected(
  firstStart: number,
  count: number,
  size: number,
  slide: number,
): Span[] {
  return ascending(firstStart, count, size, slide).toReversed();
}

Deno.test("SlidingEventTimeWindows.assignWindows() returns windows in descending start order, as Flink's loop does", () => {
  const assigner = SlidingEventTimeWindows.of(5000, 1000);
  assert.deepEqual(assign(assigner, 0), [
    [0, 5000],
    [-1000, 4000],
    [-2000, 3000],
    [-3000, 2000],
    [-4000, 1000],
  ]);
});

Deno.test("SlidingEventTimeWindows.assignWindows() puts each timestamp in size / slide windows", () => {
  const assigner = SlidingEventTimeWindows.of(5000, 1000);
  assert.deepEqual(assign(assigner, 0), expected(-4000, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 4999), expected(0, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 5000), expected(1000, 5, 5000, 1000));
});

Deno.test("SlidingEventTimeWindows.assignWindows() gives out-of-order records around a slide boundary their own windows, reusing the last two sets", () => {
  const assigner = SlidingEventTimeWindows.of(2000, 500);
  const later = assigner.assignWindows(null, 1000, context);
  const earlier = assigner.assignWindows(null, 999, context);
  assert.deepEqual(assign(assigner, 1499), expected(-500, 4, 2000, 500));
  assert.deepEqual(assign(assigner, 500), expected(-1000, 4, 2000, 500));
  assert.equal(assigner.assignWindows(null, 1001, context), later);
  assert.equal(assigner.assignWindows(null, 501, context), earlier);
  assert.deepEqual(assign(assigner, 1500), expected(0, 4, 2000, 500));
  assert.deepEqual(assign(assigner, 1000), expected(-500, 4, 2000, 500));
  assert.deepEqual(assign(assigner, 999), expected(-1000, 4, 2000, 500));
});

Deno.test("SlidingEventTimeWindows.assignWindows() shifts window starts by a positive offset", () => {
  const assigner = SlidingEventTimeWindows.of(5000, 1000, 100);
  assert.deepEqual(assign(assigner, 100), expected(-3900, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 5099), expected(100, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 5100), expected(1100, 5, 5000, 1000));
});

Deno.test("SlidingEventTimeWindows.assignWindows() shifts window starts by a negative offset", () => {
  const assigner = SlidingEventTimeWindows.of(5000, 1000, -100);
  assert.deepEqual(assign(assigner, 0), expected(-4100, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 4899), expected(-100, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 4900), expected(900, 5, 5000, 1000));
});

Deno.test("SlidingEventTimeWindows.assignWindows() shifts 5 s windows every 1 s by 500 ms", () => {
  const assigner = SlidingEventTimeWindows.of(5_000, 1_000, 500);
  assert.deepEqual(assign(assigner, 100), expected(-4500, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 5499), expected(500, 5, 5000, 1000));
  assert.deepEqual(assign(assigner, 5100), expected(500, 5, 5000, 1000));
});

Deno.test("SlidingEventTimeWindows.assignWindows() leaves timestamps between windows unassigned when the slide exceeds the size", () => {
  const assigner = SlidingEventTimeWindows.of(1000, 5000);
  assert.deepEqual(assign(assigner, 0), [[0, 1000]]);
  assert.deepEqual(assign(assigner, 999), [[0, 1000]]);
  assert.deepEqual(assign(assigner, 1000), []);
  assert.deepEqual(assign(assigner, 4999), []);
});

Deno.test("SlidingEventTimeWindows.assignWindows() rounds up the window count when the slide does not divide the size", () => {
  const assigner = SlidingEventTimeWindows.of(5000, 2000);
  assert.deepEqual(assign(assigner, 4000), [[4000, 9000], [2000, 7000], [
    0,
    5000,
  ]]);
  assert.deepEqual(assign(assigner, 5000), [[4000, 9000], [2000, 7000]]);
});

Deno.test("SlidingEventTimeWindows.assignWindows() rejects a record without a timestamp, saying how to fix it", () => {
  const assigner = SlidingEventTimeWindows.of(5000, 1000);
  assert.throws(() => assign(assigner, -Infinity), {
    name: "RangeError",
    message:
      /^Cannot assign windows with SlidingEventTimeWindows as 'timestamp' must be finite: current value is -Infinity \(the record has no timestamp: call assignTimestampsAndWatermarks\(\)/,
  });
});

Deno.test("SlidingEventTimeWindows.of() rejects invalid sizes, slides and offsets, naming the argument to fix", () => {
  const rows: [number, number, number, string, number][] = [
    [-2_000, 1_000, 0, "sizeMs", -2000],
    [2_000, -1_000, 0, "slideMs", -1000],
    [-20_000, 10_000, -1_000, "sizeMs", -20000],
    [20_000, 10_000, -11_000, "offsetMs", -11000],
    [20_000, 10_000, 11_000, "offsetMs", 11000],
  ];
  for (const [size, slide, offset, param, value] of rows) {
    assert.throws(() => SlidingEventTimeWindows.of(size, slide, offset), {
      name: "RangeError",
      message: new RegExp(
        `^Cannot create SlidingEventTimeWindows as '${param}' must satisfy abs\\(offsetMs\\) < slideMs and sizeMs > 0.*: current value is ${value}$`,
      ),
    }, `(${size}, ${slide}, ${offset})`);
  }
});

Deno.test("SlidingEventTimeWindows.of() rejects more than 10_000_000 windows per record, naming 'slideMs'", () => {
  assert.throws(() => SlidingEventTimeWindows.of(10_000_001, 1), {
    name: "RangeError",
    message:
      "Cannot create SlidingEventTimeWindows as 'slideMs' must satisfy sizeMs / slideMs <= 10000000, with sizeMs 10000001: current value is 1",
  });
  // Java's long division truncates: 20_000_001 / 2 = 10_000_000 passes.
  assert.equal(SlidingEventTimeWindows.of(20_000_001, 2).slideMs, 2);
  assert.equal(SlidingEventTimeWindows.of(10_000_000, 1).sizeMs, 10_000_000);
});

Deno.test("SlidingEventTimeWindows.of() rejects arguments that are not safe integers, naming them", () => {
  assert.throws(() => SlidingEventTimeWindows.of(5000, 0.5), {
    name: "RangeError",
    message: /'slideMs' must be a safe integer: current value is 0\.5$/,
  });
  assert.throws(() => SlidingEventTimeWindows.of(5000, 1000, NaN), {
    name: "RangeError",
    message: /'offsetMs'.*NaN$/,
  });
  assert.throws(
    () => SlidingEventTimeWindows.of(5000n as unknown as number, 1000),
    { name: "TypeError", message: /'sizeMs'.*5000n$/ },
  );
});

Deno.test("SlidingEventTimeWindows is an event-time, non-merging assigner with an EventTimeTrigger by default", () => {
  const assigner = SlidingEventTimeWindows.of(5000, 1000, 100);
  assert.equal(assigner.isEventTime, true);
  assert.equal(assigner.isMerging, false);
  assert.ok(assigner.defaultTrigger() instanceof EventTimeTrigger);
  assert.deepEqual(
    [assigner.sizeMs, assigner.slideMs, assigner.offsetMs],
    [5000, 1000, 100],
  );
});
