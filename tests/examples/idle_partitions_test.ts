import assert from "node:assert/strict";
import {
  formatTicks,
  runIdlePartitions,
} from "../../examples/idle_partitions.ts";

Deno.test("examples/idle_partitions.ts: a silent partition stalls the downstream watermark without idleness", () => {
  const ticks = runIdlePartitions({ idleTimeoutMs: null });
  const last = ticks[ticks.length - 1];
  assert.equal(last.downstream, 499);
  assert.deepEqual(last.partitions, [5_499, 5_499, 499]);
});

Deno.test("examples/idle_partitions.ts: withIdleness lets the watermark follow the live partitions", () => {
  const ticks = runIdlePartitions({ idleTimeoutMs: 2_000 });
  // Last record at 1000 ms; the first quiet probe (1200 ms) starts the
  // countdown, so the partition goes idle at the first probe after 3200 ms.
  const firstIdle = ticks.find((tick) => tick.partitions[2] === "idle");
  assert.equal(firstIdle?.atMs, 3_400);
  assert.equal(firstIdle?.downstream, 2_899);
  assert.equal(ticks[ticks.length - 1].downstream, 5_499);
});

Deno.test("examples/idle_partitions.ts: prints one line per simulated second", () => {
  const lines = formatTicks(runIdlePartitions({ durationMs: 2_000 }));
  assert.deepEqual(lines, [
    "t= 1000 ms  partitions=[  499,   499,   499]  downstream=499",
    "t= 2000 ms  partitions=[ 1499,  1499,   499]  downstream=499",
  ]);
});
