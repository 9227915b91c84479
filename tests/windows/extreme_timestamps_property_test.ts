// Property: for any safe timestamp, including those near the
// ends of the safe range, the assigners return exactly the windows of
// Flink's grid, computed here in BigInt, clipped to the safe range:
// [max(start, MIN_SAFE_INTEGER), min(end, MAX_SAFE_INTEGER + 1)).

import assert from "node:assert/strict";
import fc from "fast-check";
import { ManualClock } from "../../src/time/clock.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TimeWindow } from "../../src/windows/time_window.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";

const MAX = Number.MAX_SAFE_INTEGER;
const MIN = Number.MIN_SAFE_INTEGER;
const LOW = BigInt(MIN);
const END = BigInt(MAX) + 1n;
const context = { clock: new ManualClock() };

/** Flink's windows of `t`, latest start first, in exact arithmetic, clipped. */
function reference(
  t: number,
  size: number,
  slide: number,
  offset: number,
): number[][] {
  const ts = BigInt(t);
  const period = BigInt(slide);
  const rest = (ts - BigInt(offset)) % period;
  const windows: number[][] = [];
  let start = ts - (rest < 0n ? rest + period : rest);
  for (; start > ts - BigInt(size); start -= period) {
    const end = start + BigInt(size);
    windows.push([
      Number(start < LOW ? LOW : start),
      Number(end > END ? END : end),
    ]);
  }
  return windows;
}

/** Timestamps clustered near an end of the safe range, or anywhere in it. */
const timestamps = fc.oneof(
  fc.integer({ min: 0, max: 5_000_000 }).map((d) => MAX - d),
  fc.integer({ min: 0, max: 5_000_000 }).map((d) => MIN + d),
  fc.maxSafeInteger().map((n) => n),
).chain((base) =>
  fc.array(
    fc.integer({ min: -3_000, max: 3_000 }).map((d) =>
      Math.min(MAX, Math.max(MIN, base + d))
    ),
    { minLength: 1, maxLength: 8 },
  )
);

/** A slide (or tumbling size) and an offset with `|offset| < slide`. */
const periods = fc.oneof(
  fc.integer({ min: 1, max: 5_000 }),
  fc.integer({ min: 1, max: MAX }),
).chain((slide) =>
  fc.tuple(
    fc.constant(slide),
    fc.integer({ min: -(slide - 1), max: slide - 1 }),
  )
);

Deno.test("TumblingEventTimeWindows and getWindowStartWithOffset() match exact arithmetic, clipped, for any safe timestamp", () => {
  fc.assert(
    fc.property(periods, timestamps, ([size, offset], tss) => {
      const assigner = TumblingEventTimeWindows.of<null>(size, offset);
      for (const ts of tss) {
        const expected = reference(ts, size, size, offset);
        const actual = assigner.assignWindows(null, ts, context).map((w) => [
          w.start,
          w.end,
        ]);
        assert.deepEqual(actual, expected, `ts ${ts}`);
        assert.equal(
          TimeWindow.getWindowStartWithOffset(ts, offset, size),
          expected[0][0],
        );
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("SlidingEventTimeWindows matches exact arithmetic, clipped, for any safe timestamp", () => {
  const geometry = periods.chain(([slide, offset]) =>
    fc.tuple(
      fc.integer({ min: 1, max: Math.min(MAX, slide * 7 + 3) }),
      fc.constant(slide),
      fc.constant(offset),
    )
  );
  fc.assert(
    fc.property(geometry, timestamps, ([size, slide, offset], tss) => {
      const assigner = SlidingEventTimeWindows.of<null>(size, slide, offset);
      for (const ts of tss) {
        const actual = assigner.assignWindows(null, ts, context).map((w) => [
          w.start,
          w.end,
        ]);
        assert.deepEqual(
          actual,
          reference(ts, size, slide, offset),
          `ts ${ts}`,
        );
      }
    }),
    { numRuns: 500 },
  );
});
