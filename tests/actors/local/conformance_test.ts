// The runtime conformance suite on the local runtime.

import assert from "node:assert/strict";
import {
  runtimeConformance,
  type RuntimeUnderTest,
} from "../_runtime_conformance.ts";
import { uidConformance } from "../_uid_conformance.ts";
import { recoveryConformance } from "../_recovery_conformance.ts";
import { errorPolicyConformance } from "../_error_policy_conformance.ts";
import { optionsConformance } from "../_options_conformance.ts";
import { LocalRuntime } from "../../../src/actors/local/local_runtime.ts";
import type { ManualClock } from "../../../src/time/clock.ts";

/** Steps until `checkpoints` are saved (or the job ends). */
async function runUntil(
  runtime: LocalRuntime,
  clock: ManualClock,
  checkpoints: number,
): Promise<void> {
  while ((runtime.latestCheckpoint?.id ?? 0) < checkpoints) {
    const worked = runtime.step();
    await runtime.flushCheckpoints();
    if (worked) continue;
    if (runtime.finished) {
      throw new Error("the job ended before the checkpoint");
    }
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
}

const local: RuntimeUnderTest = {
  name: "local",
  async run(env, _clock, restoreFrom, options) {
    await env.createRuntime(restoreFrom, options).run();
  },
  async crashAfterCheckpoints(env, clock, checkpoints) {
    await runUntil(env.createRuntime(), clock, checkpoints);
  },
};

runtimeConformance(local);
uidConformance(local);
recoveryConformance(local);
errorPolicyConformance({
  name: "local",
  async run(env) {
    // What execute() and the dev server run: restarts included.
    const job = env.createJob();
    // A job that restarts for ever must fail the test, not hang it.
    const error = console.error;
    console.error = (line: string) => {
      error(line);
      if (job.restarts >= 10) job.stop();
    };
    try {
      await job.run();
    } finally {
      console.error = error;
    }
    assert.ok(job.finished, `the job did not end: ${job.restarts} restarts`);
    return { restarts: job.restarts, letters: await job.deadLetters.list() };
  },
});
optionsConformance({
  name: "local",
  create: (graph, options) => new LocalRuntime(graph, options),
});
