import assert from "node:assert/strict";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { MapOperator } from "../../src/runtime/operators/map.ts";
import { forwardPartitioner } from "../../src/runtime/partitioner.ts";
import type { SourceBatch, SourceReader } from "../../src/runtime/source.ts";
import { SourceSubtask } from "../../src/runtime/source_subtask.ts";
import type { StreamElement } from "../../src/runtime/stream_element.ts";
import type { StreamOperator } from "../../src/runtime/stream_operator.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import { PunctuatedWatermarks } from "../../src/time/punctuated.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import {
  type ErrorPolicy,
  RecordFailedError,
} from "../../src/runtime/dead_letter.ts";

/** Renders an event by its id, anything else as a string. */
function show(value: unknown): string {
  return typeof value === "object" ? (value as Event).id : String(value);
}

/** Renders an element of the single output channel: "R(a@1,b@2)", "W5", "idle", "end". */
function render(element: StreamElement): string {
  switch (element.kind) {
    case "records": {
      const items = element.values.map((v, i) =>
        `${show(v)}@${element.timestamps[i]}`
      );
      return `R(${items.join(",")})`;
    }
    case "watermark":
      return `W${element.watermark}`;
    case "status":
      return element.status;
    case "barrier":
      return `barrier ${element.checkpointId}`;
    case "end":
      return "end";
  }
}

/** A reader that counts the calls the subtask makes to the reader it wraps. */
class CountingReader<T> implements SourceReader<T> {
  polls = 0;
  nextAvailableCalls = 0;
  constructor(
    readonly inner: SourceReader<T>,
    readonly change: (batch: SourceBatch<T>) => SourceBatch<T> = (b) => b,
  ) {}
  get partitions(): readonly string[] {
    return this.inner.partitions;
  }
  get finished(): boolean {
    return this.inner.finished;
  }
  poll(now: number, maxRecords: number) {
    this.polls++;
    const batch = this.inner.poll(now, maxRecords);
    return batch === null ? null : this.change(batch);
  }
  nextAvailableAt(now: number): number {
    this.nextAvailableCalls++;
    return this.inner.nextAvailableAt(now);
  }
  snapshotState(): unknown {
    return this.inner.snapshotState();
  }
  restoreState(state: unknown): void {
    this.inner.restoreState(state);
  }
}

interface Setup<T> {
  metrics?: { gauge(name: string, read: () => number): void };
  script: ScriptStep<T>[];
  partitions?: number;
  strategy: WatermarkStrategy<T>;
  intervalMs?: number;
  maxBatchSize?: number;
  operators?: StreamOperator<unknown, unknown>[];
  /** The reader of this subtask out of `parallelism`; subtask 0 of 1 by default. */
  subtask?: [index: number, parallelism: number];
  errorPolicy?: ErrorPolicy;
  /** Changes each polled batch (e.g. to give a record a bad timestamp). */
  change?: (batch: SourceBatch<T>) => SourceBatch<T>;
}

/** A source subtask over a scripted reader, with a manual clock and a recording `send`. */
function harness<T>(setup: Setup<T>) {
  const clock = new ManualClock(0);
  const activityClock = new PausableClock(clock);
  const reader = new CountingReader(
    new ScriptedSource(setup.script, { partitions: setup.partitions ?? 1 })
      .createReader(...(setup.subtask ?? [0, 1])),
    setup.change,
  );
  const sent: string[] = [];
  let taken = 0;
  const source = new SourceSubtask<T>(
    {
      reader,
      strategy: setup.strategy,
      operators: setup.operators ?? [],
      edges: [{ partitioner: forwardPartitioner(0), numChannels: 1 }],
      autoWatermarkIntervalMs: setup.intervalMs ?? 0,
      maxBatchSize: setup.maxBatchSize,
      errorPolicy: setup.errorPolicy,
    },
    {
      clock,
      activityClock,
      subtaskIndex: 0,
      parallelism: 1,
      metrics: setup.metrics ?? { gauge() {} },
    },
    (edge, channel, element) => {
      assert.equal(edge, 0);
      assert.equal(channel, 0);
      sent.push(render(element));
    },
  );
  return {
    clock,
    activityClock,
    reader,
    source,
    /** Everything sent since the last call. */
    take(): string[] {
      const fresh = sent.slice(taken);
      taken = sent.length;
      return fresh;
    },
    /** Sets the clock, polls until nothing is due, then runs processing-time work. */
    tick(now: number): void {
      clock.set(now);
      while (source.poll(now));
      source.onProcessingTime(now);
    },
  };
}

/** What `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected it to throw");
}

type Event = { id: string; ts: number; mark?: boolean };

function ev(
  at: number,
  id: string,
  ts: number,
  partition = 0,
  mark = false,
): ScriptStep<Event> {
  return { at, partition, value: { id, ts, mark } };
}

const byTs = WatermarkStrategy.forBoundedOutOfOrderness<Event>(0)
  .withTimestampAssigner((e) => e.ts);
const punctuated = WatermarkStrategy.forGenerator<Event>(
  () => new PunctuatedWatermarks<Event>((e, ts) => e.mark ? ts : null),
).withTimestampAssigner((e) => e.ts);

Deno.test("SourceSubtask emits periodic watermarks every interval, re-based on the time it ran", () => {
  const h = harness({
    script: [
      { at: 0, value: "a", timestamp: 1_000 },
      { at: 300, value: "b", timestamp: 1_200 },
      { at: 5_000, end: true },
    ],
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<string>(0),
    intervalMs: 100,
  });
  assert.equal(h.source.poll(0), true);
  assert.deepEqual(h.take(), ["R(a@1000)"]);
  assert.equal(
    h.source.nextProcessingTime(0),
    100,
    "the first periodic emit is one interval after creation",
  );
  h.source.onProcessingTime(99);
  assert.deepEqual(h.take(), [], "not due before the interval");
  h.source.onProcessingTime(100);
  assert.deepEqual(h.take(), ["W999"]);
  assert.equal(h.source.currentWatermark, 999);
  assert.equal(h.source.nextProcessingTime(100), 200);
  // Run 50 ms late: the next emit is due an interval after 250, not at 300.
  h.source.onProcessingTime(250);
  assert.deepEqual(h.take(), [], "an unchanged watermark is not sent again");
  assert.equal(
    h.source.nextProcessingTime(250),
    300,
    "the reader's record at 300 comes first",
  );
  assert.equal(h.source.poll(300), true);
  assert.equal(h.source.nextProcessingTime(300), 350);
  h.source.onProcessingTime(300);
  assert.deepEqual(h.take(), ["R(b@1200)"], "no periodic emit before 350");
  h.source.onProcessingTime(350);
  assert.deepEqual(h.take(), ["W1199"]);
  assert.equal(h.source.nextProcessingTime(350), 450);
});

Deno.test("SourceSubtask with an interval of 0 emits no periodic watermark before the end of input", () => {
  const h = harness({
    script: [{ at: 0, value: "a", timestamp: 1_000 }, {
      at: 10_000,
      end: true,
    }],
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<string>(0),
  });
  h.tick(0);
  assert.equal(
    h.source.nextProcessingTime(0),
    10_000,
    "only the reader's end step is pending",
  );
  h.tick(5_000);
  assert.deepEqual(h.take(), ["R(a@1000)"]);
  h.tick(10_000);
  // The partition ended: its output left before a final periodic emit.
  assert.deepEqual(h.take(), ["WInfinity", "end"]);
});

Deno.test("SourceSubtask merges the watermarks of its partitions as their minimum", () => {
  const h = harness({
    script: [ev(0, "a", 1_000, 0), ev(0, "b", 500, 1), ev(150, "c", 2_000, 1), {
      at: 9_000,
      end: true,
    }],
    partitions: 2,
    strategy: byTs,
    intervalMs: 100,
  });
  assert.equal(h.source.poll(0), true);
  assert.deepEqual(h.take(), ["R(a@1000)"], "one poll reads one partition");
  h.source.onProcessingTime(100);
  assert.deepEqual(
    h.take(),
    [],
    "partition 1 has reported nothing and holds the watermark back",
  );
  assert.equal(h.source.poll(100), true);
  h.source.onProcessingTime(200);
  assert.deepEqual(h.take(), ["R(b@500)", "W499"]);
  assert.equal(h.source.poll(200), true);
  h.source.onProcessingTime(300);
  assert.deepEqual(
    h.take(),
    ["R(c@2000)", "W999"],
    "partition 0 is now the slowest",
  );
  assert.equal(h.source.metrics.recordsIn, 3);
});

Deno.test("SourceSubtask drops an idle partition (withIdleness) out of the minimum, so the others move the watermark", () => {
  // Partition 0 reads a record every 100 ms; partition 1 reads one at 0 and
  // then nothing (it is silent, not ended).
  const script: ScriptStep<Event>[] = [ev(0, "p1", 500, 1), {
    at: 9_000,
    partition: 1,
    end: true,
  }];
  for (let t = 0; t <= 900; t += 100) script.push(ev(t, `a${t}`, 1_000 + t, 0));
  const h = harness({
    script,
    partitions: 2,
    strategy: byTs.withIdleness(250),
    intervalMs: 100,
  });
  const watermarks: string[] = [];
  for (let t = 0; t <= 700; t += 100) {
    h.tick(t);
    watermarks.push(
      `${t}: ${h.take().filter((s) => !s.startsWith("R(")).join(" ")}`,
    );
  }
  assert.deepEqual(watermarks, [
    "0: ",
    "100: W499",
    "200: ",
    "300: ",
    "400: ",
    // Quiet since 0; the timer starts counting at the second check (200) and
    // fires once more than 250 ms passed: partition 1 drops out.
    "500: W1499",
    "600: W1599",
    "700: W1699",
  ]);
  assert.equal(h.source.idle, false, "partition 0 is still active");
});

Deno.test("SourceSubtask marks its output idle when its only partition goes idle, and re-activates it for the final watermark", () => {
  const h = harness({
    script: [{ at: 0, value: "a", timestamp: 1_000 }, { at: 1_000, end: true }],
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<string>(0)
      .withIdleness(250),
    intervalMs: 100,
  });
  const seen: string[] = [];
  for (let t = 0; t <= 1_000; t += 100) {
    h.tick(t);
    seen.push(...h.take());
  }
  assert.deepEqual(seen, [
    "R(a@1000)",
    "W999",
    "idle",
    "active",
    "WInfinity",
    "end",
  ]);
  assert.equal(h.source.finished, true);
});

Deno.test("SourceSubtask cuts a poll's records where a punctuated watermark is emitted: records before it, the watermark, then the rest", () => {
  const h = harness({
    script: [
      ev(0, "a", 1),
      ev(0, "b", 2, 0, true),
      ev(0, "c", 3),
      ev(0, "d", 4, 0, true),
      ev(0, "e", 5),
      ev(100, "f", 6, 0, true),
      { at: 10_000, end: true },
    ],
    strategy: punctuated,
  });
  assert.equal(h.source.poll(0), true);
  assert.deepEqual(h.take(), [
    "R(a@1,b@2)",
    "W2",
    "R(c@3,d@4)",
    "W4",
    "R(e@5)",
  ]);
  assert.equal(h.source.poll(100), true);
  assert.deepEqual(
    h.take(),
    ["R(f@6)", "W6"],
    "a watermark on the last record leaves no empty batch",
  );
  assert.equal(h.source.metrics.recordsIn, 6);
});

Deno.test("SourceSubtask does not cut a poll where a punctuated watermark does not advance", () => {
  const h = harness({
    script: [
      ev(0, "a", 10, 0, true),
      ev(100, "b", 5, 0, true),
      ev(100, "c", 10, 0, true),
      ev(100, "d", 11),
      { at: 10_000, end: true },
    ],
    strategy: punctuated,
  });
  h.source.poll(0);
  assert.deepEqual(h.take(), ["R(a@10)", "W10"]);
  h.source.poll(100);
  assert.deepEqual(h.take(), ["R(b@5,c@10,d@11)"]);
});

Deno.test("SourceSubtask under \"fail\" fails a poll with a bad timestamp, naming 'timestamp', the partition and the record, and emits nothing of it (time and numbers)", () => {
  const h = harness({
    errorPolicy: "fail",
    script: [
      ev(0, "ok", 1, 0, true),
      ev(100, "a", 2, 0, true),
      ev(100, "bad", 3),
      ev(100, "c", 4),
    ],
    strategy: punctuated.withTimestampAssigner((e) =>
      e.id === "bad" ? NaN : e.ts
    ),
  });
  h.source.poll(0);
  assert.deepEqual(h.take(), ["R(ok@1)", "W1"]);
  const error = thrown(() => h.source.poll(100));
  assert.ok(error instanceof RecordFailedError);
  assert.match(
    String(error.cause),
    /RangeError: .*partition 'scripted-0'.*'timestamp' of record 1 .*current value is NaN/,
  );
  assert.deepEqual(
    h.take(),
    [],
    "not even the record before the bad one, nor its watermark",
  );
  assert.equal(h.source.currentWatermark, 1);
  assert.equal(h.source.metrics.recordsIn, 1);
});

Deno.test("SourceSubtask sets aside a record with a bad timestamp as a dead letter at its partition and offset, and emits the others (time and numbers)", () => {
  const h = harness({
    script: [
      ev(0, "ok", 1, 0, true),
      ev(100, "a", 2, 0, true),
      ev(100, "bad", 3),
      ev(100, "c", 4),
    ],
    strategy: punctuated.withTimestampAssigner((e) =>
      e.id === "bad" ? NaN : e.ts
    ),
  });
  h.source.poll(0);
  h.source.poll(100);
  assert.deepEqual(h.take(), [
    "R(ok@1)",
    "W1",
    "R(a@2)",
    "W2",
    "R(c@4)",
    "WInfinity",
    "end",
  ]);
  const [letter, ...more] = h.source.takeDeadLetters();
  assert.equal(more.length, 0);
  assert.equal(letter.position, "partition scripted-0, offset 2");
  assert.equal(letter.reason, "dead-letter");
  assert.equal(letter.error.name, "RangeError");
  assert.match(letter.error.message, /'timestamp' .*current value is NaN/);
  assert.deepEqual(letter.value, { id: "bad", ts: 3, mark: false });
  assert.deepEqual(h.source.takeDeadLetters(), [], "taken once");
});

Deno.test('SourceSubtask under "fail" passes records without a timestamp (-Infinity) and rejects +Infinity, naming the partition', () => {
  const h = harness({
    script: [{ at: 0, value: "x" }, {
      at: 0,
      partition: 1,
      value: "y",
      timestamp: 5,
    }],
    partitions: 2,
    strategy: WatermarkStrategy.noWatermarks<string>().withTimestampAssigner((
      v,
      ts,
    ) => v === "y" ? Infinity : ts),
    errorPolicy: "fail",
  });
  assert.equal(h.source.poll(0), true);
  assert.equal(h.source.metrics.recordsIn, 1);
  const error = thrown(() => h.source.poll(0));
  assert.ok(error instanceof RecordFailedError);
  assert.match(
    error.letter.error.message,
    /partition 'scripted-1'.*'timestamp' of record 0 .*current value is Infinity/,
  );
});

Deno.test("SourceSubtask with the default assigner sets aside a record whose source timestamp is not a safe integer, and counts only the others' lateness", () => {
  const gauges = new Map<string, () => number>();
  const setup = (errorPolicy?: ErrorPolicy) =>
    harness({
      script: [
        { at: 0, value: "a", timestamp: 1_000 },
        { at: 0, value: "b", timestamp: 2_000 },
        { at: 0, value: "c", timestamp: 500 },
        { at: 0, value: "d", timestamp: 600 },
      ],
      strategy: WatermarkStrategy.forBoundedOutOfOrderness<string>(0),
      change: (batch) => ({
        ...batch,
        timestamps: batch.timestamps.map((ts, i) => i === 1 ? ts + 0.5 : ts),
      }),
      metrics: {
        gauge: (name: string, read: () => number) => gauges.set(name, read),
      },
      errorPolicy,
    });
  const h = setup();
  h.source.poll(0);
  assert.deepEqual(h.take(), [
    "R(a@1000)",
    "R(c@500,d@600)",
    "WInfinity",
    "end",
  ]);
  const [letter, ...more] = h.source.takeDeadLetters();
  assert.equal(more.length, 0);
  assert.equal(letter.position, "partition scripted-0, offset 1");
  assert.match(
    letter.error.message,
    /'timestamp' of record 1 .*current value is 2000.5/,
  );
  // a: 0, c: 500, d: 400 against the maximum 1000 (b never counts).
  assert.equal(gauges.get("latenessMaxMs")!(), 500);
  assert.equal(gauges.get("latenessP50Ms")!(), 400);
  assert.equal(gauges.get("lastRecordTimestampMs")!(), 600);
  const failing = setup("fail");
  const error = thrown(() => failing.source.poll(0));
  assert.ok(error instanceof RecordFailedError);
  assert.deepEqual(failing.take(), []);
  assert.equal(gauges.get("latenessMaxMs")!(), 0, "nothing of the poll counts");
});

Deno.test("SourceSubtask emits Infinity and then end at the end of input, and does nothing after", () => {
  const h = harness({
    script: [{ at: 0, value: "a", timestamp: 5 }, { at: 100, end: true }],
    strategy: WatermarkStrategy.noWatermarks<string>(),
    intervalMs: 50,
  });
  assert.equal(h.source.poll(0), true);
  assert.equal(
    h.source.poll(0),
    false,
    "nothing due, and the end step is not due yet",
  );
  assert.equal(h.source.finished, false);
  assert.deepEqual(h.take(), ["R(a@5)"]);
  assert.equal(h.source.poll(100), true);
  assert.deepEqual(h.take(), ["WInfinity", "end"]);
  assert.equal(h.source.finished, true);
  assert.equal(h.source.currentWatermark, Infinity);
  const polls = h.reader.polls;
  assert.equal(h.source.poll(200), false);
  assert.equal(h.reader.polls, polls, "the reader is not polled after the end");
  h.source.onProcessingTime(200);
  assert.deepEqual(h.take(), [], "no periodic emit after the end");
  assert.equal(h.source.nextProcessingTime(200), Infinity);
});

Deno.test("SourceSubtask runs the chained operators on its records and ends them at the end of input", () => {
  const h = harness({
    script: [{ at: 0, value: "a", timestamp: 5 }, {
      at: 0,
      value: "b",
      timestamp: 6,
    }],
    strategy: WatermarkStrategy.noWatermarks<string>(),
    operators: [
      new MapOperator((v: string) => v.toUpperCase()),
    ],
  });
  h.tick(0);
  assert.deepEqual(h.take(), ["R(A@5,B@6)", "WInfinity", "end"]);
});

Deno.test("SourceSubtask reads at most maxBatchSize records per poll", () => {
  const h = harness({
    script: [
      ...[1, 2, 3, 4, 5].map((n) => ({
        at: 0,
        value: `v${n}`,
        timestamp: n,
      })),
      { at: 10_000, end: true },
    ],
    strategy: WatermarkStrategy.noWatermarks<string>(),
    maxBatchSize: 2,
  });
  h.source.poll(0);
  h.source.poll(0);
  h.source.poll(0);
  assert.deepEqual(h.take(), ["R(v1@1,v2@2)", "R(v3@3,v4@4)", "R(v5@5)"]);
});

Deno.test("SourceSubtask stops polling while alignment holds it above maxDesiredWatermark, and its wake-up ignores the reader meanwhile", () => {
  const h = harness({
    script: [ev(0, "a", 1_000, 0, true), ev(0, "b", 2_000, 0, true), {
      at: 10_000,
      end: true,
    }],
    strategy: punctuated,
    maxBatchSize: 1,
    intervalMs: 500,
  });
  assert.equal(
    h.source.shouldWait,
    false,
    "maxDesiredWatermark starts at Infinity",
  );
  assert.equal(h.source.poll(0), true);
  assert.deepEqual(h.take(), ["R(a@1000)", "W1000"]);
  h.source.maxDesiredWatermark = 500;
  assert.equal(h.source.shouldWait, true);
  const polls = h.reader.polls;
  const nextAvailableCalls = h.reader.nextAvailableCalls;
  assert.equal(h.source.poll(0), false);
  assert.equal(h.reader.polls, polls, "the reader is not polled while held");
  assert.equal(
    h.source.nextProcessingTime(0),
    500,
    "record b is due at 0, but only the periodic emit counts",
  );
  assert.equal(h.reader.nextAvailableCalls, nextAvailableCalls);
  assert.deepEqual(h.take(), []);
  // At the limit the source may read again: it waits only while strictly above.
  h.source.maxDesiredWatermark = 1_000;
  assert.equal(h.source.shouldWait, false);
  assert.equal(h.source.nextProcessingTime(0), 0);
  assert.equal(h.source.poll(0), true);
  assert.deepEqual(h.take(), ["R(b@2000)", "W2000"]);
});

Deno.test("SourceSubtask re-activates an idle output when its partition reads again, after the record that woke it", () => {
  const h = harness({
    script: [
      { at: 0, value: "a", timestamp: 1_000 },
      { at: 700, value: "b", timestamp: 2_000 },
      { at: 5_000, end: true },
    ],
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<string>(0)
      .withIdleness(250),
    intervalMs: 100,
  });
  const seen: string[] = [];
  for (let t = 0; t <= 800; t += 100) {
    h.tick(t);
    seen.push(`${t}: ${h.take().join(" ")}`);
  }
  assert.deepEqual(seen, [
    "0: R(a@1000)",
    "100: W999",
    "200: ",
    "300: ",
    "400: ",
    "500: idle",
    "600: ",
    "700: R(b@2000) active W1999",
    "800: ",
  ]);
  assert.equal(h.source.idle, false);
});

Deno.test("SourceSubtask measures idleness on the activity clock, so a paused (back-pressured) source never goes idle (FLINK-35886)", () => {
  const h = harness({
    script: [{ at: 0, value: "a", timestamp: 1_000 }, { at: 5_000, end: true }],
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<string>(0)
      .withIdleness(250),
    intervalMs: 100,
  });
  h.tick(0);
  h.activityClock.pause();
  for (let t = 100; t <= 2_000; t += 100) h.tick(t);
  assert.deepEqual(h.take(), ["R(a@1000)", "W999"]);
  h.activityClock.resume();
  for (let t = 2_100; t <= 2_500; t += 100) h.tick(t);
  assert.deepEqual(h.take(), ["idle"]);
});

Deno.test("SourceSubtask without partitions ends at once with Infinity and end", () => {
  // One partition read by subtask 0 of 2: subtask 1 has none.
  const h = harness({
    script: [{ at: 0, value: "a", timestamp: 1 }],
    strategy: WatermarkStrategy.noWatermarks<string>(),
    intervalMs: 100,
    subtask: [1, 2],
  });
  assert.deepEqual(h.reader.partitions, []);
  assert.equal(h.source.poll(0), true);
  assert.deepEqual(h.take(), ["WInfinity", "end"]);
  assert.equal(h.source.finished, true);
});

Deno.test("SourceSubtask flushes the highest partition watermark and then marks idle when every partition goes idle (FLINK-38454)", () => {
  const h = harness({
    script: [
      { at: 0, value: "a", timestamp: 1_000 },
      { at: 0, partition: 1, value: "b", timestamp: 500 },
      { at: 50, partition: 1, value: "c", timestamp: 600 },
      { at: 5_000, end: true },
      { at: 5_000, partition: 1, end: true },
    ],
    partitions: 2,
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<string>(0)
      .withIdleness(250),
    intervalMs: 100,
  });
  const seen: string[] = [];
  for (let t = 0; t <= 600; t += 50) {
    h.tick(t);
    const fresh = h.take().filter((s) => !s.startsWith("R("));
    if (fresh.length > 0) seen.push(`${t}: ${fresh.join(" ")}`);
  }
  assert.deepEqual(seen, ["100: W599", "500: W999 idle"]);
  assert.equal(h.source.idle, true);
});

Deno.test("SourceSubtask reports lateness quantiles and the delay they suggest as gauges", () => {
  const gauges = new Map<string, () => number>();
  const h = harness({
    script: [
      { at: 0, value: "a", timestamp: 10_000 },
      { at: 0, value: "b", timestamp: 9_000 },
      { at: 0, value: "c", timestamp: 10_500 },
    ],
    strategy: WatermarkStrategy.noWatermarks<string>(),
    metrics: {
      gauge: (name: string, read: () => number) => gauges.set(name, read),
    },
  });
  h.source.poll(0);
  assert.equal(gauges.get("latenessMaxMs")!(), 1_000);
  assert.equal(gauges.get("latenessP99Ms")!(), 1_000);
  assert.equal(gauges.get("suggestedDelayMs")!(), 1_200);
});
