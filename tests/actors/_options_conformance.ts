// One suite, two runtimes: every RuntimeOptions field is checked once
// (checkRuntimeOptions), so both runtimes refuse the same bad value, by
// name, when they are created, rather than reading it each its own way
// (a negative checkpointIntervalMs once meant "no checkpoints" on the local
// runtime and "not every step" on the KV runtime).

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import type { JobGraph } from "../../src/runtime/job_graph.ts";
import type {
  ActorRuntime,
  RuntimeOptions,
} from "../../src/actors/actor_runtime.ts";

/** How the suite creates a runtime. */
export interface OptionsUnderTest {
  /** Its name, in test names. */
  readonly name: string;
  /** Creates the runtime of `graph` (the KV runtime on `kv`). */
  create(graph: JobGraph, options: RuntimeOptions, kv: Deno.Kv): ActorRuntime;
}

type Case = {
  readonly field: keyof RuntimeOptions;
  readonly value: unknown;
  readonly error: typeof RangeError | typeof TypeError;
  readonly shown: string;
};

const CASES: readonly Case[] = [
  { field: "checkpointIntervalMs", value: -1, error: RangeError, shown: "-1" },
  {
    field: "checkpointIntervalMs",
    value: NaN,
    error: RangeError,
    shown: "NaN",
  },
  {
    field: "checkpointIntervalMs",
    value: 1.5,
    error: RangeError,
    shown: "1.5",
  },
  {
    field: "checkpointIntervalMs",
    value: "100",
    error: TypeError,
    shown: '"100"',
  },
  { field: "lastCheckpointId", value: -3, error: RangeError, shown: "-3" },
  { field: "lastCheckpointId", value: NaN, error: RangeError, shown: "NaN" },
  {
    field: "watermarkRecovery",
    value: "later",
    error: RangeError,
    shown: '"later"',
  },
  {
    field: "errorPolicy",
    value: "ignore",
    error: RangeError,
    shown: '"ignore"',
  },
  { field: "simulate", value: "yes", error: TypeError, shown: '"yes"' },
  {
    field: "allowNonRestoredState",
    value: 1,
    error: TypeError,
    shown: "1",
  },
];

function graph(clock: ManualClock): JobGraph {
  const env = new StreamEnvironment({ jobName: "options", clock });
  env.fromCollection([1, 2, 3]).sinkTo(new CollectSink());
  return env.getJobGraph();
}

/** Registers the suite's tests for one runtime. */
export function optionsConformance(runtime: OptionsUnderTest): void {
  for (const { field, value, error, shown } of CASES) {
    Deno.test(`[${runtime.name}] refuses ${field}: ${shown} by name when created`, async () => {
      using kv = await Deno.openKv(":memory:");
      const clock = new ManualClock(0);
      const options = { clock, [field]: value } as RuntimeOptions;
      assert.throws(
        () => runtime.create(graph(clock), options, kv),
        (e: unknown) =>
          e instanceof error &&
          e.message.includes(`'${field}'`) &&
          e.message.endsWith(`current value is ${shown}`),
      );
    });
  }

  Deno.test(`[${runtime.name}] accepts every RuntimeOptions field at its bounds`, async () => {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    assert.doesNotThrow(() =>
      runtime.create(graph(clock), {
        clock,
        checkpointIntervalMs: 0,
        lastCheckpointId: 0,
        watermarkRecovery: "persist",
        errorPolicy: "fail",
        simulate: true,
        allowNonRestoredState: false,
      }, kv)
    );
  });
}
