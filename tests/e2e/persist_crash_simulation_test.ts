// A deterministic simulation of crashes in persist mode: a job with late
// records (allowed lateness and a late-data side output), parallelism 2,
// two partitions per source subtask (one silent for a while, one ending
// early), checkpoints every 150 ms, crashed at every step boundary. Each
// crash restarts from the latest checkpoint at the processing time it was
// taken, so the script replays on the same schedule; the main output and
// the late records must be the failure-free run's, record for record
// (persist snapshots everything that
// decides event time, so a restart at the same processing time gives
// identical output).

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import type { CompletedCheckpoint } from "../../src/actors/checkpoint.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ExternalTable, twoPhaseSink } from "../_support/two_phase_sink.ts";
import { drive } from "../_support/sensor_job.ts";

type Reading = { id: number; sensor: number; ts: number };

const CHECKPOINT_MS = 150;

/**
 * About 1.2 s of readings on four partitions (subtask 0 reads 0 and 2,
 * subtask 1 reads 1 and 3): some far behind (late even with the allowed
 * lateness), some a little (they fire their window again); partition 2 is
 * silent from 400 ms to 900 ms (idle after 120 ms), partition 1 ends at
 * 600 ms, the others at 1.3 s.
 */
function script(): ScriptStep<Reading>[] {
  const steps: ScriptStep<Reading>[] = [];
  let id = 0;
  const add = (at: number, partition: number, behindMs: number) => {
    const ts = Math.max(0, at - behindMs);
    steps.push({ at, partition, value: { id: id++, sensor: id % 3, ts } });
  };
  for (let at = 0; at <= 1_200; at += 30) {
    add(at, 0, id % 4 === 3 ? 700 : (id * 13) % 60);
  }
  for (let at = 10; at < 600; at += 45) add(at, 1, id % 3 === 1 ? 380 : 0);
  steps.push({ at: 600, partition: 1, end: true });
  for (let at = 5; at <= 1_200; at += 55) {
    if (at < 400 || at > 900) add(at, 2, id % 4 === 2 ? 800 : 20);
  }
  for (let at = 20; at <= 1_200; at += 40) {
    add(at, 3, id % 5 === 0 ? 400 : id % 7 === 0 ? 700 : 0);
  }
  for (const partition of [0, 2, 3]) {
    steps.push({ at: 1_300, partition, end: true });
  }
  return steps;
}

interface Tables {
  main: ExternalTable<string>;
  late: ExternalTable<string>;
}

function job(
  storage: MemoryStorage,
  clock: ManualClock,
  tables: Tables,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "late-simulation",
    parallelism: 2,
    clock,
    autoWatermarkIntervalMs: 50,
    checkpointIntervalMs: CHECKPOINT_MS,
    watermarkRecovery: "persist",
    checkpointStorage: storage,
  });
  const tag = new OutputTag<Reading>("late");
  const windows = env.fromSource(
    new ScriptedSource(script(), { partitions: 4 }),
    WatermarkStrategy.forBoundedOutOfOrderness<Reading>(100)
      .withTimestampAssigner((r) => r.ts).withIdleness(120),
    "readings",
  ).keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(250))
    .allowedLateness(200).sideOutputLateData(tag)
    .aggregate<[number, number], [number, number], string>(
      {
        createAccumulator: () => [0, 0],
        add: (r, [count, sum]) => [count + 1, sum + r.id],
        getResult: (acc) => acc,
        merge: (a, b) => [a[0] + b[0], a[1] + b[1]],
      },
      (sensor, ctx, [[count, sum]], out) =>
        out(`${sensor}@${ctx.window.start}=${count}/${sum}`),
    );
  windows.sinkTo(twoPhaseSink(tables.main));
  windows.getSideOutput(tag).map((r) => `${r.id}@${r.ts}`)
    .sinkTo(twoPhaseSink(tables.late));
  return env;
}

function rows(tables: Tables): { main: string[]; late: string[] } {
  return { main: tables.main.rows(), late: tables.late.rows() };
}

/** Runs until `steps` steps, crashes, restarts at the checkpoint's processing time, runs to the end. */
async function crashAfter(steps: number) {
  const tables = {
    main: new ExternalTable<string>(),
    late: new ExternalTable<string>(),
  };
  const storage = new MemoryStorage();
  const clock = new ManualClock(0);
  await drive(job(storage, clock, tables).createRuntime(), clock, steps);
  // Everything in memory is gone; the storage and the external tables
  // survive. Processing time goes back to the checkpoint's instant.
  const checkpoint: CompletedCheckpoint | null = await job(
    storage,
    clock,
    tables,
  ).findCheckpoint();
  const restart = new ManualClock(checkpoint?.createdAt ?? 0);
  const env = job(storage, restart, tables);
  await drive(env.createRuntime(checkpoint ?? undefined), restart);
  return { rows: rows(tables), checkpoint: checkpoint?.id ?? 0 };
}

Deno.test("Persist mode restarted at the same processing time after a crash at every step boundary gives the failure-free output and late records", async () => {
  const tables = {
    main: new ExternalTable<string>(),
    late: new ExternalTable<string>(),
  };
  const clock = new ManualClock(0);
  const runtime = job(new MemoryStorage(), clock, tables).createRuntime();
  const steps = await drive(runtime, clock);
  const baseline = rows(tables);
  // The script must exercise what it claims: late records, windows fired
  // again by allowed lateness, and many checkpoints.
  assert.ok(baseline.late.length >= 6, `${baseline.late.length} late`);
  const windows = baseline.main.map((row) => row.split("=")[0]);
  assert.ok(
    windows.length - new Set(windows).size >= 2,
    "windows fired again within the allowed lateness",
  );
  const checkpoints = runtime.latestCheckpoint?.id ?? 0;
  assert.ok(checkpoints >= 6, `${checkpoints} checkpoints`);
  const restoredFrom = new Set<number>();
  for (let crash = 1; crash < steps; crash++) {
    const restarted = await crashAfter(crash);
    restoredFrom.add(restarted.checkpoint);
    assert.deepEqual(restarted.rows, baseline, `crash after step ${crash}`);
  }
  assert.ok(
    restoredFrom.size >= checkpoints - 1,
    "restored from each checkpoint",
  );
});

/** When a KV-runtime worker is replaced by a new one. */
type Replace =
  /** Never: one worker runs the whole job. */
  | "never"
  /** When it finds nothing more to do at the current processing time. */
  | "every instant"
  /**
   * After two rounds (the first worker after `2 + offset`): a new worker's
   * first round takes the actors up and commits the sinks' completed
   * checkpoints again, so it always counts as progress, and only the
   * second can find the instant done.
   */
  | { everyTwoRounds: number };

/**
 * Ticks KV-runtime workers on one database to the end of the job. A worker
 * replaced is stopped between two rounds, as a Deploy instance is, and
 * everything it held in memory is gone; the new one starts at the same
 * processing time.
 */
async function runKv(replace: Replace) {
  using kv = await Deno.openKv(":memory:");
  const tables = {
    main: new ExternalTable<string>(),
    late: new ExternalTable<string>(),
  };
  const clock = new ManualClock(0);
  let workers = 0;
  const worker = () =>
    job(new MemoryStorage(), clock, tables).createKvRuntime({
      kv,
      workerId: `w${workers++}`,
    });
  let runtime = worker();
  let rounds = typeof replace === "object" ? 2 + replace.everyTwoRounds : 0;
  let fresh = true;
  for (let round = 1;; round++) {
    assert.ok(round < 5_000, "the job must finish");
    const progressed = await runtime.tick();
    const { finished } = runtime;
    const next = runtime.nextWakeup();
    const due = finished ||
      (typeof replace === "object" && --rounds === 0) ||
      (replace === "every instant" && !progressed && !fresh);
    fresh = false;
    if (due) {
      runtime.stop();
      await runtime.run();
      if (finished) return { rows: rows(tables), workers };
      runtime = worker();
      rounds = 2;
      fresh = true;
    }
    if (!progressed) clock.set(Math.max(next, clock.now() + 1));
  }
}

Deno.test("The KV runtime with its worker replaced at every processing instant, or every round, at the same processing time, gives the failure-free output and late records", async () => {
  const baseline = await runKv("never");
  assert.ok(
    baseline.rows.late.length >= 6,
    `${baseline.rows.late.length} late`,
  );
  const replacements: Replace[] = [
    "every instant",
    { everyTwoRounds: 0 },
    { everyTwoRounds: 1 },
  ];
  for (const replace of replacements) {
    const replaced = await runKv(replace);
    assert.ok(replaced.workers >= 80, `${replaced.workers} workers`);
    assert.deepEqual(replaced.rows, baseline.rows, JSON.stringify(replace));
  }
});
