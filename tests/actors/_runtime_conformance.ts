// One suite, two runtimes: the cases of the runtime and checkpoint issues
// (keyed windows across a shuffle, late data and allowed lateness, idle
// partitions, keyed process timers, crash and restore from a checkpoint,
// restore at another parallelism) written once against RuntimeUnderTest
// and run on the local runtime and on the KV runtime, each driven through
// ActorRuntime (_runtime_under_test.ts). Expectations are
// absolute (brute force over the script), not "same as the other runtime".

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { KeyedProcessFunction } from "../../src/runtime/operators/keyed_process.ts";
import type { AggregateFunction } from "../../src/windows/window_function.ts";
import { ExternalTable, twoPhaseSink } from "../_support/two_phase_sink.ts";
import type { RuntimeUnderTest } from "./_runtime_under_test.ts";
import {
  expectedSums,
  lateDataJob,
  type Mode,
  type Reading,
  READING_PARTITIONS,
  sensorJob,
  sensorReadings,
} from "../_support/sensor_job.ts";

export type { RuntimeUnderTest } from "./_runtime_under_test.ts";

const PARTITIONS = READING_PARTITIONS;
const readings = (count: number) => sensorReadings(count);

function sensors(
  storage: MemoryStorage,
  clock: ManualClock,
  mode: Mode,
  table: ExternalTable<string>,
  parallelism: number,
): StreamEnvironment {
  return sensorJob({
    storage,
    clock,
    mode,
    table,
    script: readings(120),
    partitions: PARTITIONS,
    parallelism,
  });
}

/** A window result of the first stage of {@link twoShuffles}. */
type SensorWindow = { sensor: number; start: number; sum: number };

// The readings of {@link twoShuffles}: every 10 ms each of the 4 partitions
// has one, for 1.2 s, up to 149 ms out of order (within the 150 ms bound),
// and 100 ms ahead of processing time, so that the first-stage windows
// fire from the first checkpoint on.
const SHUFFLED = Array.from({ length: 480 }, (_, i): ScriptStep<Reading> => {
  const at = Math.floor(i / PARTITIONS) * 10;
  return {
    at,
    partition: i % PARTITIONS,
    value: { sensor: i % 7, value: i, ts: at + 100 - (i * 37) % 150 },
  };
});

/**
 * A job in which records overtake every checkpoint barrier on some input
 * channels: sources of parallelism 2 over 4 partitions that always have
 * records, a shuffle into 100 ms windows per sensor, and a second shuffle
 * (by window) into 1 s windows summing those results, into a two-phase
 * sink. Checkpoints and periodic watermarks are both due every 200 ms, and
 * the checkpoint starts first: a first-stage subtask forwards the barrier,
 * then the watermark behind it fires windows, whose results reach each
 * second-stage subtask on that channel while the other channel's barrier is
 * still on its way. Alignment must hold them out of the snapshot (in the
 * subtask on the local runtime, in the channel log on the KV runtime).
 * Results are `key@start=total`.
 */
function twoShuffles(
  storage: MemoryStorage,
  clock: ManualClock,
  mode: Mode,
  table: ExternalTable<string>,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "shuffles",
    parallelism: 2,
    clock,
    checkpointIntervalMs: 200,
    autoWatermarkIntervalMs: 200,
    watermarkRecovery: mode,
    checkpointStorage: storage,
  });
  const sumReadings: AggregateFunction<Reading, number, number> = {
    createAccumulator: () => 0,
    add: (r, total) => total + r.value,
    getResult: (total) => total,
    merge: (a, b) => a + b,
  };
  const sumWindows: AggregateFunction<SensorWindow, number, number> = {
    ...sumReadings,
    add: (w, total) => total + w.sum,
  };
  env.fromSource(
    new ScriptedSource(SHUFFLED, { partitions: PARTITIONS }),
    WatermarkStrategy.forBoundedOutOfOrderness<Reading>(150)
      .withTimestampAssigner((r) => r.ts),
    "readings",
  )
    .keyBy((r) => r.sensor)
    .window(TumblingEventTimeWindows.of(100))
    .aggregate<number, number, SensorWindow>(
      sumReadings,
      (sensor, ctx, [total], out) =>
        out({ sensor, start: ctx.window.start, sum: total }),
    )
    .keyBy((w) => (w.start / 100) % 5)
    .window(TumblingEventTimeWindows.of(1_000))
    .aggregate<number, number, string>(
      sumWindows,
      (key, ctx, [total], out) => out(`${key}@${ctx.window.start}=${total}`),
    )
    .sinkTo(twoPhaseSink(table));
  return env;
}

/** What {@link twoShuffles} writes, by brute force, as the table holds it. */
function twoShufflesExpected(): string[] {
  const first = new Map<string, SensorWindow>();
  for (const step of SHUFFLED) {
    if (!("value" in step)) continue;
    const { sensor, value, ts } = step.value;
    const start = Math.floor(ts / 100) * 100;
    const window = first.get(`${sensor}@${start}`) ?? { sensor, start, sum: 0 };
    window.sum += value;
    first.set(`${sensor}@${start}`, window);
  }
  const second = new Map<string, number>();
  for (const w of first.values()) {
    // A window result's timestamp is its window's last millisecond.
    const key = `${(w.start / 100) % 5}@${
      Math.floor((w.start + 99) / 1_000) * 1_000
    }`;
    second.set(key, (second.get(key) ?? 0) + w.sum);
  }
  return [...second].map(([key, total]) => JSON.stringify(`${key}=${total}`))
    .sort();
}

/** Registers the suite's tests for one runtime. */
export function runtimeConformance(runtime: RuntimeUnderTest): void {
  const name = (what: string) => `[${runtime.name}] ${what}`;

  for (const mode of ["persist", "replay"] as const) {
    Deno.test(
      name(
        `keyed windows across a shuffle sum every reading once (${mode} mode)`,
      ),
      async () => {
        const table = new ExternalTable<string>();
        const clock = new ManualClock(0);
        await runtime.run(
          sensors(new MemoryStorage(), clock, mode, table, 2),
          clock,
        );
        assert.deepEqual(table.rows(), expectedSums(readings(120)));
      },
    );

    Deno.test(
      name(
        `a crash after a checkpoint, restored from it, commits every result exactly once (${mode} mode)`,
      ),
      async () => {
        for (const checkpoints of [1, 3]) {
          const table = new ExternalTable<string>();
          const clock = new ManualClock(0);
          const storage = new MemoryStorage();
          await runtime.crashAfterCheckpoints(
            sensors(storage, clock, mode, table, 2),
            clock,
            checkpoints,
          );
          const env = sensors(storage, clock, mode, table, 2);
          const checkpoint = await env.findCheckpoint();
          assert.ok(checkpoint !== null && checkpoint.id >= checkpoints);
          await runtime.run(env, clock, checkpoint);
          assert.deepEqual(
            table.rows(),
            expectedSums(readings(120)),
            `after checkpoint ${checkpoints}`,
          );
        }
      },
    );
  }

  for (const mode of ["persist", "replay"] as const) {
    Deno.test(
      name(
        `a crash after checkpoints whose barriers were overtaken on some channels, restored, commits every result exactly once (${mode} mode)`,
      ),
      async () => {
        const expected = twoShufflesExpected();
        for (const checkpoints of [1, 4]) {
          const table = new ExternalTable<string>();
          const clock = new ManualClock(0);
          const storage = new MemoryStorage();
          await runtime.crashAfterCheckpoints(
            twoShuffles(storage, clock, mode, table),
            clock,
            checkpoints,
          );
          const env = twoShuffles(storage, clock, mode, table);
          const checkpoint = await env.findCheckpoint();
          assert.ok(checkpoint !== null && checkpoint.id >= checkpoints);
          await runtime.run(env, clock, checkpoint);
          assert.deepEqual(
            table.rows(),
            expected,
            `after checkpoint ${checkpoints}`,
          );
        }
      },
    );
  }

  for (const parallelism of [3, 1]) {
    Deno.test(
      name(
        `a checkpoint of parallelism 2 restored at parallelism ${parallelism} commits every result exactly once`,
      ),
      async () => {
        const table = new ExternalTable<string>();
        const clock = new ManualClock(0);
        const storage = new MemoryStorage();
        await runtime.crashAfterCheckpoints(
          sensors(storage, clock, "persist", table, 2),
          clock,
          2,
        );
        const env = sensors(storage, clock, "persist", table, parallelism);
        const checkpoint = (await env.findCheckpoint())!;
        assert.equal(
          Object.keys(checkpoint.subtasks).filter((id) =>
            id.startsWith("sensors/source-0/")
          ).length,
          2,
        );
        await runtime.run(env, clock, checkpoint);
        assert.deepEqual(table.rows(), expectedSums(readings(120)));
      },
    );
  }

  Deno.test(
    name(
      "late records go to the side output; allowed lateness fires a window again",
    ),
    async () => {
      const clock = new ManualClock(0);
      const env = new StreamEnvironment({
        jobName: "late",
        parallelism: 1,
        clock,
      });
      // One partition, ascending watermarks every 200 ms. 250 is 850 ms
      // behind: within the allowed 1000 ms, it re-fires [0, 1000). 40 is
      // 2960 ms behind: past the lateness, so late.
      const script: ScriptStep<Reading>[] = [
        ...[100, 400, 1_100, 1_600].map((ts, i) => ({
          at: i * 250,
          value: { sensor: 1, value: ts, ts },
        })),
        { at: 1_500, value: { sensor: 1, value: 250, ts: 250 } },
        { at: 1_600, value: { sensor: 1, value: 3_000, ts: 3_000 } },
        { at: 2_400, value: { sensor: 1, value: 40, ts: 40 } },
      ];
      const tag = new OutputTag<Reading>("late");
      const fired = env.fromSource(
        new ScriptedSource(script),
        WatermarkStrategy.forMonotonousTimestamps<Reading>()
          .withTimestampAssigner((r) => r.ts),
        "r",
      ).keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(1_000))
        .allowedLateness(1_000).sideOutputLateData(tag)
        .reduce((a, b) => ({ ...a, value: a.value + b.value }));
      const results = new CollectSink<number>();
      const late = new CollectSink<number>();
      fired.map((r) => r.value).sinkTo(results);
      fired.getSideOutput(tag).map((r) => r.ts).sinkTo(late);
      await runtime.run(env, clock);
      assert.deepEqual(results.values, [500, 750, 2_700, 3_000]);
      assert.deepEqual(late.values, [40]);
    },
  );

  Deno.test(
    name(
      "an idle partition stops holding windows back after the idleness timeout",
    ),
    async () => {
      const clock = new ManualClock(0);
      const env = new StreamEnvironment({
        jobName: "idle",
        parallelism: 2,
        clock,
      });
      // Partition 1 speaks once, then is silent; partition 0 goes on to 6 s.
      const script: ScriptStep<Reading>[] = [
        { at: 0, partition: 1, value: { sensor: 2, value: 1, ts: 0 } },
      ];
      for (let at = 0; at <= 6_000; at += 100) {
        script.push({
          at,
          partition: 0,
          value: { sensor: 1, value: 1, ts: at },
        });
      }
      const firedAt = new CollectSink<[number, number, number]>();
      env.fromSource(
        new ScriptedSource(script, { partitions: 2 }),
        WatermarkStrategy.forMonotonousTimestamps<Reading>()
          .withTimestampAssigner((r) => r.ts).withIdleness(1_000),
        "r",
      ).keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(1_000))
        .reduce((a, b) => ({ ...a, value: a.value + b.value }))
        .map((r): [number, number, number] => [r.sensor, r.ts, clock.now()])
        .sinkTo(firedAt);
      await runtime.run(env, clock);
      const first = firedAt.values.filter(([s, ts]) => s === 1 && ts === 0);
      assert.equal(first.length, 1, "window [0, 1000) of sensor 1 fired once");
      // Without idleness it would wait for the end of input (after 6 s).
      assert.ok(first[0][2] < 3_000, `fired at ${first[0][2]} ms`);
    },
  );

  Deno.test(name("session windows merge across a shuffle"), async () => {
    const clock = new ManualClock(0);
    const env = new StreamEnvironment({
      jobName: "sessions",
      parallelism: 2,
      clock,
    });
    const ts = [0, 400, 900, 3_000, 3_200, 8_000];
    const script: ScriptStep<Reading>[] = ts.flatMap((t, i) =>
      [1, 2].map((sensor) => ({
        at: i * 100,
        partition: sensor - 1,
        value: { sensor, value: 1, ts: t + sensor },
      }))
    );
    const sessions = new CollectSink<string>();
    env.fromSource(
      new ScriptedSource(script, { partitions: 2 }),
      WatermarkStrategy.forMonotonousTimestamps<Reading>()
        .withTimestampAssigner((r) => r.ts),
      "r",
    ).keyBy((r) => r.sensor).window(EventTimeSessionWindows.withGap(1_000))
      .reduce((a, b) => ({ ...a, value: a.value + b.value }))
      .map((r) => `${r.sensor}:${r.value}`).sinkTo(sessions);
    await runtime.run(env, clock);
    assert.deepEqual(
      sessions.values.sort(),
      ["1:1", "1:2", "1:3", "2:1", "2:2", "2:3"],
    );
  });

  Deno.test(
    name("keyed process state and event-time timers per key"),
    async () => {
      const clock = new ManualClock(0);
      const env = new StreamEnvironment({
        jobName: "process",
        parallelism: 2,
        clock,
      });
      const script: ScriptStep<Reading>[] = readings(60);
      // Counts each sensor's readings per second, emitted by a timer at the
      // end of the second.
      const count: KeyedProcessFunction<
        Reading,
        string,
        number,
        Record<number, number>
      > = {
        processElement(r, ctx) {
          const second = Math.floor(r.ts / 1_000);
          const counts = ctx.state ?? {};
          counts[second] = (counts[second] ?? 0) + 1;
          ctx.setState(counts);
          ctx.registerEventTimeTimer(second * 1_000 + 999);
        },
        onTimer(at, ctx, out) {
          const counts = ctx.state!;
          const second = Math.floor(at / 1_000);
          out(`${ctx.key}@${second}=${counts[second]}`);
        },
      };
      const sink = new CollectSink<string>();
      env.fromSource(
        new ScriptedSource(script, { partitions: PARTITIONS }),
        WatermarkStrategy.forBoundedOutOfOrderness<Reading>(300)
          .withTimestampAssigner((r) => r.ts),
        "r",
      ).keyBy((r) => r.sensor).process(count).sinkTo(sink);
      await runtime.run(env, clock);
      const expected = new Map<string, number>();
      for (const step of script) {
        if (!("value" in step)) continue;
        const key = `${step.value.sensor}@${Math.floor(step.value.ts / 1_000)}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
      assert.deepEqual(
        sink.values.sort(),
        [...expected].map(([k, n]) => `${k}=${n}`).sort(),
      );
    },
  );
  Deno.test(
    name(
      "asynchronous calls give every result once, in order, with watermarks held back behind them",
    ),
    async () => {
      const clock = new ManualClock(0);
      const env = new StreamEnvironment({
        jobName: "async",
        parallelism: 2,
        clock,
      });
      const script: ScriptStep<Reading>[] = readings(40);
      const sink = new CollectSink<string>();
      env.fromSource(
        new ScriptedSource(script, { partitions: PARTITIONS }),
        WatermarkStrategy.forBoundedOutOfOrderness<Reading>(300)
          .withTimestampAssigner((r) => r.ts),
        "r",
      ).mapAsync(async (r) => {
        // Results complete out of call order.
        for (let i = 0; i < r.value % 5; i++) await Promise.resolve();
        return r.value * 2;
      }, { mode: "ordered", capacity: 4 })
        .keyBy((v) => v % 3).window(TumblingEventTimeWindows.of(10_000))
        .reduce((a, b) => a + b).map((sum) => `${sum}`).sinkTo(sink);
      await runtime.run(env, clock);
      const byKey = new Map<number, number>();
      for (const step of script) {
        if (!("value" in step)) continue;
        const doubled = step.value.value * 2;
        byKey.set(doubled % 3, (byKey.get(doubled % 3) ?? 0) + doubled);
      }
      assert.deepEqual(
        sink.values.sort(),
        [...byKey.values()].map((v) => `${v}`).sort(),
      );
    },
  );

  Deno.test(
    name(
      "a union of two sources of different parallelism merges their watermarks",
    ),
    async () => {
      const clock = new ManualClock(0);
      const env = new StreamEnvironment({
        jobName: "union",
        parallelism: 2,
        clock,
      });
      const strategy = WatermarkStrategy.forMonotonousTimestamps<Reading>()
        .withTimestampAssigner((r) => r.ts);
      const a = env.fromSource(
        new ScriptedSource(
          readings(40).map((step) => ({ ...step, partition: 0 })),
        ),
        strategy,
        "a",
      ).setParallelism(1);
      const b = env.fromSource(
        new ScriptedSource(readings(30), { partitions: PARTITIONS }),
        strategy,
        "b",
      );
      const sink = new CollectSink<string>();
      a.union(b).keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(500))
        .reduce((x, y) => ({ ...x, value: x.value + y.value }))
        .map((r) => `${r.sensor}@${Math.floor(r.ts / 500) * 500}=${r.value}`)
        .sinkTo(sink);
      await runtime.run(env, clock);
      const both = [...readings(40), ...readings(30)].filter((s) =>
        "value" in s
      ) as { value: Reading }[];
      const sums = new Map<string, number>();
      for (const { value: r } of both) {
        const key = `${r.sensor}@${Math.floor(r.ts / 500) * 500}`;
        sums.set(key, (sums.get(key) ?? 0) + r.value);
      }
      assert.deepEqual(
        sink.values.sort(),
        [...sums].map(([k, v]) => `${k}=${v}`).sort(),
      );
    },
  );

  Deno.test(
    name(
      "late data with checkpoints: a crash and a restore keep the late side output exactly once (persist mode)",
    ),
    async () => {
      // Ascending per partition, one partition; 1 s windows. Every tenth
      // reading is 3 s behind: late, whatever the interleaving.
      const script: ScriptStep<Reading>[] = [];
      for (let i = 0; i < 60; i++) {
        const ts = i % 10 === 9 ? i * 100 - 3_000 : i * 100;
        script.push({ at: i * 100, value: { sensor: 1, value: i, ts } });
      }
      const expectedLate = script.filter((s) =>
        "value" in s && s.value.ts < (s.value.value - 1) * 100 - 1_000
      ).map((s) => JSON.stringify(`${(s as { value: Reading }).value.ts}`))
        .sort();
      assert.ok(expectedLate.length >= 3);
      const table = new ExternalTable<string>();
      const late = new ExternalTable<string>();
      const clock = new ManualClock(0);
      const storage = new MemoryStorage();
      const build = () =>
        lateDataJob({
          storage,
          clock,
          mode: "persist",
          table,
          late,
          script,
          partitions: 1,
          parallelism: 1,
        });
      await runtime.crashAfterCheckpoints(build(), clock, 2);
      const env = build();
      await runtime.run(env, clock, (await env.findCheckpoint())!);
      assert.deepEqual(late.rows(), expectedLate);
      const sums = new Map<number, number>();
      for (const step of script) {
        if (!("value" in step) || step.value.value % 10 === 9) continue;
        const start = Math.floor(step.value.ts / 1_000) * 1_000;
        sums.set(start, (sums.get(start) ?? 0) + step.value.value);
      }
      assert.deepEqual(
        table.rows(),
        [...sums].map(([k, v]) => JSON.stringify(`${k}=${v}`)).sort(),
      );
    },
  );
  Deno.test(
    name(
      "watermark alignment holds a fast source within the drift of a slow one, then lets it go",
    ),
    async () => {
      const clock = new ManualClock(0);
      const env = new StreamEnvironment({
        jobName: "aligned",
        parallelism: 1,
        clock,
      });
      const maxDriftMs = 1_000;
      // The fast source offers 100 ms of event time every 10 ms; the slow
      // one reaches 4 s only after 4 s of processing time.
      const fast: ScriptStep<number>[] = Array.from(
        { length: 40 },
        (_, i) => ({ at: i * 10, value: i * 100 }),
      );
      const slow: ScriptStep<number>[] = Array.from(
        { length: 40 },
        (_, i) => ({ at: i * 100, value: 1_000_000 + i * 100 }),
      );
      const strategy = WatermarkStrategy.forMonotonousTimestamps<number>()
        .withTimestampAssigner((n) => n % 1_000_000)
        .withWatermarkAlignment("g", maxDriftMs, 100);
      const seen = new CollectSink<[number, number]>();
      env.fromSource(new ScriptedSource(fast), strategy, "fast")
        .union(env.fromSource(new ScriptedSource(slow), strategy, "slow"))
        .map((n): [number, number] => [n, clock.now()]).sinkTo(seen);
      await runtime.run(env, clock);
      const fastSeen = seen.values.filter(([n]) => n < 1_000_000);
      assert.equal(fastSeen.length, 40, "every record of the fast source");
      // Until the first announcement nothing holds the fast source (it
      // reads up to 2.9 s of event time in 300 ms); then it waits until the
      // slow source is within the drift, and reads what it held in one poll.
      const readAt = new Map(fastSeen);
      assert.ok(
        readAt.get(2_900)! < 1_000,
        `2900 read at ${readAt.get(2_900)}`,
      );
      const held = readAt.get(3_000)!;
      assert.ok(
        held >= 3_000 - maxDriftMs - 200 && held <= 3_000,
        `3000 read at ${held} ms`,
      );
    },
  );

  Deno.test(
    name(
      "a restore keeps a late-data decision in persist mode; replay mode restarts event time and takes the record",
    ),
    async () => {
      async function restored(
        mode: Mode,
      ): Promise<{ rows: string[]; late: string[] }> {
        const clock = new ManualClock(0);
        const storage = new MemoryStorage();
        const table = new ExternalTable<string>();
        const late = new ExternalTable<string>();
        const build = () =>
          lateDataJob({
            storage,
            clock,
            mode,
            table,
            late,
            partitions: 1,
            parallelism: 1,
            script: [
              { at: 0, value: { sensor: 0, value: 1, ts: 1_000 } },
              { at: 100, value: { sensor: 0, value: 2, ts: 3_000 } },
              // Read after the checkpoint at 1 s, for the window
              // [1000, 2000) that the watermark (2999) already closed.
              { at: 1_100, value: { sensor: 0, value: 4, ts: 1_500 } },
              { at: 1_500, value: { sensor: 0, value: 8, ts: 5_000 } },
            ],
          });
        await runtime.crashAfterCheckpoints(build(), clock, 1);
        const env = build();
        const checkpoint = await env.findCheckpoint();
        assert.equal(checkpoint?.id, 1);
        await runtime.run(env, clock, checkpoint!);
        return { rows: table.rows(), late: late.rows() };
      }
      const persist = await restored("persist");
      assert.deepEqual(persist.late, ['"1500"']);
      assert.ok(!persist.rows.includes('"1000=4"'), persist.rows.join(" "));
      const replay = await restored("replay");
      // Event time restarted at -Infinity: the same record is on time again
      // and its window fires a second, partial result.
      assert.deepEqual(replay.late, []);
      assert.ok(replay.rows.includes('"1000=4"'), replay.rows.join(" "));
    },
  );
}
