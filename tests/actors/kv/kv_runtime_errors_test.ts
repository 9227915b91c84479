// A subtask whose code throws mid-step in the KV runtime: what it held in
// memory (half a step) is dropped and reloaded from the last commit, so a
// failure that passes loses and repeats nothing; one that persists fails
// the worker after three attempts, with the error, as Flink's restart
// strategy does.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";
import { recordingKv } from "../../_support/recording_kv.ts";

function job(
  clock: ManualClock,
  table: ExternalTable<number>,
  throws: () => boolean,
) {
  const env = new StreamEnvironment({
    jobName: "throws",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 12 }, (_, i) => ({ at: i * 50, value: i })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "n",
  ).keyBy((n) => n % 2).process<number, undefined>({
    processElement(n, _ctx, out) {
      if (n === 7 && throws()) throw new Error(`user code failed on ${n}`);
      out(n);
    },
  }).sinkTo(twoPhaseSink(table));
  return env;
}

Deno.test("A step whose code throws once is redone from the last commit: every record once", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  let failures = 0;
  const env = job(clock, table, () => failures++ === 0);
  const logged: string[] = [];
  const error = console.error;
  console.error = (line: string) => void logged.push(line);
  try {
    await env.createKvRuntime({ kv, leaseMs: 1_000 }).run();
  } finally {
    console.error = error;
  }
  assert.equal(failures, 2, "thrown once, then passed");
  assert.match(
    logged.join("\n"),
    /stopped actor 'throws\/process-1\/0' .*user code failed on 7/,
  );
  assert.deepEqual(
    table.rows(),
    Array.from({ length: 12 }, (_, i) => JSON.stringify(i)).sort(),
  );
});

Deno.test("A step whose code always throws fails the worker after three attempts, with the error", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  let attempts = 0;
  const env = job(clock, new ExternalTable<number>(), () => {
    attempts++;
    return true;
  });
  const error = console.error;
  console.error = () => {};
  try {
    await assert.rejects(
      () => env.createKvRuntime({ kv, leaseMs: 1_000 }).run(),
      {
        message: "user code failed on 7",
      },
    );
  } finally {
    console.error = error;
  }
  assert.equal(attempts, 3);
});

Deno.test("A sink whose commit always throws (after the step's KV commit) fails the worker after three attempts too", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({
    jobName: "refused",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 1_000,
  });
  let commits = 0;
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 200 }, (_, i) => ({ at: i * 100, value: i })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).map((n) => n).sinkTo({
    name: "refusing",
    createWriter: () => {
      let staged: number[] = [];
      return {
        write(values: readonly number[]) {
          staged.push(...values);
        },
        snapshotState(id: number) {
          const state = { id, staged };
          staged = [];
          return state;
        },
        restoreState() {
          staged = [];
        },
        commit(id: number) {
          commits++;
          throw new Error(`commit ${id} refused`);
        },
      };
    },
  });
  const error = console.error;
  console.error = () => {};
  try {
    await assert.rejects(
      () => env.createKvRuntime({ kv, leaseMs: 1_000 }).run(),
      { message: /^commit \d+ refused$/ },
    );
  } finally {
    console.error = error;
  }
  assert.equal(commits, 3);
});

Deno.test("Writes refused with SQLite's 'database is locked' are retried: every record once", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  const env = job(clock, table, () => false);
  let refused = 0;
  let writes = 0;
  const locked = recordingKv(kv, {
    beforeWrite() {
      // Every other write finds the file locked (several processes on it).
      if (++writes % 2 === 1) {
        refused++;
        throw new TypeError("database is locked");
      }
    },
  });
  const waits: number[] = [];
  await env.createKvRuntime({
    kv: locked.kv,
    leaseMs: 1_000,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  }).run();
  assert.ok(refused > 20, `${refused} writes refused`);
  assert.equal(waits.length, refused, "one backoff per refused write");
  assert.deepEqual(
    table.rows(),
    Array.from({ length: 12 }, (_, i) => JSON.stringify(i)).sort(),
  );
});

Deno.test("An actor whose writes stay locked is stopped with a clear error, then taken up again once KV answers", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  const env = job(clock, table, () => false);
  const actor = "throws/process-1/0";
  let lockedUntil = 12; // refused writes of that actor, in a row
  const locked = recordingKv(kv, {
    beforeWrite(write) {
      // Its step commits (they write its meta), not its lease.
      const mine = write.keys.some((key) =>
        key.includes(actor) && key.at(-1) === "meta"
      );
      if (mine && lockedUntil > 0) {
        lockedUntil--;
        throw new TypeError("database is locked");
      }
    },
  });
  const runtime = env.createKvRuntime({
    kv: locked.kv,
    leaseMs: 1_000,
    sleep: () => Promise.resolve(),
  });
  const logged: string[] = [];
  const error = console.error;
  console.error = (line: string) => void logged.push(line);
  try {
    let stopped: Error | undefined;
    for (let round = 0; round < 5_000 && !runtime.finished; round++) {
      if (await runtime.tick()) continue;
      stopped ??= runtime.errors.get(actor);
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
    assert.equal(runtime.finished, true);
    assert.ok(logged.some((l) => l.includes(`stopped actor '${actor}'`)));
    assert.match(
      logged.join("\n"),
      /must answer within 12 attempts: current value is "database is locked"/,
    );
  } finally {
    console.error = error;
  }
  assert.equal(lockedUntil, 0);
  assert.deepEqual(runtime.errors.size, 0, "taken up again: no error left");
  assert.deepEqual(
    table.rows(),
    Array.from({ length: 12 }, (_, i) => JSON.stringify(i)).sort(),
  );
});
