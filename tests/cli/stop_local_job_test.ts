// Ctrl-C on a job of the local runtime: a clean stop takes a
// final checkpoint and exits 0; a stop as a record fails, or a final
// checkpoint whose drain fails on a record, takes none past the record,
// says where the next start resumes, and exits 1.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import type { LocalJob } from "../../src/actors/local/local_job.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { stopLocalJob } from "../../src/cli/stop_local_job.ts";
import { ExternalTable, twoPhaseSink } from "../_support/two_phase_sink.ts";

/** What a job of numbers 0-29 (20 ms apart, one per 20 ms of event time) does. */
interface Behaviour {
  /** Runs before number `n` is mapped. */
  readonly before?: (n: number) => void;
  /** Whether the window starting at `start` (100 ms windows) throws. */
  readonly failsWindow?: (start: number) => boolean;
}

function numbers(clock: ManualClock, behaviour: Behaviour) {
  const storage = new MemoryStorage();
  const env = new StreamEnvironment({
    jobName: "numbers",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: "fail",
    checkpointStorage: storage,
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 30 }, (_, i) => ({
        at: i * 20,
        partition: 0,
        value: i,
      })),
      { partitions: 1 },
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n * 20),
    "numbers",
  ).map((n) => {
    behaviour.before?.(n);
    return n;
  }).keyBy(() => 0).window(TumblingEventTimeWindows.of(100))
    .process<number>((_key, ctx, elements, out) => {
      if (behaviour.failsWindow?.(ctx.window.start)) {
        throw new Error(`Cannot count window ${ctx.window.start}`);
      }
      out(elements.length);
    }).sinkTo(twoPhaseSink(new ExternalTable<number>()));
  return { env, store: new CheckpointStore(storage) };
}

/** Stops `job` (running as `running`) as Ctrl-C does, collecting the lines. */
async function stop(job: LocalJob, running: Promise<unknown>) {
  const logged: string[] = [];
  const warned: string[] = [];
  const error = console.error;
  console.error = () => {};
  try {
    const code = await stopLocalJob(job, running, {
      name: "numbers",
      log: (line) => logged.push(line),
      warn: (line) => warned.push(line),
    });
    return { code, logged, warned };
  } finally {
    console.error = error;
  }
}

Deno.test("stopLocalJob() stops a job at a final checkpoint and returns 0", async () => {
  const clock = new ManualClock(0);
  let job: LocalJob | null = null;
  const { env, store } = numbers(clock, {
    before: (n) => n === 16 && job?.stop(),
  });
  job = env.createJob();
  const running = job.run();
  await running;
  const { code, logged, warned } = await stop(job, running);
  assert.equal(code, 0);
  assert.deepEqual(warned, []);
  const final = await store.highestId();
  assert.deepEqual(logged, [
    `weir: job 'numbers' stopped at final checkpoint ${final}`,
  ]);
});

Deno.test("stopLocalJob() takes no final checkpoint of a job stopped as a record failed, says where the next start resumes, and returns 1", async () => {
  const clock = new ManualClock(0);
  let job: LocalJob | null = null;
  const { env, store } = numbers(clock, {
    before(n) {
      if (n !== 13) return;
      // Ctrl-C lands during the step that fails on 13.
      job?.stop();
      throw new Error("Cannot map 13");
    },
  });
  job = env.createJob();
  const running = job.run();
  await running.catch(() => {});
  const before = await store.highestId();
  assert.ok(before > 0, "checkpoints were taken before it");
  const { code, logged, warned } = await stop(job, running);
  assert.equal(code, 1);
  assert.deepEqual(logged, []);
  assert.equal(await store.highestId(), before, "no checkpoint past it");
  assert.equal(warned.length, 1);
  assert.match(
    warned[0],
    new RegExp(
      `^weir: job 'numbers' stopped after a record of Map subtask 0 at .* failed \\(errorPolicy "fail"\\): Error: Cannot map 13; no final checkpoint was taken past it: the next start \\(--restore latest\\) restores checkpoint ${before} and quarantines the record if it fails again`,
    ),
  );
});

Deno.test("stopLocalJob() takes no final checkpoint when a window fails as the final checkpoint drains the job, and returns 1", async () => {
  const clock = new ManualClock(0);
  let job: LocalJob | null = null;
  const { env, store } = numbers(clock, {
    before: (n) => n === 16 && job?.stop(),
    failsWindow: (start) => start === 200,
  });
  job = env.createJob();
  const running = job.run();
  await running;
  const before = await store.highestId();
  // Time passes between Ctrl-C and the drain: its periodic watermark
  // fires [200, 300), which throws.
  clock.set(clock.now() + 1_000);
  const { code, logged, warned } = await stop(job, running);
  assert.equal(code, 1);
  assert.deepEqual(logged, []);
  assert.equal(await store.highestId(), before, "no checkpoint past it");
  assert.match(
    warned[0],
    new RegExp(
      `^weir: job 'numbers' stopped after a record of Window subtask 0 at .* failed \\(errorPolicy "fail"\\): Error: Cannot count window 200; no final checkpoint was taken past it: the next start \\(--restore latest\\) restores checkpoint ${before} `,
    ),
  );
});

Deno.test("stopLocalJob() takes no final checkpoint of a job whose run failed on something else than a record, and returns 1", async () => {
  const clock = new ManualClock(0);
  const job = numbers(clock, {}).env.createJob();
  const running = Promise.reject(new Error("Cannot write the sink"));
  const { code, warned } = await stop(job, running);
  assert.equal(code, 1);
  assert.deepEqual(warned, [
    "weir: job 'numbers' stopped as it failed: Cannot write the sink; no final checkpoint was taken: the next start (--restore latest) starts from the beginning",
  ]);
});
