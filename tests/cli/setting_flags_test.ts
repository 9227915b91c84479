import assert from "node:assert/strict";
import {
  parseSettingFlags,
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
