import assert from "node:assert/strict";
import { AdaptiveOutOfOrdernessWatermarks } from "../../src/time/adaptive_out_of_orderness.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

const options = {
  bucketWidthMs: 1_000,
  numBuckets: 3,
  floorLatenessMs: 50,
  ceilingLatenessMs: 5_000,
};

function feed(
  generator: AdaptiveOutOfOrdernessWatermarks<null>,
  timestamps: number[],
): void {
  const output = new RecordingOutput();
  for (const ts of timestamps) generator.onEvent(null, ts, output);
}

Deno.test("AdaptiveOutOfOrdernessWatermarks emits nothing before the first record", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  const output = new RecordingOutput();
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, []);
  assert.equal(generator.currentWatermark, -Infinity);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks uses the floor while the stream is in order", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  feed(generator, [10_000, 10_100, 10_200]);
  const output = new RecordingOutput();
  generator.onPeriodicEmit(output);
  assert.equal(generator.currentBudgetMs, 50);
  assert.deepEqual(output.calls, [10_200 - 50 - 1]);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks budgets twice the worst observed lateness", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  feed(generator, [10_000, 9_900, 9_700, 9_800]);
  assert.equal(generator.currentBudgetMs, 600);
  assert.equal(generator.currentWatermark, 10_000 - 600 - 1);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks caps the budget at the ceiling", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  feed(generator, [100_000, 90_000]);
  assert.equal(generator.currentBudgetMs, 5_000);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks forgets lateness older than numBuckets × bucketWidthMs of event time", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  feed(generator, [10_000, 9_600]); // 400 late in bucket [10000, 11000)
  feed(generator, [11_500, 12_500]); // two more buckets: still remembered
  assert.equal(generator.currentBudgetMs, 800);
  feed(generator, [13_000]); // third rotation drops the first bucket
  assert.equal(generator.currentBudgetMs, 50);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks clears every bucket after a jump longer than the window", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  feed(generator, [10_000, 9_000, 1_000_000]);
  assert.equal(generator.currentBudgetMs, 50);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks buckets negative timestamps by floor, not truncation", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  feed(generator, [-2_500, -2_800]); // bucket [-3000, -2000), 300 late
  assert.equal(generator.currentBudgetMs, 600);
  feed(generator, [0]); // three buckets later: forgotten (truncation would count two)
  assert.equal(generator.currentBudgetMs, 50);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks rounds a fractional safety factor up", () => {
  const generator = new AdaptiveOutOfOrdernessWatermarks<null>({
    ...options,
    safetyFactor: 1.5,
  });
  feed(generator, [10_000, 9_899]);
  assert.equal(generator.currentBudgetMs, 152);
});

Deno.test("AdaptiveOutOfOrdernessWatermarks resumes from a snapshot with the same budget", () => {
  const first = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  feed(first, [10_000, 9_700, 11_200]);
  const second = new AdaptiveOutOfOrdernessWatermarks<null>(options);
  second.restoreState(structuredClone(first.snapshotState()));
  assert.equal(second.currentWatermark, first.currentWatermark);
  feed(first, [13_100]);
  feed(second, [13_100]);
  assert.equal(second.currentBudgetMs, first.currentBudgetMs);
  assert.throws(
    () =>
      new AdaptiveOutOfOrdernessWatermarks({ numBuckets: 4 }).restoreState(
        first.snapshotState(),
      ),
    { name: "RangeError", message: /'buckets'.*3/ },
  );
});

Deno.test("AdaptiveOutOfOrdernessWatermarks rejects bad options naming the field and value", () => {
  const cases: Array<[object, RegExp]> = [
    [{ bucketWidthMs: 0 }, /'bucketWidthMs'.*0/],
    [{ numBuckets: 2.5 }, /'numBuckets'.*2\.5/],
    [{ floorLatenessMs: -1 }, /'floorLatenessMs'.*-1/],
    [{ floorLatenessMs: 10, ceilingLatenessMs: 5 }, /'ceilingLatenessMs'.*5/],
    [{ safetyFactor: 0.5 }, /'safetyFactor'.*0\.5/],
  ];
  for (const [bad, message] of cases) {
    assert.throws(() => new AdaptiveOutOfOrdernessWatermarks(bad), {
      name: "RangeError",
      message,
    });
  }
});
