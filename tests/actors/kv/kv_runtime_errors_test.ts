// A subtask whose code throws mid-step in the KV runtime: what it held in
// memory (half a step) is dropped and reloaded from the last commit, so a
// failure that passes loses and repeats nothing; one that persists never
// fails the worker (no record, and no failure, crash-loops a
// job): the actor is retried after a delay that doubles up to a minute
// (Flink's exponential-delay restart strategy), and its status and the
// job's health say what it is stuck on.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";
import { recordingKv } from "../../_support/recording_kv.ts";
import { KvRuntimeView } from "../../../src/actors/kv/kv_runtime_view.ts";
import { LocalJobHandle } from "../../../src/observe/local_job_handle.ts";
import { jobHealth } from "../../../src/observe/health.ts";

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

/** Numbers (12, 50 ms apart) into a two-phase sink whose commits throw while `refuse()`. */
function refusingJob(
  clock: ManualClock,
  table: ExternalTable<number>,
  refuse: (id: number) => boolean,
  count = 12,
) {
  const env = new StreamEnvironment({
    jobName: "refused",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
  });
  const sink = twoPhaseSink(table);
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: count }, (_, i) => ({ at: i * 50, value: i })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).map((n) => n).sinkTo({
    name: "refusing",
    createWriter(subtask, parallelism) {
      const writer = sink.createWriter(subtask, parallelism);
      return {
        ...writer,
        commit(id: number) {
          if (refuse(id)) throw new Error(`commit ${id} refused`);
          return writer.commit!(id);
        },
      };
    },
  });
  return env;
}

Deno.test("A step whose sink's commit throws once is redone from the last commit: every record once", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  let failures = 0;
  const env = refusingJob(clock, table, () => failures++ === 0);
  const logged: string[] = [];
  const error = console.error;
  console.error = (line: string) => void logged.push(line);
  try {
    await env.createKvRuntime({ kv, leaseMs: 1_000 }).run();
  } finally {
    console.error = error;
  }
  assert.ok(failures >= 2, "thrown once, then passed");
  assert.match(
    logged.join("\n"),
    /stopped actor 'refused\/source-0\/0' .*failure 1 in a row, tried again in 1000 ms.*commit \d+ refused/,
  );
  assert.deepEqual(
    table.rows(),
    Array.from({ length: 12 }, (_, i) => JSON.stringify(i)).sort(),
  );
});

Deno.test("An actor whose sink's commit always throws never fails the worker: it is retried after a delay that doubles up to a minute, and reported stuck", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  let commits = 0;
  const env = refusingJob(clock, new ExternalTable<number>(), () => {
    commits++;
    return true;
  });
  const runtime = env.createKvRuntime({ kv, leaseMs: 1_000 });
  const actor = "refused/source-0/0";
  const delays: number[] = [];
  const error = console.error;
  console.error = () => {};
  try {
    // 9 failures in a row: the worker keeps going (no round rejects).
    for (let round = 0; round < 20_000 && delays.length < 9; round++) {
      const progressed = await runtime.tick();
      const failure = runtime.failures().get(actor);
      if (failure !== undefined && failure.failures > delays.length) {
        assert.equal(failure.failures, delays.length + 1);
        assert.equal(failure.retryAt, clock.now() + failure.delayMs);
        delays.push(failure.delayMs);
      }
      if (!progressed) {
        clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
      }
    }
  } finally {
    console.error = error;
  }
  assert.deepEqual(delays, [
    1_000,
    2_000,
    4_000,
    8_000,
    16_000,
    32_000,
    60_000,
    60_000,
    60_000,
  ]);
  assert.equal(commits, 9, "one commit tried per retry");
  assert.equal(runtime.finished, false);
  // The checkpoints' commits, then the final one (after the input ended).
  assert.match(
    runtime.errors.get(actor)!.message,
    /^commit (\d+|Infinity) refused$/,
  );
  // Any process reading the job (the supervisor of --processes N) sees it.
  const observer = env.createKvRuntime({ kv, workerId: "observer" });
  const stuck = (await observer.status()).find((s) => s.id === actor)!.stuck;
  assert.equal(stuck?.failures, 9);
  assert.equal(stuck?.delayMs, 60_000);
  assert.match(stuck!.error.message, /^commit (\d+|Infinity) refused$/);
  assert.equal(stuck?.record, undefined);
  const view = new KvRuntimeView(observer);
  await view.refresh();
  const handle = new LocalJobHandle({
    runtime: view,
    graph: env.getJobGraph(),
    clock,
  });
  handle.sample();
  const found = jobHealth(handle, clock.now()).diagnosis.filter((d) =>
    d.cause === "stuck-actor"
  );
  assert.equal(found.length, 1);
  assert.equal(found[0].operator, "source-0");
  const evidence = found[0].evidence.match(
    /^actor refused\/source-0\/0 is stuck: Error: commit (\d+|Infinity) refused, failed 9 times in a row, next try in (\d+) ms$/,
  );
  assert.ok(evidence, found[0].evidence);
  assert.equal(Number(evidence[2]), stuck!.retryAt - clock.now());
});

Deno.test("Steps that pass between an actor's failures do not reset its backoff: the delay doubles until it has run for a minute after a retry", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  // Every third commit is refused (the first step after each retry commits
  // the latest checkpoint again, and passes), until told otherwise.
  let calls = 0;
  let flaky = true;
  const env = refusingJob(
    clock,
    new ExternalTable<number>(),
    () => flaky && ++calls % 3 === 0,
    4_000, // 200 s of input
  );
  const runtime = env.createKvRuntime({ kv, leaseMs: 1_000 });
  const actor = "refused/source-0/0";
  const delays: number[] = [];
  const note = () => {
    const failure = runtime.failures().get(actor);
    if (
      failure !== undefined &&
      failure.retryAt === clock.now() + failure.delayMs &&
      delays.at(-1) !== failure.delayMs * 1e3 + failure.failures
    ) {
      delays.push(failure.delayMs * 1e3 + failure.failures);
    }
  };
  const error = console.error;
  console.error = () => {};
  try {
    const until = async (done: () => boolean) => {
      for (let round = 0; round < 50_000 && !done(); round++) {
        const progressed = await runtime.tick();
        note();
        if (!progressed) {
          clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
        }
      }
    };
    await until(() => delays.length === 5);
    // Then a minute and more of running after the retry without a
    // failure: the next one is a first again.
    flaky = false;
    const quietUntil = runtime.failures().get(actor)!.retryAt + 70_000;
    await until(() => clock.now() >= quietUntil);
    flaky = true;
    await until(() => delays.length === 6);
  } finally {
    console.error = error;
  }
  // delayMs * 1000 + failures in a row.
  assert.deepEqual(delays, [
    1_000_001,
    2_000_002,
    4_000_003,
    8_000_004,
    16_000_005,
    1_000_001,
  ]);
});

Deno.test('Under errorPolicy "fail" a record that fails stops its actor, which status and health report as stuck on that record, until the retry quarantines it', async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  const env = new StreamEnvironment({
    jobName: "poison",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: "fail",
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 12 }, (_, i) => ({ at: i * 50, value: i })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).keyBy((n) => (n === 7 ? null : n % 2) as number)
    .process<number, undefined>({
      processElement(n, _ctx, out) {
        out(n);
      },
    }).sinkTo(twoPhaseSink(table));
  const runtime = env.createKvRuntime({ kv, leaseMs: 1_000 });
  const actor = "poison/source-0/0";
  const lines: string[] = [];
  const error = console.error;
  console.error = (line: string) => void lines.push(line);
  try {
    let round = 0;
    for (; round < 5_000 && runtime.failures().size === 0; round++) {
      if (await runtime.tick()) continue;
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
    const failure = runtime.failures().get(actor)!;
    assert.equal(failure.failures, 1);
    assert.equal(failure.delayMs, 1_000);
    assert.equal(failure.record?.operator, "process-1 key");
    // The source's input position of record 7 (its 8th).
    assert.match(failure.record!.position, /(offset|record) 7$/);
    const view = new KvRuntimeView(runtime);
    await view.refresh();
    const handle = new LocalJobHandle({
      runtime: view,
      graph: env.getJobGraph(),
      clock,
    });
    handle.sample();
    const [found] = jobHealth(handle, clock.now()).diagnosis.filter((d) =>
      d.cause === "stuck-actor"
    );
    const evidence = found.evidence.match(
      /^actor poison\/source-0\/0 is stuck on record .*(offset|record) 7 of process-1 key: TypeError: Cannot hash key .*, failed 1 time in a row, next try in (\d+) ms$/,
    );
    assert.ok(evidence, found.evidence);
    assert.equal(Number(evidence[2]), failure.retryAt - clock.now());
    for (; round < 5_000 && !runtime.finished; round++) {
      if (await runtime.tick()) continue;
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
    assert.equal(runtime.finished, true);
    assert.equal(runtime.restarts, 1);
    assert.equal(runtime.failures().size, 0, "running again: not stuck");
    assert.equal(
      (await runtime.status()).find((s) => s.id === actor)?.stuck,
      undefined,
    );
    const letters = await runtime.deadLetters.list();
    assert.deepEqual(letters.map((l) => [l.value, l.reason]), [
      [7, "quarantined"],
    ]);
  } finally {
    console.error = error;
  }
  assert.deepEqual(
    table.rows(),
    [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11].map((n) => JSON.stringify(n)).sort(),
  );
  assert.ok(
    lines.some((l) =>
      /^weir: quarantined a record .*(offset|record) 7:/.test(l)
    ),
    lines.join("\n"),
  );
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

Deno.test('Under errorPolicy "fail" an actor that fails twice in a row at the same operator subtask on a record stamped with its ingestion time quarantines that site for its retry, and releases it once a step commits', async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  const env = new StreamEnvironment({
    jobName: "stamped",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: "fail",
  });
  // 7 comes at 350 ms, 11 long after the actor got past 7.
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 12 }, (_, i) => ({
        at: i === 11 ? 4_000 : i * 50,
        value: i,
      })),
    ),
    env.ingestionTime<number>(),
    "numbers",
  ).keyBy((n) => (n === 7 || n === 11 ? null : n % 2) as number)
    .process<number, undefined>({
      processElement(n, _ctx, out) {
        out(n);
      },
    }).sinkTo(twoPhaseSink(table));
  const runtime = env.createKvRuntime({ kv, leaseMs: 1_000 });
  const lines: string[] = [];
  const error = console.error;
  console.error = (line: string) => void lines.push(line);
  try {
    // Its retry delay doubles: without the site's quarantine, 7 (with a
    // new timestamp each time) would fail at every retry, for ever.
    for (let round = 0; round < 20_000 && !runtime.finished; round++) {
      if (await runtime.tick()) continue;
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
  } finally {
    console.error = error;
  }
  assert.equal(runtime.finished, true, lines.join("\n"));
  // 7: failed, failed again (its site is quarantined), set aside. 11:
  // failed (a third failure in a row at the site, after the actor got past
  // 7: its site was released, so it failed, and its retry quarantines it).
  assert.equal(runtime.restarts, 3);
  assert.deepEqual(
    (await runtime.deadLetters.list()).map((l) => [l.value, l.reason]),
    [[7, "quarantined"], [11, "quarantined"]],
  );
  assert.deepEqual(
    table.rows(),
    [0, 1, 2, 3, 4, 5, 6, 8, 9, 10].map((n) => JSON.stringify(n)).sort(),
  );
  await runtime.stop();
});
