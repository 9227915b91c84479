// A job handle over a running LocalRuntime: two partitions with a record per
// second for a minute, a 10 s window per partition; `advance` runs the job
// to a processing time in 100 ms steps. Shared by the observe and http tests.

import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import type { CompletedCheckpoint } from "../../src/actors/checkpoint.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";
import type { JobGraph } from "../../src/runtime/job_graph.ts";
import { timedSink } from "./timed_sink.ts";

export const T0 = 1_700_000_000_000;
/** A click: its event time and the partition it was read from. */
export type Click = { ts: number; partition: number };

/**
 * The clicks job: a scripted source of `partitions` partitions, keyed by
 * partition, counted in 10 s tumbling windows (2 s out of order), into a
 * sink that records when results arrive.
 *
 * @returns Its graph.
 */
export function clicksGraph(
  steps: readonly ScriptStep<Click>[],
  partitions: number,
  clock: ManualClock,
): JobGraph {
  const env = new StreamEnvironment({
    jobName: "clicks",
    parallelism: 2,
    clock,
  });
  env.fromSource(
    new ScriptedSource([...steps], { partitions }),
    WatermarkStrategy.forBoundedOutOfOrderness<Click>(2_000)
      .withTimestampAssigner((c) => c.ts),
    "clicks",
  )
    .keyBy((c) => c.partition)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate({
      createAccumulator: () => 0,
      add: (_c, n) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    })
    .sinkTo(timedSink(clock, []));
  return env.getJobGraph();
}

/** What {@linkcode clicksHandle} builds: two partitions with a record per second for a minute. */
export interface ClicksHandle {
  readonly clock: ManualClock;
  readonly runtime: LocalRuntime;
  readonly handle: LocalJobHandle;
  /** Runs the job to processing time `until`, in 100 ms steps. */
  advance(until: number): void;
}

export function clicksHandle(
  options: { historySize?: number; restoreFrom?: CompletedCheckpoint } = {},
): ClicksHandle {
  const steps: ScriptStep<Click>[] = [];
  for (let s = 0; s <= 60; s++) {
    for (const partition of [0, 1]) {
      steps.push({
        at: s * 1_000,
        partition,
        value: { ts: T0 + s * 1_000, partition },
      });
    }
  }
  const clock = new ManualClock(0);
  const graph = clicksGraph(steps, 2, clock);
  const store = new CheckpointStore(new MemoryStorage());
  const runtime = new LocalRuntime(graph, {
    clock,
    checkpointStore: store,
    restoreFrom: options.restoreFrom,
  });
  const handle = new LocalJobHandle({
    runtime,
    graph,
    clock,
    store,
    historySize: options.historySize,
  });
  function advance(until: number): void {
    for (let t = clock.now(); t <= until; t += 100) {
      clock.set(t);
      runtime.runUntilIdle();
    }
  }
  return { clock, runtime, handle, advance };
}
