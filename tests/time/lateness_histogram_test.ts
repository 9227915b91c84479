import assert from "node:assert/strict";
import fc from "fast-check";
import { LatenessHistogram } from "../../src/time/lateness_histogram.ts";

/** A histogram holding exactly the given lateness values (plus one 0). */
function histogramOf(latenesses: number[]): LatenessHistogram {
  const histogram = new LatenessHistogram();
  const top = 10 ** 12;
  histogram.record(top);
  for (const lateness of latenesses) histogram.record(top - lateness);
  return histogram;
}

/** The smallest value that at least a fraction q of `sorted` does not exceed. */
function exactQuantile(sorted: number[], q: number): number {
  const rank = Math.max(1, Math.ceil(q * sorted.length * (1 - Number.EPSILON)));
  return sorted[rank - 1];
}

const lateness = fc.oneof(
  fc.integer({ min: 0, max: 2_000 }),
  fc.integer({ min: 0, max: 86_400_000 }),
);

Deno.test("LatenessHistogram.quantile() is within 1/64 above the exact quantile on random data", () => {
  fc.assert(
    fc.property(
      fc.array(lateness, { minLength: 1, maxLength: 400 }),
      fc.constantFrom(0, 0.5, 0.9, 0.95, 0.99, 0.999, 1),
      (values, q) => {
        const histogram = histogramOf(values);
        const sorted = [0, ...values].sort((a, b) => a - b);
        const exact = exactQuantile(sorted, q);
        const estimate = histogram.quantile(q);
        assert.ok(estimate >= exact, `q=${q}: ${estimate} < exact ${exact}`);
        assert.ok(
          estimate <= exact + exact / 64,
          `q=${q}: ${estimate} too far above exact ${exact}`,
        );
        if (exact < 1_024) assert.equal(estimate, exact);
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

Deno.test("LatenessHistogram.lateRatio() never undercounts and is exact below 1024 ms", () => {
  fc.assert(
    fc.property(
      fc.array(lateness, { minLength: 1, maxLength: 400 }),
      fc.oneof(
        fc.integer({ min: 0, max: 1_022 }),
        fc.integer({ min: 0, max: 90_000_000 }),
      ),
      (values, bound) => {
        const histogram = histogramOf(values);
        const all = [0, ...values];
        const exact = all.filter((v) => v > bound).length / all.length;
        // Counted as late at most: everything above the bucket's lower edge.
        const slack = all.filter((v) => v > bound - bound / 64).length /
          all.length;
        const ratio = histogram.lateRatio(bound);
        assert.ok(ratio >= exact && ratio <= slack, `${ratio} vs ${exact}`);
        if (bound < 1_023) assert.equal(ratio, exact);
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

Deno.test("LatenessHistogram.record() measures lateness against the highest timestamp before the record", () => {
  const histogram = new LatenessHistogram();
  for (const ts of [1_000, 990, 1_005, 1_000, 500]) histogram.record(ts);
  // 0, 10, 0 (new max), 5, 505
  assert.equal(histogram.count, 5);
  assert.equal(histogram.max, 505);
  assert.equal(histogram.maxTimestamp, 1_005);
  assert.equal(histogram.quantile(0), 0);
  assert.equal(histogram.quantile(0.5), 5);
  assert.equal(histogram.quantile(0.8), 10);
  assert.equal(histogram.quantile(1), 505);
});

Deno.test("LatenessHistogram.recordAll() counts a batch as record() counts each of its timestamps, skipping -Infinity", () => {
  const timestamp = fc.oneof(
    fc.integer({ min: 0, max: 3_000 }),
    fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
    fc.constant(-Infinity),
    fc.constantFrom(-0, Infinity, NaN),
  );
  fc.assert(
    fc.property(
      fc.array(timestamp, { maxLength: 20 }),
      fc.array(timestamp, { maxLength: 200 }),
      fc.nat(),
      fc.nat(),
      (before, batch, a, b) => {
        const from = batch.length === 0 ? 0 : a % (batch.length + 1);
        const to = from +
          (batch.length === 0 ? 0 : b % (batch.length - from + 1));
        const one = new LatenessHistogram();
        const all = new LatenessHistogram();
        for (const ts of before.filter((ts) => ts !== -Infinity)) {
          one.record(ts);
          all.record(ts);
        }
        for (let i = from; i < to; i++) {
          if (batch[i] !== -Infinity) one.record(batch[i]);
        }
        all.recordAll(batch.slice(from, to));
        assert.deepEqual(all.snapshot(), one.snapshot());
        assert.equal(all.count, one.count);
        const whole = new LatenessHistogram();
        whole.recordAll(batch);
        const each = new LatenessHistogram();
        for (const ts of batch) if (ts !== -Infinity) each.record(ts);
        assert.deepEqual(whole.snapshot(), each.snapshot());
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

// The histograms after record() on each timestamp but -Infinity, and after
// recordAll() on all of them.
function recordedBothWays(
  timestamps: number[],
): [LatenessHistogram, LatenessHistogram] {
  const each = new LatenessHistogram();
  for (const ts of timestamps) if (ts !== -Infinity) each.record(ts);
  const all = new LatenessHistogram();
  all.recordAll(timestamps);
  return [each, all];
}

Deno.test("LatenessHistogram.recordAll() keeps the first of equal maxima as record() does: 0 then -0 leaves 0", () => {
  const [each, all] = recordedBothWays([0, -0]);
  assert.deepEqual(all.snapshot(), each.snapshot());
  assert.ok(Object.is(all.maxTimestamp, 0));
});

Deno.test("LatenessHistogram.recordAll() counts a repeated Infinity where record() does (NaN lateness)", () => {
  const [each, all] = recordedBothWays([Infinity, Infinity]);
  assert.deepEqual(all.snapshot(), each.snapshot());
  assert.equal(all.count, each.count);
  assert.ok(Object.is(all.max, each.max));
});

Deno.test("LatenessHistogram.recordAll() raises a negative largest lateness from a snapshot to 0 on an on-time record, as record() does", () => {
  const snapshot = { maxTimestamp: 100, maxLatenessMs: -5, buckets: [] };
  const each = new LatenessHistogram();
  each.restore(snapshot);
  for (const ts of [200, 150]) each.record(ts);
  const all = new LatenessHistogram();
  all.restore(snapshot);
  all.recordAll([200, 150]);
  assert.deepEqual(all.snapshot(), each.snapshot());
  assert.equal(all.max, 50);
  const onlyOnTime = new LatenessHistogram();
  onlyOnTime.restore(snapshot);
  onlyOnTime.recordAll([200]);
  assert.equal(onlyOnTime.max, 0);
});

Deno.test("LatenessHistogram.recordAll() rejects timestamps that are not an array with a TypeError naming the parameter and value", () => {
  const histogram = new LatenessHistogram();
  for (const bad of [undefined, 5, "12"]) {
    assert.throws(
      () => histogram.recordAll(bad as unknown as number[]),
      {
        name: "TypeError",
        message: new RegExp(
          `'timestamps' must be an array: current value is ${
            bad === "12" ? '"12"' : String(bad)
          }`,
        ),
      },
    );
  }
  assert.equal(histogram.count, 0);
});

Deno.test("LatenessHistogram.quantile() reports 0 and lateRatio() 0 when nothing was counted", () => {
  const histogram = new LatenessHistogram();
  assert.equal(histogram.quantile(0.99), 0);
  assert.equal(histogram.lateRatio(0), 0);
  assert.equal(histogram.suggestedDelayMs(), 0);
  assert.equal(histogram.max, 0);
  assert.equal(histogram.maxTimestamp, -Infinity);
});

Deno.test("LatenessHistogram.quantile() never reports more than the exact maximum", () => {
  const histogram = histogramOf([5_000, 100_000_000_000]);
  assert.equal(histogram.quantile(1), 100_000_000_000);
  assert.equal(histogram.max, 100_000_000_000);
  assert.equal(histogramOf([5_001]).quantile(1), 5_001);
});

Deno.test("LatenessHistogram.suggestedDelayMs() is the p99 plus 20%, rounded up", () => {
  fc.assert(
    fc.property(
      fc.array(lateness, { minLength: 1, maxLength: 200 }),
      (values) => {
        const histogram = histogramOf(values);
        assert.equal(
          histogram.suggestedDelayMs(),
          Math.ceil(histogram.quantile(0.99) * 1.2),
        );
      },
    ),
    { seed: 7, numRuns: 100 },
  );
  // 0, 10, ..., 1000 ms: the p99 is 990 ms, suggesting 1188 ms.
  const spread = histogramOf(
    Array.from({ length: 100 }, (_, i) => i * 10 + 10),
  );
  assert.equal(spread.quantile(0.99), 990);
  assert.equal(spread.suggestedDelayMs(), 1_188);
  // An exact multiple stays exact: p99 5 ms suggests 6 ms, not 7.
  assert.equal(histogramOf([5]).suggestedDelayMs(), 6);
});

Deno.test("LatenessHistogram.reset() forgets the counts but keeps the highest timestamp", () => {
  const histogram = histogramOf([100, 200]);
  histogram.reset();
  assert.equal(histogram.count, 0);
  assert.equal(histogram.max, 0);
  assert.equal(histogram.quantile(1), 0);
  histogram.record(10 ** 12 - 50);
  assert.equal(histogram.max, 50);
});

Deno.test("LatenessHistogram.snapshot() round-trips through restore() and JSON", () => {
  fc.assert(
    fc.property(fc.array(lateness, { maxLength: 300 }), (values) => {
      const original = histogramOf(values);
      const copy = new LatenessHistogram();
      copy.restore(JSON.parse(JSON.stringify(original.snapshot())));
      assert.deepEqual(copy.snapshot(), original.snapshot());
      assert.equal(copy.count, original.count);
      for (const q of [0, 0.5, 0.95, 0.99, 1]) {
        assert.equal(copy.quantile(q), original.quantile(q));
      }
      copy.record(10 ** 12 + 1);
      assert.equal(copy.maxTimestamp, 10 ** 12 + 1);
      assert.equal(original.maxTimestamp, 10 ** 12);
    }),
    { seed: 11, numRuns: 50 },
  );
});

Deno.test("LatenessHistogram.quantile() rejects a fraction outside [0, 1]", () => {
  const histogram = new LatenessHistogram();
  assert.throws(() => histogram.quantile(1.5), {
    name: "RangeError",
    message: /'q' must be a number from 0 to 1: current value is 1\.5/,
  });
  assert.throws(() => histogram.quantile(NaN), {
    name: "RangeError",
    message: /'q'.*NaN/,
  });
  assert.throws(() => histogram.quantile("0.5" as unknown as number), {
    name: "TypeError",
    message: /'q'.*"0\.5"/,
  });
});

Deno.test("LatenessHistogram.lateRatio() rejects a negative bound", () => {
  assert.throws(() => new LatenessHistogram().lateRatio(-1), {
    name: "RangeError",
    message: /'boundMs'.*-1/,
  });
});

Deno.test("LatenessHistogram.restore() rejects a bucket index out of range", () => {
  assert.throws(
    () =>
      new LatenessHistogram().restore({
        maxTimestamp: 0,
        maxLatenessMs: 0,
        buckets: [[99_999, 1]],
      }),
    { name: "RangeError", message: /'buckets'.*\[99999,1\]/ },
  );
});
