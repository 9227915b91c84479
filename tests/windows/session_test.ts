import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { TimeWindow } from "../../src/windows/time_window.ts";

type Span = [number, number];

const context = { clock: new ManualClock() };

function span(window: TimeWindow): Span {
  return [window.start, window.end];
}

function assign<T>(
  assigner: EventTimeSessionWindows<T>,
  element: T,
  timestamp: number,
): Span[] {
  return assigner.assignWindows(element, timestamp, context).map(span);
}

Deno.test("EventTimeSessionWindows.assignWindows() gives each record the window [timestamp, timestamp + gap)", () => {
  const assigner = EventTimeSessionWindows.withGap(5000);
  assert.deepEqual(assign(assigner, null, 0), [[0, 5000]]);
  assert.deepEqual(assign(assigner, null, 4999), [[4999, 9999]]);
  assert.deepEqual(assign(assigner, null, 5000), [[5000, 10000]]);
  assert.deepEqual(assign(assigner, null, -3), [[-3, 4997]]);
});

Deno.test("EventTimeSessionWindows.withGap() rejects a gap that is not positive, naming 'gapMs'", () => {
  assert.throws(() => EventTimeSessionWindows.withGap(0), {
    name: "RangeError",
    message:
      "Cannot create EventTimeSessionWindows as 'gapMs' must be a safe integer with 0 < gapMs: current value is 0",
  });
  assert.throws(() => EventTimeSessionWindows.withGap(-1_000), {
    name: "RangeError",
    message: /'gapMs'.*0 < gapMs: current value is -1000$/,
  });
  assert.throws(() => EventTimeSessionWindows.withGap(2.5), {
    name: "RangeError",
    message: /'gapMs'.*0 < gapMs: current value is 2\.5$/,
  });
  assert.throws(() => EventTimeSessionWindows.withGap(NaN), {
    name: "RangeError",
    message: /'gapMs'.*NaN$/,
  });
  assert.throws(
    () => EventTimeSessionWindows.withGap("5000" as unknown as number),
    {
      name: "TypeError",
      message: /'gapMs'.*0 < gapMs: current value is "5000"$/,
    },
  );
});

Deno.test("EventTimeSessionWindows.withDynamicGap() takes each record's gap from the extractor", () => {
  const seen: string[] = [];
  const assigner = EventTimeSessionWindows.withDynamicGap<
    { user: string; gapMs: number }
  >(
    (event) => {
      seen.push(event.user);
      return event.gapMs;
    },
  );
  assert.deepEqual(assign(assigner, { user: "a", gapMs: 100 }, 1000), [[
    1000,
    1100,
  ]]);
  assert.deepEqual(assign(assigner, { user: "b", gapMs: 5000 }, 1000), [[
    1000,
    6000,
  ]]);
  assert.deepEqual(seen, ["a", "b"]);
});

Deno.test("EventTimeSessionWindows.assignWindows() rejects each dynamic gap that is not a positive safe integer, naming 'gap'", () => {
  const assigner = EventTimeSessionWindows.withDynamicGap((gap: unknown) =>
    gap as number
  );
  for (
    const [gap, text] of [[0, "0"], [-1000, "-1000"], [1.5, "1\\.5"], [
      NaN,
      "NaN",
    ]] as const
  ) {
    assert.throws(() => assign(assigner, gap, 0), {
      name: "RangeError",
      message: new RegExp(
        `^Cannot assign windows with EventTimeSessionWindows as 'gap' must be a positive safe integer: current value is ${text}$`,
      ),
    });
  }
  assert.throws(() => assign(assigner, "5000", 0), {
    name: "TypeError",
    message: /'gap'.*"5000"$/,
  });
  // A bad record does not poison the assigner.
  assert.deepEqual(assign(assigner, 10, 0), [[0, 10]]);
});

Deno.test("EventTimeSessionWindows.withDynamicGap() rejects an extractor that is not a function, naming 'extractor'", () => {
  assert.throws(
    () =>
      EventTimeSessionWindows.withDynamicGap(5000 as unknown as () => number),
    {
      name: "TypeError",
      message:
        "Cannot create EventTimeSessionWindows as 'extractor' must be a function: current value is 5000",
    },
  );
});

Deno.test("EventTimeSessionWindows.assignWindows() rejects a record without a timestamp, saying how to fix it", () => {
  for (
    const assigner of [
      EventTimeSessionWindows.withGap(5000),
      EventTimeSessionWindows.withDynamicGap(() => 5000),
    ]
  ) {
    assert.throws(() => assign(assigner, null, -Infinity), {
      name: "RangeError",
      message:
        /'timestamp' must be finite: current value is -Infinity \(the record has no timestamp: call assignTimestampsAndWatermarks\(\)/,
    });
  }
});

Deno.test("EventTimeSessionWindows.mergeWindows() merges the windows of records at most a gap apart", () => {
  const assigner = EventTimeSessionWindows.withGap(5000);
  const windows = [0, 5000, 3000, 20_000, 12_000].flatMap((ts) =>
    assigner.assignWindows(null, ts, context)
  );
  const calls: { merged: Span[]; result: Span }[] = [];
  assigner.mergeWindows(windows, (merged, result) => {
    calls.push({ merged: merged.map(span), result: span(result) });
  });
  // [12000, 17000) and [20000, 25000) stay single: no call for them.
  assert.deepEqual(calls, [
    { merged: [[0, 5000], [3000, 8000], [5000, 10000]], result: [0, 10000] },
  ]);
});

Deno.test("EventTimeSessionWindows.mergeWindows() reproduces the session merge vectors with the exact number of calls", () => {
  const assigner = EventTimeSessionWindows.withGap(1);
  const run = (spans: Span[]) => {
    const calls: { merged: Span[]; result: Span }[] = [];
    assigner.mergeWindows(
      spans.map(([start, end]) => new TimeWindow(start, end)),
      (merged, result) => {
        calls.push({ merged: merged.map(span), result: span(result) });
      },
    );
    return calls;
  };
  assert.deepEqual(run([[0, 0]]), []);
  assert.deepEqual(run([[0, 1]]), []);
  assert.deepEqual(run([[0, 1], [1, 2], [2, 3], [4, 5], [5, 6]]), [
    { merged: [[0, 1], [1, 2], [2, 3]], result: [0, 3] },
    { merged: [[4, 5], [5, 6]], result: [4, 6] },
  ]);
  const nested = run([[1, 1], [0, 2], [4, 7], [5, 6]]);
  assert.equal(nested.length, 2);
  // Groups are sets in Flink's test: compare them sorted.
  const sorted = (spans: Span[]) => spans.toSorted((a, b) => a[0] - b[0]);
  assert.deepEqual(sorted(nested[0].merged), [[0, 2], [1, 1]]);
  assert.deepEqual(nested[0].result, [0, 2]);
  assert.deepEqual(sorted(nested[1].merged), [[4, 7], [5, 6]]);
  assert.deepEqual(nested[1].result, [4, 7]);
});

Deno.test("EventTimeSessionWindows is an event-time, merging assigner with an EventTimeTrigger by default", () => {
  for (
    const assigner of [
      EventTimeSessionWindows.withGap(5000),
      EventTimeSessionWindows.withDynamicGap(() => 5000),
    ]
  ) {
    assert.equal(assigner.isEventTime, true);
    assert.equal(assigner.isMerging, true);
    const trigger = assigner.defaultTrigger();
    assert.ok(trigger instanceof EventTimeTrigger);
    assert.equal(trigger.canMerge, true);
  }
  assert.equal(
    String(EventTimeSessionWindows.withGap(5000)),
    "EventTimeSessionWindows(5000)",
  );
});
