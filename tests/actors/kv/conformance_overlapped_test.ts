// The runtime conformance suite on the KV runtime with its actors' steps in
// flight at once (`overlapSteps`), as they are with a real clock, though
// under the suites' simulated clock: the results must not depend on the
// order in which the steps' commits land.

import assert from "node:assert/strict";
import { runtimeConformance } from "../_runtime_conformance.ts";
import { underTest } from "../_runtime_under_test.ts";
import { uidConformance } from "../_uid_conformance.ts";
import { recoveryConformance } from "../_recovery_conformance.ts";
import {
  errorPolicyConformance,
  policyRun,
} from "../_error_policy_conformance.ts";

const NAME = "kv, steps overlapped";

const overlapped = underTest({
  name: NAME,
  async open(env, restoreFrom, options, use) {
    using kv = await Deno.openKv(":memory:");
    const runtime = env.createKvRuntime(
      { kv, overlapSteps: true, ...options },
      restoreFrom,
    );
    return await use({ runtime, step: () => runtime.tick() });
  },
});

runtimeConformance(overlapped);
uidConformance(overlapped);
recoveryConformance(overlapped);
errorPolicyConformance({
  name: NAME,
  async run(env, clock, kv) {
    const runtime = env.createKvRuntime({
      kv,
      leaseMs: 1_000,
      overlapSteps: true,
    });
    // Round by round, as in conformance_test.ts: a job that does not end
    // fails the test instead of hanging it.
    for (let round = 0; round < 5_000 && !runtime.finished; round++) {
      if (await runtime.tick()) continue;
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
    assert.ok(
      runtime.finished,
      `the job did not end: ${JSON.stringify([...runtime.failures()])}`,
    );
    return await policyRun(runtime);
  },
});
