// The channel logs of the KV runtime: entry keys, and how one step's elements
// are cut into entries with every checkpoint barrier alone.

import assert from "node:assert/strict";
import {
  barrierOf,
  logEntries,
  logKey,
  readEntries,
} from "../../../src/actors/kv/channel_log.ts";
import { KvStorage } from "../../../src/actors/kv/kv_storage.ts";
import {
  END,
  recordBatch,
  type StreamElement,
} from "../../../src/runtime/stream_element.ts";

const records = (...values: number[]): StreamElement =>
  recordBatch(values, values.map((v) => v * 10));
const watermark = (ms: number): StreamElement => ({
  kind: "watermark",
  watermark: ms,
});
const barrier = (checkpointId: number): StreamElement => ({
  kind: "barrier",
  checkpointId,
});

Deno.test("logKey() is the output channel and the sequence number under 'out'", () => {
  assert.deepEqual(logKey(0, 1), ["out", 0, 1]);
  assert.deepEqual(logKey(3, 17), ["out", 3, 17]);
  assert.notDeepEqual(logKey(1, 2), logKey(2, 1));
});

Deno.test("logEntries() gives no entries for no elements", () => {
  assert.deepEqual(logEntries([]), []);
});

Deno.test("logEntries() keeps elements without barriers in one entry, in order", () => {
  const elements = [
    records(1, 2),
    watermark(5),
    { kind: "status", status: "idle" } as StreamElement,
    records(3),
    END,
  ];
  const entries = logEntries(elements);
  assert.equal(entries.length, 1);
  assert.deepEqual(entries[0], elements);
  // The same element objects, not copies.
  entries[0].forEach((element, i) => assert.equal(element, elements[i]));
  // The input is not modified.
  assert.equal(elements.length, 5);
});

Deno.test("logEntries() makes every barrier a lone entry and keeps the order", () => {
  const a = records(1);
  const w = watermark(10);
  const b1 = barrier(1);
  const c = records(2, 3);
  const b2 = barrier(2);
  const d = records(4);
  assert.deepEqual(logEntries([a, w, b1, c, b2, d, END]), [
    [a, w],
    [b1],
    [c],
    [b2],
    [d, END],
  ]);
});

Deno.test("logEntries() gives consecutive barriers an entry each, with no empty entries", () => {
  const b1 = barrier(1);
  const b2 = barrier(2);
  const b3 = barrier(3);
  const w = watermark(7);
  assert.deepEqual(logEntries([b1, b2]), [[b1], [b2]]);
  assert.deepEqual(logEntries([b1, b2, b3, w]), [[b1], [b2], [b3], [w]]);
  assert.deepEqual(logEntries([w, b1, b2]), [[w], [b1], [b2]]);
  assert.deepEqual(logEntries([barrier(9)]), [[barrier(9)]]);
  for (const entries of [logEntries([b1, b2, b3, w]), logEntries([w, b1])]) {
    for (const entry of entries) assert.ok(entry.length > 0);
  }
});

Deno.test("logEntries() concatenated gives back the elements", () => {
  const elements = [
    barrier(4),
    records(1),
    records(2),
    barrier(5),
    watermark(3),
    barrier(6),
    barrier(7),
    records(9),
  ];
  const entries = logEntries(elements);
  assert.deepEqual(entries.flat(), elements);
  assert.deepEqual(entries.map((entry) => barrierOf(entry)), [
    4,
    null,
    5,
    null,
    6,
    7,
    null,
  ]);
});

Deno.test("barrierOf() returns the checkpoint id of a lone barrier", () => {
  assert.equal(barrierOf([barrier(1)]), 1);
  assert.equal(barrierOf([barrier(42)]), 42);
  assert.equal(barrierOf([barrier(0)]), 0);
});

Deno.test("barrierOf() returns null for a mixed entry", () => {
  assert.equal(barrierOf([barrier(1), records(1)]), null);
  assert.equal(barrierOf([records(1), barrier(1)]), null);
  assert.equal(barrierOf([barrier(1), barrier(2)]), null);
});

Deno.test("barrierOf() returns null for entries without a barrier", () => {
  assert.equal(barrierOf([]), null);
  assert.equal(barrierOf([records(1)]), null);
  assert.equal(barrierOf([watermark(100)]), null);
  assert.equal(barrierOf([END]), null);
  assert.equal(barrierOf([records(1), watermark(2)]), null);
});

Deno.test("readEntries() reads a channel's entries after the last applied, at most max, up to the first not written", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const storage = new KvStorage(kv, ["job", "producer"]);
    const entries = [[records(1, 2)], [barrier(1)], [watermark(5)]];
    await storage.atomic([
      ...entries.map((value, i) => ({
        type: "put" as const,
        key: logKey(0, i + 1),
        value,
      })),
      { type: "put", key: logKey(0, 5), value: [watermark(9)] },
      { type: "put", key: logKey(1, 1), value: [watermark(7)] },
    ]);
    assert.deepEqual(
      await readEntries(storage, 0, { applied: 0, max: 16 }),
      entries,
    );
    assert.deepEqual(
      await readEntries(storage, 0, { applied: 1, max: 1 }),
      [[barrier(1)]],
    );
    assert.deepEqual(
      await readEntries(storage, 0, { applied: 3, max: 16 }),
      [],
    );
    assert.deepEqual(
      await readEntries(storage, 1, { applied: 0, max: 16 }),
      [[watermark(7)]],
    );
  } finally {
    kv.close();
  }
});
