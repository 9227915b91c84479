import assert from "node:assert/strict";
import {
  describeJobSettings,
  resolveJobSettings,
} from "../../src/api/job_settings.ts";

Deno.test("resolveJobSettings() takes a flag over the job file's setting, and that over the default", () => {
  const resolved = resolveJobSettings(
    { parallelism: 4, watermarkRecovery: "persist" },
    { flags: { watermarkRecovery: "replay" } },
  );
  assert.equal(resolved.parallelism, 4);
  assert.equal(resolved.checkpointIntervalMs, 1_000);
  assert.equal(resolved.watermarkRecovery, "replay");
  assert.equal(resolved.errorPolicy, "dead-letter");
  assert.deepEqual(resolved.origins, {
    parallelism: "job file",
    checkpointIntervalMs: "default",
    watermarkRecovery: "command line",
    errorPolicy: "default",
  });
  assert.equal(
    describeJobSettings(resolved),
    'parallelism 4 (job file), checkpoints every 1000 ms (default), watermarkRecovery "replay" (command line), errorPolicy "dead-letter" (default)',
  );
});

Deno.test("resolveJobSettings() refuses a setting that does not exist, by name, rather than ignore it", () => {
  assert.throws(
    () => resolveJobSettings({ paralelism: 4 }, { jobFile: "job.ts" }),
    {
      name: "TypeError",
      message:
        /Cannot run the job file 'job.ts' as 'settings.paralelism' must be one of parallelism, checkpointIntervalMs, watermarkRecovery, errorPolicy: current value is 4/,
    },
  );
  assert.throws(() => resolveJobSettings(3), {
    name: "TypeError",
    message: /'settings' export must be an object: current value is 3/,
  });
});

Deno.test("resolveJobSettings() names the job file's setting or the flag that is out of range", () => {
  assert.throws(() => resolveJobSettings({ parallelism: 0 }), {
    name: "RangeError",
    message: /'settings.parallelism' must be a positive safe integer/,
  });
  assert.throws(
    () => resolveJobSettings({}, { flags: { checkpointIntervalMs: -1 } }),
    { name: "RangeError", message: /'checkpointIntervalMs'/ },
  );
  assert.throws(
    () => resolveJobSettings({ watermarkRecovery: "keep" }),
    {
      name: "RangeError",
      message:
        /'settings.watermarkRecovery' must be "persist" or "replay": current value is "keep"/,
    },
  );
});

Deno.test("resolveJobSettings() takes errorPolicy from a flag over the job file, and refuses a bad one by name", () => {
  const resolved = resolveJobSettings({ errorPolicy: "fail" });
  assert.equal(resolved.errorPolicy, "fail");
  assert.equal(resolved.origins.errorPolicy, "job file");
  assert.match(
    describeJobSettings(resolved),
    /errorPolicy "fail" \(job file\)/,
  );
  const flagged = resolveJobSettings({ errorPolicy: "fail" }, {
    flags: { errorPolicy: "dead-letter" },
  });
  assert.equal(flagged.errorPolicy, "dead-letter");
  assert.equal(flagged.origins.errorPolicy, "command line");
  assert.throws(() => resolveJobSettings({ errorPolicy: "skip" }), {
    name: "RangeError",
    message:
      /'settings.errorPolicy' must be "fail" or "dead-letter": current value is "skip"/,
  });
  assert.throws(() => resolveJobSettings({ errorPolicy: 1 }), {
    name: "TypeError",
    message: /'settings.errorPolicy'/,
  });
});
