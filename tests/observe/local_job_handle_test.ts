// LocalJobHandle over a running LocalRuntime: its bounded history, the
// dates of its channels' watermark moves, sampling, and the checkpoints it
// lists.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import type { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { checkpointBytes } from "../../src/actors/checkpoint_bytes.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";
import { clicksHandle, T0 } from "../_support/clicks_handle.ts";

Deno.test("LocalJobHandle.history() keeps only the last historySize samples", () => {
  const { handle, clock } = clicksHandle({ historySize: 2 });
  for (let i = 0; i < 3; i++) {
    clock.advance(500);
    handle.sample();
  }
  assert.deepEqual(handle.history().map((s) => s.at), [1_000, 1_500]);
});

Deno.test("new LocalJobHandle() throws a RangeError naming 'historySize' when it is not a positive integer", () => {
  const { handle } = clicksHandle();
  assert.throws(
    () =>
      new LocalJobHandle({
        runtime: {} as LocalRuntime,
        graph: handle.graph,
        clock: new ManualClock(0),
        historySize: 0,
      }),
    { name: "RangeError", message: /'historySize'/ },
  );
});

Deno.test("LocalJobHandle.inputChannels() dates each channel's last watermark move", () => {
  const { handle, advance } = clicksHandle();
  assert.deepEqual(handle.inputChannels("clicks/window-1/0"), [
    { channel: 0, watermark: -Infinity, idle: false, lastMovedAt: null },
    { channel: 1, watermark: -Infinity, idle: false, lastMovedAt: null },
  ]);
  assert.deepEqual(handle.inputChannels("clicks/source-0/0"), []);
  advance(1_000);
  const channels = handle.inputChannels("clicks/window-1/0");
  assert.deepEqual(channels.map((c) => c.lastMovedAt), [1_000, 1_000]);
  // The periodic emit at 1 s runs before that second's records are read.
  assert.equal(channels[0].watermark, T0 - 2_001);
  assert.throws(() => handle.inputChannels("clicks/nope/0"), RangeError);
});

Deno.test("LocalJobHandle.startSampling() samples until stop()", async () => {
  const { runtime, clock, handle: built } = clicksHandle();
  // Counts the samples the interval takes and wakes the test at the second,
  // whenever the timers get to run.
  let samples = 0;
  let wake = () => {};
  const secondSample = new Promise<void>((resolve) => wake = resolve);
  class CountingHandle extends LocalJobHandle {
    override sample() {
      const sample = super.sample();
      if (++samples === 2) wake();
      return sample;
    }
  }
  const handle = new CountingHandle({ runtime, graph: built.graph, clock });
  handle.startSampling(5);
  await secondSample;
  handle.stop();
  assert.equal(handle.history().length, 2);
  // Timers run in the order they are due: an interval still scheduled
  // (due within 5 ms) would fire before this 15 ms timer, however slow
  // the machine.
  await new Promise((resolve) => setTimeout(resolve, 15));
  assert.equal(samples, 2, "no sample after stop()");
  assert.throws(() => handle.startSampling(0), {
    name: "RangeError",
    message: /'intervalMs'/,
  });
});

Deno.test("LocalJobHandle.checkpoints() without a store lists the checkpoints it saw complete, with their encoded size", async () => {
  const { runtime, clock, handle: stored } = clicksHandle();
  const handle = new LocalJobHandle({ runtime, graph: stored.graph, clock });
  assert.deepEqual(await handle.checkpoints(), []);
  runtime.triggerCheckpoint();
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  handle.sample();
  const listed = await handle.checkpoints();
  assert.equal(listed.length, 1);
  const { sizeBytes, ...rest } = listed[0];
  assert.deepEqual(rest, { id: 1, createdAt: 0, durationMs: 0 });
  assert.ok(sizeBytes !== undefined && sizeBytes > 0);
  assert.equal(sizeBytes, checkpointBytes(runtime.latestCheckpoint!));
});
