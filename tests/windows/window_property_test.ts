// Property: with lateness 0, the results of all fired tumbling or sliding
// windows equal a brute-force grouping of the records that were on time for
// each window when they arrived (window end - 1 > watermark at arrival).

import assert from "node:assert/strict";
import fc from "fast-check";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { WindowOperator } from "../../src/windows/window_operator.ts";
import type { WindowAssigner } from "../../src/windows/window_assigner.ts";
import { aggregateWindow } from "../../src/windows/window_function.ts";

type Rec = { key: number; value: number };
type Step = { kind: "record"; key: number; ts: number; value: number } | {
  kind: "watermark";
  to: number;
};
type Geometry = { size: number; slide: number; offset: number };

/** Window starts containing `ts`, found by scanning the grid, not by `%`. */
function bruteForceStarts(
  ts: number,
  { size, slide, offset }: Geometry,
): number[] {
  const starts: number[] = [];
  const first = offset + slide * Math.floor((ts - size - offset) / slide);
  for (let start = first; start <= ts; start += slide) {
    if (start <= ts && ts < start + size) starts.push(start);
  }
  return starts;
}

function expected(steps: Step[], geometry: Geometry): string[] {
  let watermark = -Infinity;
  const sums = new Map<string, { sum: number; count: number }>();
  for (const step of steps) {
    if (step.kind === "watermark") {
      watermark = Math.max(watermark, step.to);
      continue;
    }
    for (const start of bruteForceStarts(step.ts, geometry)) {
      const end = start + geometry.size;
      if (end - 1 <= watermark) continue; // the window already fired
      const id = `${step.key}|${start}|${end}`;
      const entry = sums.get(id) ?? { sum: 0, count: 0 };
      entry.sum += step.value;
      entry.count++;
      sums.set(id, entry);
    }
  }
  return [...sums].map(([id, { sum, count }]) => `${id}|${sum}|${count}`)
    .sort();
}

function actual(steps: Step[], assigner: WindowAssigner<Rec>): string[] {
  const results: string[] = [];
  const operator = new WindowOperator<Rec, number, number[], string>({
    assigner,
    keySelector: (r) => r.key,
    clock: new ManualClock(),
    windowFunction: aggregateWindow<Rec, number[], number[], number, string>(
      {
        createAccumulator: () => [0, 0],
        add: (r, acc) => [acc[0] + r.value, acc[1] + 1],
        getResult: (acc) => acc,
        merge: (a, b) => [a[0] + b[0], a[1] + b[1]],
      },
      (key, ctx, [[sum, count]], out) =>
        out(`${key}|${ctx.window.start}|${ctx.window.end}|${sum}|${count}`),
    ),
  }, {
    collect(value, timestamp) {
      const end = Number(value.split("|")[2]);
      assert.equal(timestamp, end - 1, "results carry maxTimestamp()");
      results.push(value);
    },
    sideOutput() {},
    emitWatermark() {},
  });
  for (const step of steps) {
    if (step.kind === "record") operator.processElement(step, step.ts);
    else operator.processWatermark(step.to);
  }
  operator.processWatermark(Infinity);
  assert.equal(operator.numWindows, 0, "every window is cleaned up at the end");
  return results.sort();
}

const stepsArbitrary = fc.tuple(
  fc.array(
    fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant("record" as const),
          key: fc.integer({ min: 0, max: 3 }),
          ts: fc.integer({ min: -50, max: 300 }),
          value: fc.integer({ min: 1, max: 9 }),
        }),
        weight: 4,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant("watermark" as const),
          to: fc.integer({ min: -60, max: 320 }),
        }),
        weight: 1,
      },
    ),
    { maxLength: 120, size: "max" },
  ),
  fc.boolean(),
).map(([steps, inOrder]) => {
  if (!inOrder) return steps as Step[];
  // In order: records ascending, each watermark just below the records so far.
  let maxTs = -Infinity;
  const records = steps.filter((s) => s.kind === "record").sort((a, b) =>
    (a as { ts: number }).ts - (b as { ts: number }).ts
  );
  const ordered: Step[] = [];
  let r = 0;
  for (const step of steps) {
    if (step.kind === "watermark") {
      ordered.push({ kind: "watermark", to: maxTs - 1 });
    } else {
      const record = records[r++] as Step & { ts: number };
      maxTs = Math.max(maxTs, record.ts);
      ordered.push(record);
    }
  }
  return ordered;
});

Deno.test("WindowOperator's tumbling results equal a brute-force grouping of on-time records (property)", () => {
  fc.assert(
    fc.property(
      stepsArbitrary,
      fc.integer({ min: 1, max: 60 }).chain((size) =>
        fc.record({
          size: fc.constant(size),
          offset: fc.integer({ min: -(size - 1), max: size - 1 }),
        })
      ),
      (steps, { size, offset }) => {
        const geometry = { size, slide: size, offset };
        assert.deepEqual(
          actual(steps, TumblingEventTimeWindows.of(size, offset)),
          expected(steps, geometry),
        );
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

Deno.test("WindowOperator's sliding results equal a brute-force grouping of on-time records (property)", () => {
  fc.assert(
    fc.property(
      stepsArbitrary,
      fc.integer({ min: 1, max: 20 }).chain((slide) =>
        fc.record({
          slide: fc.constant(slide),
          size: fc.integer({ min: 1, max: 80 }),
          offset: fc.integer({ min: -(slide - 1), max: slide - 1 }),
        })
      ),
      (steps, geometry) => {
        assert.deepEqual(
          actual(
            steps,
            SlidingEventTimeWindows.of(
              geometry.size,
              geometry.slide,
              geometry.offset,
            ),
          ),
          expected(steps, geometry),
        );
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

/** Sessions by brute force: per key, sorted, windows `[ts, ts + gap)` joined while they touch. */
function expectedSessions(records: Step[], gap: number): string[] {
  const byKey = Map.groupBy(
    records as Array<Step & { key: number; ts: number; value: number }>,
    (r) => r.key,
  );
  const out: string[] = [];
  for (const [key, list] of byKey) {
    const sorted = [...list].sort((a, b) => a.ts - b.ts);
    let start = sorted[0].ts;
    let end = start + gap;
    let sum = 0;
    let count = 0;
    for (const r of sorted) {
      if (r.ts > end) {
        out.push(`${key}|${start}|${end}|${sum}|${count}`);
        start = r.ts;
        sum = 0;
        count = 0;
      }
      end = Math.max(end, r.ts + gap);
      sum += r.value;
      count++;
    }
    out.push(`${key}|${start}|${end}|${sum}|${count}`);
  }
  return out.sort();
}

Deno.test("WindowOperator's session results equal a brute-force sessionisation of records in any order (property)", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          kind: fc.constant("record" as const),
          key: fc.integer({ min: 0, max: 3 }),
          ts: fc.integer({ min: 0, max: 400 }),
          value: fc.integer({ min: 1, max: 9 }),
        }),
        { minLength: 1, maxLength: 120 },
      ),
      fc.integer({ min: 1, max: 40 }),
      (records, gap) => {
        assert.deepEqual(
          actual(records, EventTimeSessionWindows.withGap<Rec>(gap)),
          expectedSessions(records, gap),
        );
      },
    ),
    { numRuns: 400, seed: 42 },
  );
});
