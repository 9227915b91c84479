// A LocalJob stopped (Ctrl-C) as a record fails under "fail":
// the failed runtime is never checkpointed, the record is struck, and the
// next start restores the checkpoint before it and quarantines it, so no
// record is lost between the sink and the dead-letter log.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../../src/windows/tumbling.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import type { LocalJob } from "../../../src/actors/local/local_job.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { RecordFailedError } from "../../../src/runtime/dead_letter.ts";
import type { DataStream } from "../../../src/api/data_stream.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";

interface Storages {
  readonly checkpoints: MemoryStorage;
  readonly deadLetters: MemoryStorage;
  readonly strikes: MemoryStorage;
}

function storages(): Storages {
  return {
    checkpoints: new MemoryStorage(),
    deadLetters: new MemoryStorage(),
    strikes: new MemoryStorage(),
  };
}

/** Numbers 0-29, 20 ms apart, timestamped `n * scale`, as `build` processes them. */
function numbers(
  clock: ManualClock,
  s: Storages,
  scale: number,
  build: (numbers: DataStream<number>) => void,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "numbers",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: "fail",
    checkpointStorage: s.checkpoints,
    deadLetterStorage: s.deadLetters,
    strikeStorage: s.strikes,
  });
  build(env.fromSource(
    new ScriptedSource(
      Array.from({ length: 30 }, (_, i) => ({
        at: i * 20,
        partition: 0,
        value: i,
      })),
      { partitions: 1 },
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n * scale),
    "numbers",
  ));
  return env;
}

/** Record 13 fails; `at13` runs just before it does. */
function failingAt13(
  clock: ManualClock,
  s: Storages,
  table: ExternalTable<number>,
  at13: () => void,
): StreamEnvironment {
  return numbers(clock, s, 1, (stream) =>
    stream.map((n) => {
      if (n === 13) {
        at13();
        throw new Error("Cannot map 13");
      }
      return n;
    }).sinkTo(twoPhaseSink(table)));
}

/** A new process: the job restored from the latest checkpoint, run to its end. */
async function restart(
  env: StreamEnvironment,
): Promise<LocalJob> {
  const checkpoint = await env.findCheckpoint("latest");
  const job = env.createJob(checkpoint ?? undefined);
  const error = console.error;
  console.error = () => {};
  try {
    await job.run();
  } finally {
    console.error = error;
  }
  return job;
}

Deno.test("A LocalJob stopped as a record fails strikes the record and takes no final checkpoint past it: the next start quarantines it, and every other record is written once", async () => {
  const s = storages();
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  let job: LocalJob | null = null;
  // Ctrl-C lands during the step that fails on 13.
  const env = failingAt13(clock, s, table, () => job?.stop());
  job = env.createJob();
  const ended = await job.run().then(() => null, (error) => error);
  assert.ok(ended instanceof RecordFailedError, String(ended));
  assert.equal(job.restarts, 0);
  assert.equal(job.failedRecord, ended);
  const latest = job.latestCheckpoint?.id;
  assert.equal(await job.finalCheckpoint(), null, "never past the record");
  assert.equal(job.latestCheckpoint?.id, latest);
  assert.equal((await s.strikes.list([])).length, 1);
  await job.close();

  // The same external table: it outlives the process.
  const again = await restart(
    failingAt13(new ManualClock(clock.now()), s, table, () => {}),
  );
  assert.equal(again.restarts, 0, "quarantined at once: struck");
  assert.deepEqual(
    (await again.deadLetters.list()).map((l) => [l.value, l.reason]),
    [[13, "quarantined"]],
  );
  const written = table.rows().map(Number).sort((a, b) => a - b);
  assert.deepEqual(
    written,
    Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 13),
  );
});

Deno.test("LocalJob.finalCheckpoint() strikes a window that fails as it drains the job, saves no checkpoint past it and returns null: the next start quarantines the window", async () => {
  const s = storages();
  const clock = new ManualClock(0);
  let job: LocalJob | null = null;
  const windowed = (table: ExternalTable<number>, stopAt?: number) =>
    numbers(clock, s, 20, (stream) =>
      stream.map((n) => {
        if (n === stopAt) job?.stop();
        return n;
      }).keyBy(() => 0).window(TumblingEventTimeWindows.of(100))
        .process<number>((_key, ctx, elements, out) => {
          if (ctx.window.start === 200) throw new Error("Cannot sum 200");
          out(elements.length);
        }).sinkTo(twoPhaseSink(table)));
  const table = new ExternalTable<number>();
  // Stopped at 16 (timestamp 320): the window [200, 300) is still open.
  job = windowed(table, 16).createJob();
  await job.run();
  const latest = job.latestCheckpoint?.id;
  // Time passes between Ctrl-C and the drain, whose periodic watermark
  // fires [200, 300), which throws.
  clock.set(clock.now() + 1_000);
  assert.equal(await job.finalCheckpoint(), null);
  assert.ok(job.failedRecord instanceof RecordFailedError);
  assert.deepEqual(job.failedRecord.letter.value, {
    key: 0,
    window: { start: 200, end: 300 },
  });
  assert.equal(job.latestCheckpoint?.id, latest, "no checkpoint past it");
  assert.equal(await job.finalCheckpoint(), null, "asked again: still none");
  assert.equal((await s.strikes.list([])).length, 1);
  await job.close();

  const again = await restart(windowed(table));
  assert.equal(again.restarts, 0);
  assert.deepEqual(
    (await again.deadLetters.list()).map((l) => l.reason),
    ["quarantined"],
  );
  // Six windows of five records, one set aside.
  assert.deepEqual(table.rows(), ["5", "5", "5", "5", "5"]);
});
