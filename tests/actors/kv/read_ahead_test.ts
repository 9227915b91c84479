// The read-ahead of an actor's next input (`_read_ahead.ts`): used only
// when it starts where the step starts and holds entries, taken (so never
// used twice), started only by a worker that overlaps its steps, and one
// attempt (the step reads again, with retries, if it failed).

import assert from "node:assert/strict";
import type { StreamElement } from "../../../src/runtime/stream_element.ts";
import {
  startReadAhead,
  takeInput,
} from "../../../src/actors/kv/_read_ahead.ts";
import {
  ENTRIES_PER_CHANNEL,
  type KvWorker,
} from "../../../src/actors/kv/_worker.ts";
import { readEntries } from "../../../src/actors/kv/channel_log.ts";
import { retryTransient } from "../../../src/kv/retry.ts";
import type { StorageKey } from "../../../src/actors/storage.ts";
import type { LiveActor } from "../../../src/actors/kv/_live_actor.ts";
import type { Meta } from "../../../src/actors/kv/_step_commit.ts";

const W = (watermark: number): StreamElement[] => [
  { kind: "watermark", watermark },
];

/**
 * A worker whose channel reads answer `entries`, counting each attempt
 * (the position it read from); the first `failures` attempts time out.
 * Its `readEntries` retries as KvWorker's does.
 */
function fakeWorker(
  overlapSteps: boolean,
  entries: StreamElement[][],
  failures = 0,
) {
  const reads: number[] = [];
  const reader = {
    getMany<V>(keys: readonly StorageKey[]): Promise<Array<V | undefined>> {
      reads.push((keys[0][2] as number) - 1);
      if (failures-- > 0) return Promise.reject(new Error("request timed out"));
      return Promise.resolve(keys.map((_, i) => entries[i] as V | undefined));
    },
  };
  const worker = {
    overlapSteps,
    readerOf: () => reader,
    readEntries(_producer: string, out: number, applied: number) {
      return retryTransient(
        () => readEntries(reader, out, { applied, max: ENTRIES_PER_CHANNEL }),
        { attempts: 12, sleep: () => Promise.resolve() },
      );
    },
  } as unknown as KvWorker;
  return { worker, reads };
}

function fakeLive(inputs: number[], finished = false): LiveActor {
  return {
    wiring: {
      inputs: inputs.map((_, c) => ({ producer: `p${c}`, out: 0 })),
    },
    subtask: {},
    meta: {
      inputs,
      ended: inputs.map(() => false),
      finished,
    } as unknown as Meta,
    readAhead: null,
  } as unknown as LiveActor;
}

Deno.test("a read-ahead from the step's positions with entries is used, once", async () => {
  const { worker, reads } = fakeWorker(true, [W(1), W(2)]);
  const live = fakeLive([4]);
  startReadAhead(worker, live);
  assert.deepEqual(reads, [4], "read from the committed position");
  const taken = await takeInput(worker, live, live.meta);
  assert.equal(taken.ahead, true);
  assert.deepEqual(taken.batches, [[W(1), W(2)]]);
  assert.deepEqual(reads, [4], "nothing read again");
  assert.equal(live.readAhead, null, "taken: never used twice");
  const again = await takeInput(worker, live, live.meta);
  assert.equal(again.ahead, false);
  assert.deepEqual(reads, [4, 4]);
});

Deno.test("a read-ahead from other positions (a step whose commit failed, a replay) is not used", async () => {
  const { worker, reads } = fakeWorker(true, [W(9)]);
  const live = fakeLive([4]);
  live.readAhead = {
    from: [3],
    entries: Promise.resolve([[W(1)]]),
  };
  const taken = await takeInput(worker, live, live.meta);
  assert.equal(taken.ahead, false);
  assert.deepEqual(taken.batches, [[W(9)]]);
  assert.deepEqual(reads, [4]);
  assert.equal(live.readAhead, null);
});

Deno.test("a read-ahead that found nothing or failed is read again", async () => {
  for (const entries of [Promise.resolve([[]]), Promise.resolve(null)]) {
    const { worker, reads } = fakeWorker(true, [W(7)]);
    const live = fakeLive([2]);
    live.readAhead = { from: [2], entries };
    const taken = await takeInput(worker, live, live.meta);
    assert.equal(taken.ahead, false);
    assert.deepEqual(taken.batches, [[W(7)]]);
    assert.deepEqual(reads, [2]);
  }
});

Deno.test("no read-ahead without overlapped steps, for a finished actor, or for a source", () => {
  const sequential = fakeWorker(false, []);
  const live = fakeLive([1]);
  startReadAhead(sequential.worker, live);
  assert.equal(live.readAhead, null);
  const overlapped = fakeWorker(true, []);
  const finished = fakeLive([1], true);
  startReadAhead(overlapped.worker, finished);
  assert.equal(finished.readAhead, null);
  const source = fakeLive([]);
  (source as { subtask: unknown }).subtask = null;
  startReadAhead(overlapped.worker, source);
  assert.equal(source.readAhead, null);
  assert.deepEqual(overlapped.reads, []);
});

Deno.test("a read-ahead is one attempt: one that failed is not retried, the step reads again with retries", async () => {
  const { worker, reads } = fakeWorker(true, [W(3)], 2);
  const live = fakeLive([5]);
  startReadAhead(worker, live);
  assert.equal(await live.readAhead!.entries, null, "it failed");
  assert.deepEqual(reads, [5], "one attempt, not retried in the background");
  const taken = await takeInput(worker, live, live.meta);
  assert.equal(taken.ahead, false);
  assert.deepEqual(taken.batches, [[W(3)]]);
  assert.deepEqual(reads, [5, 5, 5], "the step's own read retried once");
});
