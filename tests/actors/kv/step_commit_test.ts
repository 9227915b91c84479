// stepCommit(): the operations of one KV-runtime step and the bookkeeping
// it leaves.

import assert from "node:assert/strict";
import { decodeStored } from "../../../src/actors/_codec.ts";
import { encodeStructured } from "../../../src/actors/_codec.ts";
import { freshMeta, stepCommit } from "../../../src/actors/kv/_step_commit.ts";
import type { ActorWiring } from "../../../src/actors/kv/_wiring.ts";
import type { StorageOp } from "../../../src/actors/storage.ts";
import type { Encoded } from "../../../src/actors/_codec.ts";

const WIRING: ActorWiring = {
  id: "j/map/0",
  vertex: "map",
  index: 0,
  edgeBase: [0],
  outputs: [{ consumer: "j/sink/0", channel: 0 }, {
    consumer: "j/sink/1",
    channel: 0,
  }],
  inputs: [{ producer: "j/src/0", out: 0 }],
};

const STATUS = {
  inputWatermark: 5,
  outputWatermark: 4,
  idle: false,
  recordsIn: 3,
  recordsOut: 2,
  channels: [],
};

function keysOf(ops: StorageOp[]): string[] {
  return ops.map((op) => `${op.type} ${JSON.stringify(op.key)}`);
}

function valueOf(ops: StorageOp[], key: unknown[]): unknown {
  const op = ops.find((o) => JSON.stringify(o.key) === JSON.stringify(key));
  return op?.type === "put"
    ? decodeStored((op.value as Encoded).bytes)
    : undefined;
}

Deno.test("stepCommit() writes the state, numbered log entries (a barrier alone), and the meta last", () => {
  const meta = freshMeta(WIRING);
  const watermark = { kind: "watermark", watermark: 7 } as const;
  const barrier = { kind: "barrier", checkpointId: 3 } as const;
  const { next, ops } = stepCommit(meta, {
    subtask: { state: { sum: 42 }, status: STATUS, finished: false },
    out: [[watermark, barrier, watermark], []],
    acks: [],
    released: [0, 0],
  });
  assert.deepEqual(keysOf(ops), [
    'put ["state"]',
    'put ["out",0,1]',
    'put ["out",0,2]',
    'put ["out",0,3]',
    'put ["meta"]',
  ]);
  assert.deepEqual(valueOf(ops, ["state"]), { sum: 42 });
  assert.deepEqual(valueOf(ops, ["out", 0, 2]), [barrier]);
  assert.equal(next.step, 1);
  assert.deepEqual(next.outputs, [3, 0]);
  assert.deepEqual(next.status, STATUS);
  assert.deepEqual(ops.at(-1), { type: "put", key: ["meta"], value: next });
  // The committed meta is not changed: a refused commit leaves it as it was.
  assert.equal(meta.step, 0);
  assert.deepEqual(meta.outputs, [0, 0]);
});

Deno.test("stepCommit() replaces the previous checkpoint snapshot and deletes applied entries, at most 64 per step", () => {
  const meta = { ...freshMeta(WIRING), acked: 2, outputs: [100, 5] };
  const ack = encodeStructured({ snapshot: 3 });
  const { next, ops } = stepCommit(meta, {
    subtask: null,
    out: [[], []],
    acks: [[3, ack]],
    released: [90, 5],
  });
  const keys = keysOf(ops);
  assert.ok(keys.includes('put ["ack",3]'));
  assert.ok(keys.includes('delete ["ack",2]'));
  assert.ok(!keys.includes('put ["state"]'), "trimming only: no state");
  const deletes = keys.filter((k) => k.startsWith('delete ["out"'));
  assert.equal(deletes.length, 64);
  assert.equal(deletes[0], 'delete ["out",0,1]');
  // The budget went to channel 0; channel 1 waits for the next step.
  assert.deepEqual(next.trimmed, [64, 0]);
  assert.equal(next.acked, 3);
  // The next step goes on from there.
  const again = stepCommit(next, {
    subtask: null,
    out: [[], []],
    acks: [],
    released: [90, 5],
  });
  assert.deepEqual(again.next.trimmed, [90, 5]);
});

Deno.test("stepCommit() records that the subtask finished", () => {
  const { next, ops } = stepCommit(freshMeta(WIRING), {
    subtask: { state: {}, status: STATUS, finished: true },
    out: [[{ kind: "end" }], [{ kind: "end" }]],
    acks: [],
    released: [0, 0],
  });
  assert.equal(next.finished, true);
  // Its state stays: the sinks finish after the commit, and again after a
  // take-over.
  assert.ok(keysOf(ops).includes('put ["state"]'));
  assert.deepEqual(next.outputs, [1, 1]);
});
