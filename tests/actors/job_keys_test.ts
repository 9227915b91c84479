import assert from "node:assert/strict";
import { jobKeyPrefix } from "../../src/actors/job_keys.ts";
import { KvRuntime } from "../../src/actors/kv/kv_runtime.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";

Deno.test("jobKeyPrefix() refuses the names the store's logs and tables use, so starting a job over never deletes one", () => {
  for (const name of ["log", "table", "append"]) {
    assert.throws(() => jobKeyPrefix(name), {
      name: "RangeError",
      message: new RegExp(
        `its name must not be one of log, table, append: current value is "${name}"`,
      ),
    });
  }
  assert.deepEqual(jobKeyPrefix("logs"), ["weir", "logs"]);
});

Deno.test("KvRuntime refuses a job named like the store's logs, and so does KvRuntime.reset()", async () => {
  using kv = await Deno.openKv(":memory:");
  const env = new StreamEnvironment({
    jobName: "log",
    clock: new ManualClock(0),
  });
  env.fromCollection([1]).sinkTo(new CollectSink<number>());
  assert.throws(() => env.createKvRuntime({ kv }), { name: "RangeError" });
  await assert.rejects(() => KvRuntime.reset(kv, "log"), {
    name: "RangeError",
  });
});
