// The runtime conformance suite on the KV runtime: one worker on an
// in-memory Deno KV per run (a restore starts in a fresh database, as a new
// deployment would).

import assert from "node:assert/strict";
import { runtimeConformance } from "../_runtime_conformance.ts";
import { underTest } from "../_runtime_under_test.ts";
import { uidConformance } from "../_uid_conformance.ts";
import { recoveryConformance } from "../_recovery_conformance.ts";
import {
  errorPolicyConformance,
  policyRun,
} from "../_error_policy_conformance.ts";
import { optionsConformance } from "../_options_conformance.ts";
import { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";

const kvRuntime = underTest({
  name: "kv",
  async open(env, restoreFrom, options, use) {
    using kv = await Deno.openKv(":memory:");
    const runtime = env.createKvRuntime({ kv, ...options }, restoreFrom);
    return await use({ runtime, step: () => runtime.tick() });
  },
});

runtimeConformance(kvRuntime);
uidConformance(kvRuntime);
recoveryConformance(kvRuntime);
errorPolicyConformance({
  name: "kv",
  async run(env, clock, kv) {
    const runtime = env.createKvRuntime({ kv, leaseMs: 1_000 });
    // Round by round rather than run(): an actor that keeps failing is
    // retried forever (it never ends the worker), so a job that does not
    // end must fail the test, not hang it.
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
optionsConformance({
  name: "kv",
  create: (graph, options, kv) => new KvRuntime(graph, { ...options, kv }),
});
