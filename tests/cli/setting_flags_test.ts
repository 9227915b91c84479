import assert from "node:assert/strict";
import {
  parseSettingFlags,
  refuseSettingFlags,
  settingFlags,
} from "../../src/cli/setting_flags.ts";

Deno.test("settingFlags() gives back the flags parseSettingFlags() read, for a supervisor's workers", () => {
  const read = parseSettingFlags({
    parallelism: "3",
    "watermark-recovery": "persist",
  });
  assert.deepEqual(read, {
    parallelism: 3,
    checkpointIntervalMs: undefined,
    watermarkRecovery: "persist",
    errorPolicy: undefined,
  });
  assert.deepEqual(settingFlags(read), [
    "--parallelism",
    "3",
    "--watermark-recovery",
    "persist",
  ]);
  assert.deepEqual(settingFlags(parseSettingFlags({})), []);
});

Deno.test("parseSettingFlags() refuses a bad value, naming the flag", () => {
  assert.throws(() => parseSettingFlags({ "checkpoint-interval-ms": "1s" }), {
    name: "RangeError",
    message:
      /'--checkpoint-interval-ms' must be a non-negative integer: current value is 1s/,
  });
  assert.throws(() => parseSettingFlags({ parallelism: "" }), {
    name: "RangeError",
    message: /'--parallelism'/,
  });
});

Deno.test("parseSettingFlags() refuses a parallelism the job cannot run at, naming '--parallelism' rather than the setting", () => {
  assert.equal(parseSettingFlags({ parallelism: "128" }).parallelism, 128);
  for (const value of ["0", "-1", "129", "1.5"]) {
    assert.throws(() => parseSettingFlags({ parallelism: value }), {
      name: "RangeError",
      message:
        `Cannot start as '--parallelism' must be an integer from 1 to 128: current value is ${value}`,
    });
  }
  assert.equal(
    parseSettingFlags({ "checkpoint-interval-ms": "0" }).checkpointIntervalMs,
    0,
  );
  assert.throws(() => parseSettingFlags({ "checkpoint-interval-ms": "-5" }), {
    name: "RangeError",
    message:
      "Cannot start as '--checkpoint-interval-ms' must be a non-negative integer: current value is -5",
  });
});

Deno.test("--error-policy is read, given back to workers, and refused when it is not a policy", () => {
  const read = parseSettingFlags({ "error-policy": "fail" });
  assert.equal(read.errorPolicy, "fail");
  assert.deepEqual(settingFlags(read), ["--error-policy", "fail"]);
  assert.throws(() => parseSettingFlags({ "error-policy": "ignore" }), {
    name: "RangeError",
    message:
      /'--error-policy' must be fail or dead-letter: current value is ignore/,
  });
});

Deno.test("refuseSettingFlags() refuses a settings flag in a mode whose job has settings of its own, naming the flag and the mode", () => {
  refuseSettingFlags({}, "demo");
  assert.throws(() => refuseSettingFlags({ "error-policy": "fail" }, "demo"), {
    name: "RangeError",
    message:
      "Cannot start as '--error-policy' does not apply to the demo mode: current value is fail (its job has settings of its own; give a job file to choose them)",
  });
  for (
    const flag of [
      "parallelism",
      "checkpoint-interval-ms",
      "watermark-recovery",
    ] as const
  ) {
    assert.throws(() => refuseSettingFlags({ [flag]: "2" }, "durable"), {
      name: "RangeError",
      message: new RegExp(`'--${flag}' does not apply to the durable mode`),
    });
  }
});
