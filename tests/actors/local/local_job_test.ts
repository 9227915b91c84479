// The local runtime and the error policy: dead letters are durable before a checkpoint
// that skipped their records is saved; under "fail" a LocalJob restarts
// from its latest checkpoint and quarantines the record if it fails again,
// and the strike outlives the process; options are checked by name.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import { DeadLetterLog } from "../../../src/actors/dead_letter_log.ts";
import { LocalRuntime } from "../../../src/actors/local/local_runtime.ts";
import { LocalJob } from "../../../src/actors/local/local_job.ts";
import { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import type { CompletedCheckpoint } from "../../../src/actors/checkpoint.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import type { ErrorPolicy } from "../../../src/runtime/dead_letter.ts";
import type {
  Source,
  SourceBatch,
  SourceReader,
} from "../../../src/runtime/source.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";
import { drive } from "../../_support/sensor_job.ts";

interface Storages {
  checkpoints?: MemoryStorage;
  deadLetters: MemoryStorage;
  strikes: MemoryStorage;
}

/** Numbers 0-29, 20 ms apart, keyed by parity; 13 and 21 have no key. */
function job(
  clock: ManualClock,
  policy: ErrorPolicy,
  storages: Storages,
  table: ExternalTable<number>,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "numbers",
    parallelism: 2,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: policy,
    checkpointStorage: storages.checkpoints ?? null,
    deadLetterStorage: storages.deadLetters,
    strikeStorage: storages.strikes,
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 30 }, (_, i) => ({
        at: i * 20,
        partition: i % 2,
        value: i,
      })),
      { partitions: 2 },
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).keyBy((n) => (n === 13 || n === 21 ? null : n % 2) as number)
    .process<number, undefined>({
      processElement(n, _ctx, out) {
        out(n);
      },
    }).sinkTo(twoPhaseSink(table));
  return env;
}

const WITHOUT_POISON = Array.from({ length: 30 }, (_, i) => i)
  .filter((i) => i !== 13 && i !== 21).map((i) => JSON.stringify(i)).sort();

function quiet<T>(run: () => Promise<T>): Promise<T> {
  const error = console.error;
  console.error = () => {};
  return run().finally(() => console.error = error);
}

Deno.test("LocalRuntime writes the letters of skipped records to the dead-letter log before it saves the checkpoint that skipped them", async () => {
  const clock = new ManualClock(0);
  const storages = {
    deadLetters: new MemoryStorage(),
    strikes: new MemoryStorage(),
  };
  const env = job(clock, "dead-letter", storages, new ExternalTable());
  const log = new DeadLetterLog(storages.deadLetters);
  // What the log held when each checkpoint was saved.
  const seen: Array<[number, number]> = [];
  const runtime = new LocalRuntime(env.getJobGraph(), {
    clock,
    checkpointIntervalMs: 100,
    deadLetterStorage: storages.deadLetters,
    checkpointStore: {
      async save(checkpoint: CompletedCheckpoint) {
        seen.push([checkpoint.id, await log.count()]);
      },
    },
  });
  await quiet(() => drive(runtime, clock));
  // Record 13 is read at 260 ms, 21 at 420 ms: every checkpoint after
  // them was saved with their letters already in the log.
  assert.deepEqual(
    seen.map(([id, letters]) => [id * 100, letters]),
    [[100, 0], [200, 0], [300, 1], [400, 1], [500, 2]],
  );
  assert.equal(runtime.deadLetterCount, 2);
  assert.deepEqual(
    (await runtime.deadLetters.list()).map((l) => [l.value, l.reason]),
    [[13, "dead-letter"], [21, "dead-letter"]],
  );
});

Deno.test('A LocalJob under "fail" restarts from its latest checkpoint once per poison record, and quarantines each when it fails again: every other record once', async () => {
  const clock = new ManualClock(0);
  const storages = {
    checkpoints: new MemoryStorage(),
    deadLetters: new MemoryStorage(),
    strikes: new MemoryStorage(),
  };
  const table = new ExternalTable<number>();
  const lines: string[] = [];
  const error = console.error;
  console.error = (line: string) => void lines.push(line);
  const env = job(clock, "fail", storages, table);
  const running = env.createJob();
  try {
    await running.run();
  } finally {
    console.error = error;
  }
  assert.equal(running.restarts, 2);
  assert.equal(running.finished, true);
  assert.deepEqual(table.rows(), WITHOUT_POISON);
  assert.deepEqual(
    (await running.deadLetters.list()).map((l) => [l.value, l.reason]),
    [[13, "quarantined"], [21, "quarantined"]],
  );
  assert.equal(running.deadLetterCount, 2, "each letter counted once");
  const restarts = lines.filter((l) => l.includes("restarts from"));
  assert.equal(restarts.length, 2, lines.join("\n"));
  assert.match(
    restarts[0],
    /^weir: job 'numbers' restarts from checkpoint 2 as a record of process-1 key subtask 1 at .* failed \(errorPolicy "fail"\): TypeError: Cannot hash key/,
  );
});

Deno.test("A strike outlives the process: a job started over quarantines the record at once, without a restart, and the log still holds it once", async () => {
  const storages = {
    deadLetters: new MemoryStorage(),
    strikes: new MemoryStorage(),
  };
  const first = job(new ManualClock(0), "fail", storages, new ExternalTable());
  const ran = first.createJob();
  await quiet(() => ran.run());
  assert.equal(ran.restarts, 2, "no checkpoints: from the start, twice");
  // A new process: a new environment on the same storages, started over.
  const table = new ExternalTable<number>();
  const again = job(new ManualClock(0), "fail", storages, table).createJob();
  await quiet(() => again.run());
  assert.equal(again.restarts, 0);
  assert.equal(again.deadLetterCount, 0, "nothing new in the log");
  assert.deepEqual(table.rows(), WITHOUT_POISON);
  assert.deepEqual(
    (await again.deadLetters.list()).map((l) => [l.value, l.reason]),
    [[13, "quarantined"], [21, "quarantined"]],
  );
});

Deno.test("LocalRuntime, LocalJob and the KV runtime refuse an errorPolicy they do not know, naming it", async () => {
  const graph = job(new ManualClock(0), "fail", {
    deadLetters: new MemoryStorage(),
    strikes: new MemoryStorage(),
  }, new ExternalTable()).getJobGraph();
  const bad = { clock: new ManualClock(0), errorPolicy: "skip" as ErrorPolicy };
  const refused = {
    name: "RangeError",
    message:
      /Cannot create (LocalRuntime|KvRuntime) as 'errorPolicy' must be "fail" or "dead-letter": current value is "skip"/,
  };
  assert.throws(() => new LocalRuntime(graph, bad), refused);
  assert.throws(() => new LocalJob(graph, bad), refused);
  using kv = await Deno.openKv(":memory:");
  assert.throws(() => new KvRuntime(graph, { kv, ...bad }), refused);
});

/**
 * Even numbers on partition "a", odd ones on "b", 0-29, a pair every 20
 * ms; each new reader polls the other partition first, as a KV log's
 * prefetch timing may from one run to the next.
 */
class InterleavingSource implements Source<number> {
  readonly name = "interleaving";
  #readers = 0;

  createReader(): SourceReader<number> {
    const order = this.#readers++ % 2 === 0 ? [0, 1] : [1, 0];
    let offsets = [0, 0];
    const LENGTH = 15;
    return {
      partitions: ["a", "b"],
      get finished() {
        return offsets.every((o) => o === LENGTH);
      },
      poll(now: number): SourceBatch<number> | null {
        for (const p of order) {
          const o = offsets[p];
          if (o === LENGTH || o * 20 > now) continue;
          offsets[p]++;
          const n = 2 * o + p;
          return {
            partition: p,
            values: [n],
            timestamps: [n],
            ended: offsets[p] === LENGTH,
          };
        }
        return null;
      },
      nextAvailableAt(now: number) {
        const next = Math.min(
          ...offsets.map((o) => o < LENGTH ? o * 20 : Infinity),
        );
        return Math.max(next, now);
      },
      snapshotState: () => [...offsets],
      restoreState(state: unknown) {
        offsets = [...(state as number[])];
      },
    };
  }
}

Deno.test("A LocalJob writes one letter for a record that fails at another channel position after a restart, as its source interleaves partitions in another order", async () => {
  const storages = {
    checkpoints: new MemoryStorage(),
    deadLetters: new MemoryStorage(),
    strikes: new MemoryStorage(),
  };
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({
    jobName: "interleaved",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: "fail",
    checkpointStorage: storages.checkpoints,
    deadLetterStorage: storages.deadLetters,
    strikeStorage: storages.strikes,
  });
  env.fromSource(
    new InterleavingSource(),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).keyBy(() => 0).process<number, undefined>({
    processElement(n, _ctx, out) {
      if (n === 13 || n === 15) throw new Error(`Cannot process ${n}`);
      out(n);
    },
  }).sinkTo(twoPhaseSink(new ExternalTable<number>()));
  const running = env.createJob();
  await quiet(() => running.run());
  assert.equal(running.restarts, 2);
  // 13 was set aside (quarantined) by the run that then failed on 15, and
  // again, at another channel position, by the run after it.
  const letters = await running.deadLetters.list();
  assert.deepEqual(letters.map((l) => [l.value, l.reason]), [
    [13, "quarantined"],
    [15, "quarantined"],
  ]);
  assert.equal(running.deadLetterCount, 2);
});

/**
 * Numbers 0 to `count - 1`, 20 ms apart, on one partition, stamped with
 * their ingestion time, through a map that throws on `poison`.
 */
function failingMap(
  clock: ManualClock,
  poison: readonly number[],
  count: number,
  table: ExternalTable<number>,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "stamped",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: "fail",
    deadLetterStorage: new MemoryStorage(),
    strikeStorage: new MemoryStorage(),
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: count }, (_, i) => ({
        at: i * 20,
        partition: 0,
        value: i,
      })),
      { partitions: 1 },
    ),
    env.ingestionTime<number>(),
    "numbers",
  ).map((n) => {
    if (poison.includes(n)) throw new Error(`Cannot map ${n}`);
    return n;
  }).sinkTo(twoPhaseSink(table));
  return env;
}

/** Runs `job`, moving the clock on at each restart as real time does. */
async function runWithTimePassing(
  job: LocalJob,
  clock: ManualClock,
): Promise<string[]> {
  const lines: string[] = [];
  const error = console.error;
  console.error = (line: string) => {
    lines.push(line);
    if (!line.includes("restarts from")) return;
    clock.set(clock.now() + 1);
    // A job that restarts for ever must fail the test, not hang it.
    if (job.restarts >= 10) job.stop();
  };
  try {
    await job.run();
  } finally {
    console.error = error;
  }
  return lines;
}

Deno.test('A LocalJob under "fail" quarantines a record stamped with its ingestion time when it fails again after a restart from the same checkpoint, though its strike differs', async () => {
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  const job = failingMap(clock, [5], 10, table).createJob();
  const lines = await runWithTimePassing(job, clock);
  assert.equal(job.finished, true, lines.join("\n"));
  // Failed; failed again with another timestamp at the same operator
  // subtask, from the same checkpoint (the start): its site is quarantined.
  assert.equal(job.restarts, 2);
  assert.match(
    lines.filter((l) => l.includes("restarts from"))[1],
    /every record that fails at Map subtask 0 is quarantined until a newer checkpoint completes/,
  );
  const letters = await job.deadLetters.list();
  assert.deepEqual(letters.map((l) => [l.value, l.reason]), [
    [5, "quarantined"],
  ]);
  assert.deepEqual(
    table.rows(),
    [0, 1, 2, 3, 4, 6, 7, 8, 9].map((n) => JSON.stringify(n)),
  );
});

Deno.test('A LocalJob under "fail" releases a quarantined operator subtask once a newer checkpoint completes: a record failing there later restarts the job again', async () => {
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  // 3 fails at 60 ms, 25 at 500 ms: checkpoints complete in between.
  const job = failingMap(clock, [3, 25], 30, table).createJob();
  const lines = await runWithTimePassing(job, clock);
  assert.equal(job.finished, true, lines.join("\n"));
  assert.equal(job.restarts, 4, "twice for each record");
  const restarts = lines.filter((l) => l.includes("restarts from"));
  const from = /restarts from (the start|checkpoint \d+)/;
  assert.deepEqual(restarts.map((l) => l.match(from)![1]), [
    "the start",
    "the start",
    "checkpoint 4",
    "checkpoint 4",
  ]);
  assert.deepEqual(
    (await job.deadLetters.list()).map((l) => [l.value, l.reason]),
    [[3, "quarantined"], [25, "quarantined"]],
  );
  assert.equal(table.rows().length, 28);
});
