// applyEntries(): log entries applied channel by channel, barriers aligned
// within one step.

import assert from "node:assert/strict";
import { applyEntries } from "../../../src/actors/kv/_barrier_alignment.ts";
import type { StreamElement } from "../../../src/runtime/stream_element.ts";
import type { Subtask } from "../../../src/runtime/subtask.ts";

function recorder() {
  const received: [number, StreamElement][] = [];
  const subtask = {
    receive: (c: number, e: StreamElement) => void received.push([c, e]),
  } as unknown as Subtask;
  return { received, subtask };
}

const w = (watermark: number): StreamElement => ({
  kind: "watermark",
  watermark,
});
const b = (id: number): StreamElement => ({
  kind: "barrier",
  checkpointId: id,
});

Deno.test("applyEntries() stops a channel in front of its barrier until every channel is there", async () => {
  const { received, subtask } = recorder();
  const cursor = { inputs: [0, 0], ended: [false, false] };
  const first = await applyEntries(
    subtask,
    cursor,
    [[[w(1)], [b(1)], [w(9)]], [[w(2)]]],
    () => Promise.resolve(),
  );
  assert.deepEqual(first, { applied: true, aligned: false });
  assert.deepEqual(received, [[0, w(1)], [1, w(2)]]);
  assert.deepEqual(cursor.inputs, [1, 1]);
  // The next step: channel 1 reaches the barrier too; both apply at once.
  const second = await applyEntries(
    subtask,
    cursor,
    [[[b(1)], [w(9)]], [[b(1)]]],
    () => Promise.resolve(),
  );
  assert.deepEqual(second, { applied: true, aligned: true });
  assert.deepEqual(received.slice(2), [[0, b(1)], [1, b(1)]]);
  assert.deepEqual(cursor.inputs, [2, 2]);
});

Deno.test("applyEntries() aligns without channels that ended, and marks an end", async () => {
  const { received, subtask } = recorder();
  const cursor = { inputs: [0, 0], ended: [false, false] };
  await applyEntries(
    subtask,
    cursor,
    [[], [[{ kind: "end" }]]],
    () => Promise.resolve(),
  );
  assert.deepEqual(cursor.ended, [false, true]);
  const { aligned } = await applyEntries(
    subtask,
    cursor,
    [[[b(4)]], []],
    () => Promise.resolve(),
  );
  assert.equal(aligned, true);
  assert.deepEqual(received.at(-1), [0, b(4)]);
});

Deno.test("applyEntries() waits after every entry (back-pressure) and applies nothing when nothing was read", async () => {
  const { subtask } = recorder();
  const cursor = { inputs: [0], ended: [false] };
  let waits = 0;
  await applyEntries(subtask, cursor, [[[w(1)], [w(2)]]], () => {
    waits++;
    return Promise.resolve();
  });
  assert.equal(waits, 2);
  assert.deepEqual(
    await applyEntries(subtask, cursor, [[]], () => Promise.resolve()),
    { applied: false, aligned: false },
  );
});
