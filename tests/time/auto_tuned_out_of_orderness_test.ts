import assert from "node:assert/strict";
import {
  type AutoTunedOutOfOrdernessOptions,
  AutoTunedOutOfOrdernessWatermarks,
} from "../../src/time/auto_tuned_out_of_orderness.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

const START = 1_000_000;
const FLOOR = 500;
const CEILING = 20_000;
const WIDEN = "widen: late ratio above target";
const NARROW = "narrow: delay above 1.5 × suggested delay";
const STOPPED = "stopped: narrowing did not reduce lag";

/** Mulberry32: a deterministic PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What happened during one tuning interval. */
interface Interval {
  /** Records that arrived. */
  records: number;
  /** Records later than the delay in force: `maxTimestamp - ts > delay`. */
  late: number;
  /** Records at or below the last watermark emitted before them. */
  dropped: number;
}

interface Run {
  generator: AutoTunedOutOfOrdernessWatermarks<null>;
  intervals: Interval[];
  delays: number[];
}

/**
 * Drives a generator for `durationMs` of processing time: a record every
 * 10 ms with event time `eventTime(now)`, a periodic emit every 200 ms.
 */
function simulate(
  durationMs: number,
  tuneIntervalMs: number,
  eventTime: (now: number) => number,
): Run {
  const clock = new ManualClock(START);
  const generator = new AutoTunedOutOfOrdernessWatermarks<null>(clock, {
    initialDelayMs: 1_000,
    floorMs: FLOOR,
    ceilingMs: CEILING,
    tuneIntervalMs,
  });
  const output = new RecordingOutput();
  const intervals: Interval[] = [];
  const delays: number[] = [];
  let maxTimestamp = -Infinity;
  for (let elapsed = 10; elapsed <= durationMs; elapsed += 10) {
    clock.advance(10);
    const index = Math.floor((elapsed - 1) / tuneIntervalMs);
    const interval = intervals[index] ??= { records: 0, late: 0, dropped: 0 };
    const ts = eventTime(clock.now());
    generator.onEvent(null, ts, output);
    interval.records++;
    if (maxTimestamp - ts > generator.currentDelayMs) interval.late++;
    if (ts <= (output.lastWatermark ?? -Infinity)) interval.dropped++;
    if (ts > maxTimestamp) maxTimestamp = ts;
    if (elapsed % 200 === 0) {
      generator.onPeriodicEmit(output);
      delays.push(generator.currentDelayMs);
    }
  }
  return { generator, intervals, delays };
}

/** Lateness level over time: 1 s, up to 8 s over 140 s, 8 s, back down, 1 s. */
function level(elapsed: number): number {
  const phases = [20_000, 140_000, 20_000, 140_000];
  if (elapsed < phases[0]) return 1_000;
  elapsed -= phases[0];
  if (elapsed < phases[1]) return 1_000 + 7_000 * elapsed / phases[1];
  elapsed -= phases[1];
  if (elapsed < phases[2]) return 8_000;
  elapsed -= phases[2];
  if (elapsed < phases[3]) return 8_000 - 7_000 * elapsed / phases[3];
  return 1_000;
}

Deno.test("AutoTunedOutOfOrdernessWatermarks follows lateness rising from 1 s to 8 s and back, keeping late records below 1% after each step", () => {
  const random = prng(2024);
  const interval = 2_000;
  const { generator, intervals, delays } = simulate(
    380_000,
    interval,
    (now) => now - Math.floor(random() * level(now - START)),
  );
  const history = generator.history;
  const stepAt = (k: number) =>
    history.find((step) => step.at === START + (k + 1) * interval);

  // The delay stays within its limits, climbs to the 8 s plateau without
  // overshooting by much, and comes back. (Lateness counts from the highest
  // timestamp, which trails processing time by a few hundred ms, so the
  // plateau needs a little less than 8 s.)
  assert.ok(delays.every((d) => d >= FLOOR && d <= CEILING));
  assert.ok(delays[180_000 / 200 - 1] >= 7_000, "end of the 8 s plateau");
  assert.ok(Math.max(...delays) <= 10_000);
  assert.ok(generator.currentDelayMs >= 1_000);
  assert.ok(generator.currentDelayMs <= 2_000);

  // A reactive tuner sees lateness only after it happened: an interval with
  // more than 1% late records ends in a widening step, and the interval
  // after each adjustment stays below 1%.
  intervals.forEach((current, k) => {
    if (current.late / current.records > 0.01) {
      assert.equal(stepAt(k)?.reason, WIDEN, `interval ${k} was not widened`);
    }
    const step = stepAt(k);
    if (step !== undefined && k + 1 < intervals.length) {
      const next = intervals[k + 1];
      assert.ok(
        next.late / next.records < 0.01,
        `interval ${k + 1} after ${step.reason}`,
      );
    }
  });
  // Overall, few records are late, and fewer still fall behind the watermark
  // actually emitted (which trails the highest timestamp and never decreases).
  const sum = (pick: (i: Interval) => number) =>
    intervals.reduce((total, i) => total + pick(i), 0);
  const records = sum((i) => i.records);
  assert.ok(sum((i) => i.late) / records < 0.003);
  assert.ok(sum((i) => i.dropped) / records < 0.003);

  // Each step is in the history with its reason, and moves by about 20%.
  const widened = history.filter((step) => step.reason === WIDEN);
  const narrowed = history.filter((step) => step.reason === NARROW);
  assert.equal(widened.length + narrowed.length, history.length);
  assert.ok(widened.length >= 5 && narrowed.length >= 5);
  for (const step of widened) {
    assert.ok(step.lateRatio > 0.01);
    assert.ok(step.toMs >= Math.ceil(step.fromMs * 1.2));
    assert.ok(step.toMs >= Math.ceil(step.p99Ms * 1.2));
  }
  for (const step of narrowed) {
    assert.ok(step.lateRatio < 0.001);
    assert.ok(step.fromMs > 1.5 * Math.ceil(step.p99Ms * 1.2));
    assert.equal(
      step.toMs,
      Math.max(
        FLOOR,
        Math.ceil(step.p99Ms * 1.2),
        Math.floor(step.fromMs * 0.8),
      ),
    );
  }
  assert.ok(history.every((step, i) => i === 0 || step.at > history[i - 1].at));
  assert.equal(generator.frozen, false);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks stops after three narrowing steps that did not reduce the lag", () => {
  // A backlogged source: records in order, but event time advances at a
  // fifth of processing time, so the lag grows faster than narrowing cuts it.
  const { generator } = simulate(
    20_000,
    1_000,
    (now) => START + Math.floor((now - START) / 5),
  );
  const history = generator.history;
  assert.deepEqual(
    history.map((step) => [step.reason, step.fromMs, step.toMs]),
    [
      [NARROW, 1_000, 800],
      [NARROW, 800, 640],
      [NARROW, 640, 512],
      [STOPPED, 512, 512],
    ],
  );
  assert.equal(generator.frozen, true);
  assert.ok(
    history.slice(1).every((step, i) => step.lagMs >= history[i].lagMs),
  );
  assert.equal(generator.currentDelayMs, 512);
});

/** A generator on a manual clock, with the given options. */
function setup(options: AutoTunedOutOfOrdernessOptions = {}) {
  const clock = new ManualClock(START);
  const generator = new AutoTunedOutOfOrdernessWatermarks<null>(clock, {
    initialDelayMs: 1_000,
    tuneIntervalMs: 1_000,
    ...options,
  });
  const output = new RecordingOutput();
  const feed = (...timestamps: number[]) => {
    for (const ts of timestamps) generator.onEvent(null, ts, output);
  };
  /** Advances the clock by `ms` and runs one periodic emit. */
  const tick = (ms: number) => {
    clock.advance(ms);
    generator.onPeriodicEmit(output);
  };
  return { clock, generator, output, feed, tick };
}

/** `count` records each `lateness` ms behind `top`, after `top` itself. */
function burst(top: number, lateness: number, count: number): number[] {
  return [top, ...Array.from({ length: count }, () => top - lateness)];
}

Deno.test("AutoTunedOutOfOrdernessWatermarks emits nothing before the first record", () => {
  const { generator, output, tick } = setup();
  tick(5_000);
  assert.deepEqual(output.calls, []);
  assert.equal(generator.currentWatermark, -Infinity);
  assert.deepEqual(generator.history, []);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks emits maxTimestamp - delay - 1 like a bounded generator", () => {
  const { generator, output, feed, tick } = setup();
  feed(10_000, 9_500, 10_200);
  tick(100);
  assert.deepEqual(output.calls, [10_200 - 1_000 - 1]);
  assert.equal(generator.currentWatermark, 9_199);
  assert.equal(generator.currentDelayMs, 1_000);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks tunes only once tuneIntervalMs of processing time has passed", () => {
  const { generator, feed, tick } = setup();
  feed(...burst(100_000, 3_000, 50));
  tick(999);
  assert.equal(generator.currentDelayMs, 1_000);
  tick(1);
  assert.equal(generator.currentDelayMs, 3_600);
  assert.equal(generator.history.length, 1);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks widens by 20%, or to the suggested delay when that is more", () => {
  const { generator, feed, tick } = setup({ targetLateRatio: 0.005 });
  // 1 of 101 records is late: above the target, but the p99 is 0.
  feed(...burst(100_000, 1_500, 1), ...Array(99).fill(100_000));
  tick(1_000);
  assert.deepEqual(generator.history, [{
    at: START + 1_000,
    fromMs: 1_000,
    toMs: 1_200,
    reason: WIDEN,
    lateRatio: 1 / 101,
    p99Ms: 0,
    lagMs: START + 1_000 - (100_000 - 1_001),
  }]);
  // 10 of 101 records are 3 000 ms late: the p99 suggests 3 600.
  feed(...burst(100_000, 3_000, 10), ...Array(90).fill(100_000));
  tick(1_000);
  assert.equal(generator.currentDelayMs, 3_600);
  // A ratio at the target does not widen.
  feed(...burst(100_000, 5_000, 1), ...Array(199).fill(100_000));
  tick(1_000);
  assert.equal(generator.currentDelayMs, 3_600);
  assert.equal(generator.history.length, 2);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks caps widening at ceilingMs and then stops widening", () => {
  const { generator, feed, tick } = setup({ ceilingMs: 2_000 });
  feed(...burst(100_000, 30_000, 10));
  tick(1_000);
  assert.equal(generator.currentDelayMs, 2_000);
  feed(...burst(100_000, 30_000, 10));
  tick(1_000);
  assert.equal(generator.currentDelayMs, 2_000);
  assert.equal(generator.history.length, 1);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks narrows by at most 20%, not below the suggested delay or floorMs", () => {
  const { generator, feed, tick } = setup({
    initialDelayMs: 10_000,
    floorMs: 7_000,
  });
  feed(...burst(100_000, 100, 200)); // suggested 120
  tick(1_000);
  assert.equal(generator.currentDelayMs, 8_000);
  feed(100_100, 100_200);
  tick(1_000);
  assert.equal(generator.currentDelayMs, 7_000); // floor, not 6 400
  feed(100_300);
  tick(1_000);
  assert.equal(generator.currentDelayMs, 7_000);

  // Narrowing needs the delay above 1.5 times the suggested delay, so 20%
  // less never falls below the suggested delay: two steps, then it holds.
  const steps = setup({ initialDelayMs: 10_000 });
  for (let i = 0; i < 4; i++) {
    const top = 100_000 * (i + 1);
    steps.feed(...burst(top, 4_000, 3), ...Array(97).fill(top)); // suggests 4 800
    steps.tick(1_000);
  }
  assert.deepEqual(steps.generator.history.map((step) => step.toMs), [
    8_000,
    6_400,
  ]);

  // A late ratio between a tenth of the target and the target holds too.
  const between = setup({ initialDelayMs: 10_000 });
  between.feed(...burst(100_000, 12_000, 5), ...Array(995).fill(100_000));
  between.tick(1_000);
  assert.equal(between.generator.currentDelayMs, 10_000);
  assert.deepEqual(between.generator.history, []);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks holds the watermark after widening until the data catches up", () => {
  const { generator, output, feed, tick } = setup({ initialDelayMs: 100 });
  feed(...burst(10_000, 1_000, 10));
  tick(1_000); // tunes first, then emits with the wider delay
  assert.equal(generator.currentDelayMs, 1_200);
  assert.deepEqual(output.calls, [10_000 - 1_200 - 1]);

  const held = setup({ initialDelayMs: 100 });
  held.feed(10_000);
  held.tick(500);
  assert.deepEqual(held.output.calls, [9_899]);
  held.feed(...Array(10).fill(9_000));
  held.tick(500);
  assert.equal(held.generator.currentDelayMs, 1_200);
  assert.deepEqual(held.output.calls, [9_899, 9_899]); // held, not 8 799
  held.feed(11_000);
  held.tick(100);
  assert.deepEqual(held.output.calls, [9_899, 9_899, 9_899]);
  held.feed(11_200);
  held.tick(100);
  assert.deepEqual(held.output.calls.at(-1), 11_200 - 1_200 - 1);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks leaves the delay alone over an interval without records", () => {
  const { generator, feed, tick } = setup({ initialDelayMs: 5_000 });
  feed(100_000);
  tick(1_000); // in order: narrows
  assert.equal(generator.currentDelayMs, 4_000);
  tick(1_000);
  tick(1_000);
  tick(1_000);
  assert.equal(generator.currentDelayMs, 4_000);
  assert.equal(generator.history.length, 1);
  assert.equal(generator.frozen, false);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks keeps tuning while narrowing reduces the lag", () => {
  const { clock, generator, feed, tick } = setup({ initialDelayMs: 10_000 });
  for (let i = 0; i < 8; i++) {
    feed(clock.now());
    tick(1_000);
  }
  assert.equal(generator.frozen, false);
  assert.deepEqual(
    generator.history.map((step) => step.toMs),
    [8_000, 6_400, 5_120, 4_096, 3_276, 2_620, 2_096, 1_676],
  );
});

Deno.test("AutoTunedOutOfOrdernessWatermarks forgets ineffective narrowing steps after a widening step", () => {
  // Event time stands still: each narrowing (at most 2 s) is followed by a
  // lag larger by the 5 s interval.
  const stalled = { initialDelayMs: 10_000, tuneIntervalMs: 5_000 };
  const { generator, feed, tick } = setup(stalled);
  feed(100_000);
  tick(5_000); // narrow
  feed(100_000);
  tick(5_000); // 1 ineffective, narrow
  feed(100_000);
  tick(5_000); // 2 ineffective, narrow
  feed(...burst(100_000, 20_000, 10));
  tick(5_000); // 3rd ineffective narrowing: stops before widening
  assert.equal(generator.frozen, true);

  const reset = setup(stalled);
  reset.feed(100_000);
  reset.tick(5_000); // narrow
  reset.feed(100_000);
  reset.tick(5_000); // 1 ineffective, narrow
  reset.feed(...Array(10).fill(100_000 - 9_000));
  reset.tick(5_000); // 2 ineffective, widen: count cleared
  reset.feed(100_000);
  reset.tick(5_000); // narrow
  reset.feed(100_000);
  reset.tick(5_000); // 1 ineffective, narrow
  reset.feed(100_000);
  reset.tick(5_000); // 2 ineffective, narrow
  assert.equal(reset.generator.frozen, false);
  assert.deepEqual(
    reset.generator.history.map((step) => step.reason),
    [NARROW, NARROW, WIDEN, NARROW, NARROW, NARROW],
  );
  reset.feed(100_000);
  reset.tick(5_000);
  assert.equal(reset.generator.frozen, true);
  assert.equal(reset.generator.history.at(-1)?.reason, STOPPED);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks stays frozen however late the records get", () => {
  const { generator, feed, tick } = setup({
    initialDelayMs: 10_000,
    tuneIntervalMs: 5_000,
  });
  for (let i = 0; i < 4; i++) {
    feed(100_000); // event time stands still
    tick(5_000);
  }
  assert.equal(generator.frozen, true);
  const delay = generator.currentDelayMs;
  feed(...burst(100_000, 50_000, 100));
  tick(5_000);
  assert.equal(generator.currentDelayMs, delay);
  assert.equal(generator.history.length, 4);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks keeps the last historyLimit steps", () => {
  const { clock, generator, feed, tick } = setup({
    initialDelayMs: 60_000,
    historyLimit: 3,
  });
  for (let i = 0; i < 6; i++) {
    feed(clock.now());
    tick(1_000);
  }
  assert.deepEqual(
    generator.history.map((step) => step.toMs),
    [24_576, 19_660, 15_728],
  );
});

Deno.test("AutoTunedOutOfOrdernessWatermarks.snapshotState() round-trips through restoreState() and JSON", () => {
  const first = setup({ initialDelayMs: 10_000 });
  first.feed(100_000);
  first.tick(1_000);
  first.feed(100_000, 99_000);
  first.tick(500);
  const snapshot = first.generator.snapshotState();
  assert.equal(snapshot.delayMs, 8_000);
  assert.equal(snapshot.narrowLagMs, START + 1_000 - (100_000 - 10_001));

  // Restored at the same processing time, the interval goes on where it
  // was: it started at the tuning 500 ms ago, so it ends 500 ms later.
  const second = setup({ initialDelayMs: 10_000 });
  second.clock.advance(1_500);
  second.generator.restoreState(JSON.parse(JSON.stringify(snapshot)));
  assert.deepEqual(second.generator.snapshotState(), snapshot);
  assert.equal(second.generator.currentWatermark, 100_000 - 8_000 - 1);
  second.tick(499);
  assert.equal(second.generator.history.length, 1);
  second.tick(1);
  assert.equal(second.generator.history.length, 2);

  const snap = first.generator.snapshotState();
  snap.history[0].toMs = -1;
  assert.equal(first.generator.history[0].toMs, 8_000);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks.restoreState() restarts the interval at restore for a snapshot without its start (an older version's)", () => {
  const first = setup({ initialDelayMs: 10_000 });
  first.feed(100_000);
  first.tick(1_000);
  first.feed(100_000, 99_000);
  const { intervalStartMs: _, ...older } = first.generator.snapshotState();
  const second = setup({ initialDelayMs: 10_000 });
  second.clock.advance(60_000);
  second.generator.restoreState(older);
  second.tick(999);
  assert.equal(second.generator.history.length, 1);
  second.tick(1);
  assert.equal(second.generator.history.length, 2);
});

Deno.test("AutoTunedOutOfOrdernessWatermarks.restoreState() rejects a delay outside [floorMs, ceilingMs]", () => {
  const { generator } = setup({ ceilingMs: 5_000 });
  const snapshot = { ...generator.snapshotState(), delayMs: 9_000 };
  assert.throws(() => generator.restoreState(snapshot), {
    name: "RangeError",
    message:
      /'delayMs' must be from 'floorMs' \(0\) to 'ceilingMs' \(5000\): current value is 9000/,
  });
});

Deno.test("AutoTunedOutOfOrdernessWatermarks rejects bad options, naming the option and the value", () => {
  const clock = new ManualClock();
  const create = (options: AutoTunedOutOfOrdernessOptions) => () =>
    new AutoTunedOutOfOrdernessWatermarks(clock, options);
  const cases: Array<[AutoTunedOutOfOrdernessOptions, string, RegExp]> = [
    [{ floorMs: -1 }, "RangeError", /'floorMs'.*: current value is -1$/],
    [{ ceilingMs: 1.5 }, "RangeError", /'ceilingMs'.*: current value is 1\.5$/],
    [
      { floorMs: 5_000, ceilingMs: 4_000 },
      "RangeError",
      /'ceilingMs' must be at least 'floorMs' \(5000\): current value is 4000$/,
    ],
    [
      { floorMs: 2_000, initialDelayMs: 1_000 },
      "RangeError",
      /'initialDelayMs' must be from 'floorMs' \(2000\) to 'ceilingMs' \(60000\): current value is 1000$/,
    ],
    [
      { ceilingMs: 500, initialDelayMs: 1_000 },
      "RangeError",
      /'initialDelayMs'.*current value is 1000$/,
    ],
    [
      { tuneIntervalMs: 0 },
      "RangeError",
      /'tuneIntervalMs'.*: current value is 0$/,
    ],
    [
      { historyLimit: 0 },
      "RangeError",
      /'historyLimit'.*: current value is 0$/,
    ],
    [
      { targetLateRatio: 0 },
      "RangeError",
      /'targetLateRatio' must be a number greater than 0 and less than 1: current value is 0$/,
    ],
    [
      { targetLateRatio: 1 },
      "RangeError",
      /'targetLateRatio'.*: current value is 1$/,
    ],
    [
      { targetLateRatio: NaN },
      "RangeError",
      /'targetLateRatio'.*: current value is NaN$/,
    ],
    [
      { targetLateRatio: "0.1" as unknown as number },
      "TypeError",
      /'targetLateRatio'.*: current value is "0\.1"$/,
    ],
    [
      { initialDelayMs: "5s" as unknown as number },
      "TypeError",
      /'initialDelayMs'.*: current value is "5s"$/,
    ],
  ];
  for (const [options, name, message] of cases) {
    assert.throws(create(options), { name, message }, JSON.stringify(options));
    assert.throws(
      create(options),
      /^\w+Error: Cannot create AutoTunedOutOfOrdernessWatermarks as /,
    );
  }
  assert.throws(
    () =>
      new AutoTunedOutOfOrdernessWatermarks(
        undefined as unknown as ManualClock,
      ),
    {
      name: "TypeError",
      message: /'clock' must be a Clock.*: current value is undefined$/,
    },
  );
});

Deno.test("AutoTunedOutOfOrdernessWatermarks clamps the default initial delay into [floorMs, ceilingMs]", () => {
  const clock = new ManualClock();
  assert.equal(
    new AutoTunedOutOfOrdernessWatermarks(clock).currentDelayMs,
    1_000,
  );
  assert.equal(
    new AutoTunedOutOfOrdernessWatermarks(clock, { floorMs: 3_000 })
      .currentDelayMs,
    3_000,
  );
  assert.equal(
    new AutoTunedOutOfOrdernessWatermarks(clock, { ceilingMs: 200 })
      .currentDelayMs,
    200,
  );
});
