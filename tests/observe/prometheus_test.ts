// prometheusText over a handle whose checkpoints and status a test
// chooses: the counters it keeps between scrapes (checkpoints completed
// and failed, back-pressured time), the last checkpoint's size, and
// registered gauges under names of their own.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";
import type {
  CheckpointRecord,
  JobHandle,
} from "../../src/observe/job_handle.ts";
import { prometheusText } from "../../src/observe/prometheus.ts";
import type { SubtaskStatus } from "../../src/actors/actor_runtime.ts";
import { timedSink } from "../_support/timed_sink.ts";

const T0 = 1_700_000_000_000;

/**
 * A one-operator job whose handle lists `checkpoints` (set by the test)
 * and reports the subtasks paused while `paused.on` is set.
 */
function job() {
  const clock = new ManualClock(T0);
  const env = new StreamEnvironment({ jobName: "j", parallelism: 1, clock });
  env.fromSource(
    new ScriptedSource<number>([{ at: 0, value: T0 }]),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).sinkTo(timedSink(clock, []));
  const graph = env.getJobGraph();
  const runtime = new LocalRuntime(graph, { clock });
  runtime.runUntilIdle();
  const local = new LocalJobHandle({ runtime, graph, clock });
  const state = {
    checkpoints: [] as CheckpointRecord[],
    paused: false,
    gauges: {} as Record<string, number>,
  };
  const handle: JobHandle = {
    name: local.name,
    graph: local.graph,
    status: () =>
      local.status().map((s): SubtaskStatus => ({
        ...s,
        paused: state.paused,
        gauges: { ...s.gauges, ...state.gauges },
      })),
    history: () => local.history(),
    checkpoints: () => Promise.resolve(state.checkpoints),
    triggerCheckpoint: () => null,
    inputChannels: (id) => local.inputChannels(id),
  };
  return { handle, state };
}

function values(text: string, name: string): string[] {
  return text.split("\n")
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => line.slice(line.lastIndexOf(" ") + 1));
}

const ids = (...list: number[]): CheckpointRecord[] =>
  list.map((id) => ({ id, createdAt: T0 + id }));

Deno.test("prometheusText counts checkpoints completed since the first scrape and ids never saved as failed", async () => {
  const { handle, state } = job();
  state.checkpoints = ids(1, 2, 3);
  let text = await prometheusText([handle], T0);
  assert.deepEqual(values(text, "weir_checkpoints_completed_total"), ["3"]);
  assert.deepEqual(values(text, "weir_checkpoints_failed_total"), ["0"]);
  assert.deepEqual(values(text, "weir_checkpoints_retained"), ["3"]);
  // The store keeps three: 4 and 6 were saved, 5 never was.
  state.checkpoints = ids(3, 4, 6);
  text = await prometheusText([handle], T0 + 1_000);
  assert.deepEqual(values(text, "weir_checkpoints_completed_total"), ["5"]);
  assert.deepEqual(values(text, "weir_checkpoints_failed_total"), ["1"]);
  assert.deepEqual(values(text, "weir_checkpoints_retained"), ["3"]);
  // The same list again counts nothing more.
  text = await prometheusText([handle], T0 + 2_000);
  assert.deepEqual(values(text, "weir_checkpoints_completed_total"), ["5"]);
  assert.deepEqual(values(text, "weir_checkpoints_failed_total"), ["1"]);
});

Deno.test("prometheusText writes the last known checkpoint size in bytes and duration in seconds", async () => {
  const { handle, state } = job();
  let text = await prometheusText([handle], T0);
  assert.deepEqual(values(text, "weir_checkpoint_size_bytes"), []);
  state.checkpoints = [
    { id: 1, createdAt: T0, sizeBytes: 2_048, durationMs: 250 },
    { id: 2, createdAt: T0 + 1, sizeBytes: 4_096 },
    { id: 3, createdAt: T0 + 2 },
  ];
  text = await prometheusText([handle], T0);
  assert.deepEqual(values(text, "weir_checkpoint_size_bytes"), ["4096"]);
  assert.deepEqual(values(text, "weir_checkpoint_duration_seconds"), [
    "0.25",
  ]);
});

Deno.test("prometheusText holds a paused subtask's state until the next scrape to count back-pressured seconds", async () => {
  const { handle, state } = job();
  const seconds = async (now: number) =>
    values(
      await prometheusText([handle], now),
      "weir_subtask_back_pressured_seconds_total",
    );
  assert.deepEqual(await seconds(T0), ["0"]);
  state.paused = true;
  // Seen paused at T0 + 1 s: counts from there (the job's one subtask,
  // the source chained with its sink).
  assert.deepEqual(await seconds(T0 + 1_000), ["0"]);
  state.paused = false;
  assert.deepEqual(await seconds(T0 + 3_500), ["2.5"]);
  assert.deepEqual(await seconds(T0 + 9_000), ["2.5"]);
});

Deno.test("prometheusText writes each registered gauge under a name of its own, in seconds for milliseconds", async () => {
  const { handle, state } = job();
  state.gauges = {
    queueAgeMs: 1_500,
    numBuffers: 4,
    queue_age_ms: 7, // writes like queueAgeMs: the first one is kept
    pendingRecords: 9, // a built-in family's name: left out
    "bad name": 1,
  };
  const text = await prometheusText([handle], T0);
  assert.deepEqual(values(text, "weir_subtask_queue_age_seconds"), ["1.5"]);
  assert.match(text, /# TYPE weir_subtask_queue_age_seconds gauge\n/);
  assert.deepEqual(values(text, "weir_subtask_buffers"), ["4"]);
  // The built-in family has the mailbox depth, not the gauge.
  assert.deepEqual(values(text, "weir_subtask_pending_records"), ["0"]);
  assert.equal(/bad.name/.test(text), false);
  assert.equal(text.includes("weir_gauge"), false);
});
