// The runtime conformance suite on the local runtime.

import assert from "node:assert/strict";
import { runtimeConformance } from "../_runtime_conformance.ts";
import { underTest } from "../_runtime_under_test.ts";
import { uidConformance } from "../_uid_conformance.ts";
import { recoveryConformance } from "../_recovery_conformance.ts";
import {
  errorPolicyConformance,
  policyRun,
  type PolicyRuntime,
} from "../_error_policy_conformance.ts";
import { optionsConformance } from "../_options_conformance.ts";
import { LocalRuntime } from "../../../src/actors/local/local_runtime.ts";

const local = underTest({
  name: "local",
  open(env, restoreFrom, options, use) {
    const runtime = env.createRuntime(restoreFrom, options);
    return use({
      runtime,
      async step() {
        const worked = runtime.step();
        await runtime.flushCheckpoints();
        return worked;
      },
    });
  },
});

runtimeConformance(local);
uidConformance(local);
recoveryConformance(local);
errorPolicyConformance({
  name: "local",
  async run(env) {
    // What execute() and the dev server run: restarts included.
    const job: PolicyRuntime = env.createJob();
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
    return await policyRun(job);
  },
});
optionsConformance({
  name: "local",
  create: (graph, options) => new LocalRuntime(graph, options),
});
