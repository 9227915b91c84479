import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import type { TimeWindow } from "../../src/windows/time_window.ts";

type Span = [number, number];

const context = { clock: new ManualClock() };

function assign(
  assigner: TumblingEventTimeWindows,
  timestamp: number,
  ctx = context,
): Span[] {
  return assigner.assignWindows(null, timestamp, ctx).map((
    w: TimeWindow,
  ) => [w.start, w.end]);
}

Deno.test("TumblingEventTimeWindows.assignWindows() puts each timestamp in one window of the size", () => {
  const assigner = TumblingEventTimeWindows.of(5000);
  assert.deepEqual(assign(assigner, 0), [[0, 5000]]);
  assert.deepEqual(assign(assigner, 4999), [[0, 5000]]);
  assert.deepEqual(assign(assigner, 5000), [[5000, 10000]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() gives out-of-order records around a boundary their own window, reusing the last two", () => {
  const assigner = TumblingEventTimeWindows.of(1000);
  const second = assigner.assignWindows(null, 1500, context);
  const first = assigner.assignWindows(null, 999, context);
  assert.deepEqual(assign(assigner, 1000), [[1000, 2000]]);
  assert.deepEqual(assign(assigner, 0), [[0, 1000]]);
  assert.equal(assigner.assignWindows(null, 1999, context), second);
  assert.equal(assigner.assignWindows(null, 500, context), first);
  assert.deepEqual(assign(assigner, 2000), [[2000, 3000]]);
  assert.deepEqual(assign(assigner, 1001), [[1000, 2000]]);
  assert.deepEqual(assign(assigner, 999), [[0, 1000]]);
  assert.deepEqual(assign(assigner, 2999), [[2000, 3000]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() shifts windows by a positive offset", () => {
  const assigner = TumblingEventTimeWindows.of(5000, 100);
  assert.deepEqual(assign(assigner, 100), [[100, 5100]]);
  assert.deepEqual(assign(assigner, 5099), [[100, 5100]]);
  assert.deepEqual(assign(assigner, 5100), [[5100, 10100]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() shifts windows by a negative offset", () => {
  const assigner = TumblingEventTimeWindows.of(5000, -100);
  assert.deepEqual(assign(assigner, 0), [[-100, 4900]]);
  assert.deepEqual(assign(assigner, 4899), [[-100, 4900]]);
  assert.deepEqual(assign(assigner, 4900), [[4900, 9900]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() shifts 5 s windows by a 1 s offset", () => {
  const assigner = TumblingEventTimeWindows.of(5_000, 1_000);
  assert.deepEqual(assign(assigner, 1000), [[1000, 6000]]);
  assert.deepEqual(assign(assigner, 5999), [[1000, 6000]]);
  assert.deepEqual(assign(assigner, 6000), [[6000, 11000]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() places negative timestamps in windows before epoch", () => {
  const assigner = TumblingEventTimeWindows.of(5000);
  assert.deepEqual(assign(assigner, -1), [[-5000, 0]]);
  assert.deepEqual(assign(assigner, -5000), [[-5000, 0]]);
  assert.deepEqual(assign(assigner, -5001), [[-10000, -5000]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() staggers naturally by the processing time of the first record", () => {
  const clock = new ManualClock(150);
  const ctx = { clock };
  const assigner = TumblingEventTimeWindows.of(5000, 0, { stagger: "natural" });
  assert.deepEqual(assign(assigner, 150, ctx), [[150, 5150]]);
  // The stagger is cached: moving the clock later changes nothing.
  clock.advance(1234);
  assert.deepEqual(assign(assigner, 5099, ctx), [[150, 5150]]);
  assert.deepEqual(assign(assigner, 5300, ctx), [[5150, 10150]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() caches the natural stagger per instance", () => {
  const first = TumblingEventTimeWindows.of(5000, 0, { stagger: "natural" });
  const second = TumblingEventTimeWindows.of(5000, 0, { stagger: "natural" });
  assert.deepEqual(assign(first, 0, { clock: new ManualClock(150) }), [[
    -4850,
    150,
  ]]);
  assert.deepEqual(assign(second, 0, { clock: new ManualClock(5700) }), [[
    -4300,
    700,
  ]]);
  assert.deepEqual(assign(first, 0, { clock: new ManualClock(700) }), [[
    -4850,
    150,
  ]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() adds the natural stagger to the offset modulo the size", () => {
  const assigner = TumblingEventTimeWindows.of(5000, 4900, {
    stagger: "natural",
  });
  // (4900 + 150) % 5000 = 50
  assert.deepEqual(assign(assigner, 60, { clock: new ManualClock(150) }), [[
    50,
    5050,
  ]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() keeps a natural stagger non-negative for a negative clock", () => {
  const assigner = TumblingEventTimeWindows.of(5000, 0, { stagger: "natural" });
  // -150 is 4850 after the start of its aligned window [-5000, 0).
  assert.deepEqual(assign(assigner, 0, { clock: new ManualClock(-150) }), [[
    -150,
    4850,
  ]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() draws a random stagger once from the injected source", () => {
  let draws = 0;
  const random = () => {
    draws++;
    return 0.25;
  };
  const assigner = TumblingEventTimeWindows.of(4000, 0, {
    stagger: "random",
    random,
  });
  assert.equal(draws, 0);
  assert.deepEqual(assign(assigner, 1000), [[1000, 5000]]);
  assert.deepEqual(assign(assigner, 999), [[-3000, 1000]]);
  assert.equal(draws, 1);
});

Deno.test("TumblingEventTimeWindows.assignWindows() truncates a random stagger to whole milliseconds in [0, size)", () => {
  const assigner = TumblingEventTimeWindows.of(5000, 0, {
    stagger: "random",
    random: () => 0.99999999,
  });
  assert.deepEqual(assign(assigner, 4999), [[4999, 9999]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() rejects a random source outside [0, 1), naming it", () => {
  const assigner = TumblingEventTimeWindows.of(5000, 0, {
    stagger: "random",
    random: () => 1,
  });
  assert.throws(() => assign(assigner, 0), {
    name: "RangeError",
    message:
      /'options\.random' must return a number in \[0, 1\): current value is 1$/,
  });
});

Deno.test("TumblingEventTimeWindows.assignWindows() ignores the clock without a stagger", () => {
  const assigner = TumblingEventTimeWindows.of(5000, 0, { stagger: "aligned" });
  assert.deepEqual(assign(assigner, 150, { clock: new ManualClock(150) }), [[
    0,
    5000,
  ]]);
});

Deno.test("TumblingEventTimeWindows.assignWindows() rejects a record without a timestamp, saying how to fix it", () => {
  const assigner = TumblingEventTimeWindows.of(5000);
  for (const ts of [-Infinity, Infinity, NaN]) {
    assert.throws(() => assign(assigner, ts), {
      name: "RangeError",
      message: new RegExp(
        `'timestamp' must be finite: current value is ${ts} \\(the record has no timestamp: call assignTimestampsAndWatermarks\\(\\)`,
      ),
    });
  }
});

Deno.test("TumblingEventTimeWindows.of() rejects a non-positive size, naming 'sizeMs'", () => {
  assert.throws(() => TumblingEventTimeWindows.of(-1_000), {
    name: "RangeError",
    message:
      "Cannot create TumblingEventTimeWindows as 'sizeMs' must satisfy abs(offsetMs) < sizeMs, with offsetMs 0: current value is -1000",
  });
  assert.throws(() => TumblingEventTimeWindows.of(0), {
    name: "RangeError",
    message: /'sizeMs'.*abs\(offsetMs\) < sizeMs.*current value is 0$/,
  });
});

Deno.test("TumblingEventTimeWindows.of() rejects an offset at least the size, naming 'offsetMs'", () => {
  assert.throws(() => TumblingEventTimeWindows.of(10_000, 20_000), {
    name: "RangeError",
    message:
      "Cannot create TumblingEventTimeWindows as 'offsetMs' must satisfy abs(offsetMs) < sizeMs, with sizeMs 10000: current value is 20000",
  });
  assert.throws(() => TumblingEventTimeWindows.of(10_000, -11_000), {
    name: "RangeError",
    message: /'offsetMs'.*abs\(offsetMs\) < sizeMs.*current value is -11000$/,
  });
  assert.throws(() => TumblingEventTimeWindows.of(10_000, 10_000), {
    name: "RangeError",
    message: /'offsetMs'.*current value is 10000$/,
  });
});

Deno.test("TumblingEventTimeWindows.of() rejects sizes and offsets that are not safe integers, naming them", () => {
  assert.throws(() => TumblingEventTimeWindows.of(2.5), {
    name: "RangeError",
    message: /'sizeMs' must be a safe integer: current value is 2\.5$/,
  });
  assert.throws(() => TumblingEventTimeWindows.of(Infinity), {
    name: "RangeError",
    message: /'sizeMs'.*Infinity$/,
  });
  assert.throws(() => TumblingEventTimeWindows.of(5000, NaN), {
    name: "RangeError",
    message: /'offsetMs'.*NaN$/,
  });
  assert.throws(
    () => TumblingEventTimeWindows.of("5000" as unknown as number),
    {
      name: "TypeError",
      message: /'sizeMs'.*"5000"$/,
    },
  );
});

Deno.test("TumblingEventTimeWindows.of() rejects an unknown stagger or a random source that is not a function", () => {
  assert.throws(
    () =>
      TumblingEventTimeWindows.of(5000, 0, { stagger: "wobbly" as "aligned" }),
    {
      name: "RangeError",
      message:
        /'options\.stagger' must be one of "aligned", "natural", "random": current value is "wobbly"$/,
    },
  );
  assert.throws(
    () =>
      TumblingEventTimeWindows.of(5000, 0, {
        stagger: 1 as unknown as "aligned",
      }),
    { name: "TypeError", message: /'options\.stagger'.*1$/ },
  );
  assert.throws(
    () =>
      TumblingEventTimeWindows.of(5000, 0, {
        random: 0.5 as unknown as () => number,
      }),
    { name: "TypeError", message: /'options\.random'.*0\.5$/ },
  );
});

Deno.test("TumblingEventTimeWindows is an event-time, non-merging assigner with an EventTimeTrigger by default", () => {
  const assigner = TumblingEventTimeWindows.of(5000, 100);
  assert.equal(assigner.isEventTime, true);
  assert.equal(assigner.isMerging, false);
  assert.ok(assigner.defaultTrigger() instanceof EventTimeTrigger);
  assert.equal(assigner.sizeMs, 5000);
  assert.equal(assigner.offsetMs, 100);
  assert.equal(String(assigner), "TumblingEventTimeWindows(5000, 100)");
});

Deno.test("TumblingEventTimeWindows tells apart windows clipped to the same start by their ends", () => {
  const assigner = TumblingEventTimeWindows.of(10);
  const context = { clock: new ManualClock(0) };
  const [far] = assigner.assignWindows(null, -(2 ** 60), context);
  const [near] = assigner.assignWindows(null, -1e17, context);
  assert.equal(far.start, Number.MIN_SAFE_INTEGER);
  assert.equal(near.start, Number.MIN_SAFE_INTEGER);
  assert.ok(near.end > -1e17, `${near} holds -1e17`);
  assert.ok(far.end <= -1e17, `${far} ends before -1e17`);
});
