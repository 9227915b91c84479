import assert from "node:assert/strict";
import fc from "fast-check";
import { pollAll, rec, wm } from "./_queue_support.ts";
import { OrderedQueue } from "../../src/async/ordered_queue.ts";
import type {
  EmittedElement,
  QueueEntry,
  QueueSnapshot,
} from "../../src/async/stream_element_queue.ts";

Deno.test("OrderedQueue emits R1, R2, W(2), R3 in arrival order once R1 completes last (OrderedStreamElementQueueTest)", () => {
  const queue = new OrderedQueue<string, number>(4);
  assert.equal(queue.put({ id: 1, timestamp: 0, value: "R1" }), true);
  assert.equal(queue.put({ id: 2, timestamp: 1, value: "R2" }), true);
  assert.equal(queue.put({ watermark: 2 }), true);
  assert.equal(queue.put({ id: 3, timestamp: 3, value: "R3" }), true);
  assert.equal(queue.size, 4);
  assert.equal(queue.pollEmittable(), null);
  queue.complete(2, [11]);
  queue.complete(3, [13]);
  assert.deepEqual(pollAll(queue), []);
  assert.equal(queue.size, 4);
  queue.complete(1, [10]);
  assert.deepEqual(pollAll(queue), [
    rec(1, [10], 0),
    rec(2, [11], 1),
    wm(2),
    rec(3, [13], 3),
  ]);
  assert.equal(queue.isEmpty, true);
  assert.equal(queue.size, 0);
});

Deno.test("OrderedQueue passes a watermark straight through an empty queue", () => {
  const queue = new OrderedQueue<string, number>(1);
  queue.put({ watermark: 5 });
  assert.deepEqual(queue.pollEmittable(), wm(5));
  assert.equal(queue.isEmpty, true);
});

Deno.test("OrderedQueue.pollEmittable() returns one element per call", () => {
  const queue = new OrderedQueue<string, number>(4);
  queue.put({ watermark: 1 });
  queue.put({ watermark: 2 });
  assert.deepEqual(queue.pollEmittable(), wm(1));
  assert.equal(queue.size, 1);
  assert.deepEqual(queue.pollEmittable(), wm(2));
  assert.equal(queue.pollEmittable(), null);
});

Deno.test("OrderedQueue stamps the outputs with the input record's timestamp, for zero or many outputs", () => {
  const queue = new OrderedQueue<string, number>(4);
  queue.put({ id: 7, timestamp: 1_000, value: "x" });
  queue.put({ id: 8, timestamp: 2_000, value: "y" });
  queue.complete(7, []);
  queue.complete(8, [1, 2, 3]);
  assert.deepEqual(pollAll(queue), [
    rec(7, [], 1_000),
    rec(8, [1, 2, 3], 2_000),
  ]);
});

Deno.test("OrderedQueue.put() returns false when full, counting watermarks, and accepts again after a poll", () => {
  const queue = new OrderedQueue<string, number>(2);
  assert.equal(queue.put({ id: 1, timestamp: 0, value: "a" }), true);
  assert.equal(queue.isFull, false);
  assert.equal(queue.put({ watermark: 0 }), true);
  assert.equal(queue.isFull, true);
  assert.equal(queue.put({ id: 2, timestamp: 1, value: "b" }), false);
  assert.equal(queue.put({ watermark: 1 }), false);
  assert.equal(queue.size, 2);
  queue.complete(1, [1]);
  assert.deepEqual(queue.pollEmittable(), rec(1, [1], 0));
  assert.equal(queue.isFull, false);
  assert.equal(queue.put({ id: 2, timestamp: 1, value: "b" }), true);
  assert.equal(queue.isFull, true);
  assert.equal(queue.capacity, 2);
});

Deno.test("OrderedQueue.complete() ignores a second completion of the same record", () => {
  const queue = new OrderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  queue.put({ id: 2, timestamp: 1, value: "b" });
  assert.equal(queue.complete(2, [20]), true);
  assert.equal(queue.complete(2, [99]), false); // a result after a timeout
  assert.equal(queue.complete(1, [10]), true);
  assert.equal(queue.complete(1, [98]), false);
  assert.deepEqual(pollAll(queue), [rec(1, [10], 0), rec(2, [20], 1)]);
  assert.equal(queue.complete(1, [97]), false); // already emitted
  assert.equal(queue.complete(42, [1]), false); // never queued
  assert.equal(queue.isEmpty, true);
});

Deno.test("OrderedQueue.put() rejects a record id that is already queued", () => {
  const queue = new OrderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  assert.throws(() => queue.put({ id: 1, timestamp: 5, value: "b" }), {
    name: "RangeError",
    message:
      /^Cannot put a record into OrderedQueue as 'entry\.id' must be unique among queued records: current value is 1$/,
  });
  assert.equal(queue.size, 1);
  queue.complete(1, []);
  queue.pollEmittable();
  assert.equal(queue.put({ id: 1, timestamp: 5, value: "b" }), true);
});

Deno.test("OrderedQueue rejects a capacity that is not a positive safe integer", () => {
  for (const capacity of [0, -1, 1.5, NaN, Infinity]) {
    assert.throws(() => new OrderedQueue(capacity), {
      name: "RangeError",
      message:
        /^Cannot create OrderedQueue as 'capacity' must be a positive safe integer: current value is /,
    });
  }
  assert.throws(() => new OrderedQueue("4" as unknown as number), {
    name: "TypeError",
    message: /'capacity' must be a number: current value is "4"/,
  });
});

Deno.test("OrderedQueue.snapshot() lists pending and completed entries in queue order with their input values", () => {
  const queue = new OrderedQueue<{ user: string }, number>(4);
  queue.put({ id: 1, timestamp: 0, value: { user: "a" } });
  queue.put({ watermark: 0 });
  queue.put({ id: 2, timestamp: 1, value: { user: "b" } });
  queue.complete(2, [2]);
  const snapshot = queue.snapshot();
  assert.deepEqual(snapshot, {
    entries: [
      { id: 1, timestamp: 0, value: { user: "a" } },
      { watermark: 0 },
      { id: 2, timestamp: 1, value: { user: "b" } },
    ],
  });
  snapshot.entries.pop();
  assert.equal(queue.snapshot().entries.length, 3);
});

Deno.test("OrderedQueue.restore() round-trips a snapshot with every record pending again", () => {
  const queue = new OrderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  queue.put({ watermark: 0 });
  queue.put({ id: 2, timestamp: 1, value: "b" });
  queue.complete(2, [2]);
  const snapshot = structuredClone(queue.snapshot());
  const restored = new OrderedQueue<string, number>(4);
  restored.put({ watermark: -5 }); // replaced by the restore
  restored.restore(snapshot);
  assert.deepEqual(restored.snapshot(), snapshot);
  assert.equal(restored.size, 3);
  assert.equal(restored.pollEmittable(), null);
  assert.equal(restored.complete(2, [20]), true); // pending again: re-run
  restored.complete(1, [10]);
  assert.deepEqual(pollAll(restored), [
    rec(1, [10], 0),
    wm(0),
    rec(2, [20], 1),
  ]);
});

Deno.test("OrderedQueue.restore() takes a snapshot larger than the capacity whole and refuses puts until it drains", () => {
  const big = new OrderedQueue<string, number>(3);
  big.put({ id: 1, timestamp: 0, value: "a" });
  big.put({ id: 2, timestamp: 1, value: "b" });
  big.put({ watermark: 1 });
  const small = new OrderedQueue<string, number>(2);
  small.restore(big.snapshot());
  assert.equal(small.size, 3);
  assert.equal(small.isFull, true);
  assert.equal(small.put({ watermark: 2 }), false);
  small.complete(1, []);
  small.pollEmittable();
  assert.equal(small.put({ watermark: 2 }), false);
  small.complete(2, []);
  small.pollEmittable();
  assert.equal(small.put({ watermark: 2 }), true);
});

Deno.test("OrderedQueue.restore() rejects bad snapshots naming the field and leaves the queue unchanged", () => {
  const queue = new OrderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  const before = queue.snapshot();
  const bad: Array<[unknown, string, RegExp]> = [
    [undefined, "TypeError", /'snapshot' must be an object/],
    [{ entries: 3 }, "TypeError", /'snapshot\.entries' must be an array/],
    [
      { entries: [null] },
      "TypeError",
      /'snapshot\.entries\[0\]' must be an object/,
    ],
    [
      { entries: [{ watermark: "1" }] },
      "TypeError",
      /'snapshot\.entries\[0\]\.watermark' must be a number/,
    ],
    [
      { entries: [{ watermark: 0.5 }] },
      "RangeError",
      /'snapshot\.entries\[0\]\.watermark'.*0\.5/,
    ],
    [
      { entries: [{ id: "1", timestamp: 0 }] },
      "TypeError",
      /'snapshot\.entries\[0\]\.id' must be a number/,
    ],
    [
      { entries: [{ id: 1.5, timestamp: 0 }] },
      "RangeError",
      /'snapshot\.entries\[0\]\.id' must be a safe integer/,
    ],
    [
      { entries: [{ id: 1, timestamp: NaN }] },
      "RangeError",
      /'snapshot\.entries\[0\]\.timestamp'.*NaN/,
    ],
    [
      { entries: [{ id: 1, timestamp: 0 }, { id: 1, timestamp: 1 }] },
      "RangeError",
      /^Cannot restore OrderedQueue as 'snapshot\.entries\[1\]\.id' must be unique: current value is 1$/,
    ],
  ];
  for (const [snapshot, name, message] of bad) {
    assert.throws(
      () => queue.restore(snapshot as QueueSnapshot<string>),
      { name, message },
    );
  }
  assert.deepEqual(queue.snapshot(), before);
});

Deno.test("OrderedQueue emits records and watermarks in arrival order for any completion order (property)", () => {
  const entryKinds = fc.array(fc.boolean(), { minLength: 1, maxLength: 30 });
  fc.assert(
    fc.property(entryKinds, fc.infiniteStream(fc.nat()), (isRecord, picks) => {
      const queue = new OrderedQueue<number, number>(isRecord.length);
      const entries: QueueEntry<number>[] = isRecord.map((r, i) =>
        r ? { id: i, timestamp: i, value: i } : { watermark: i }
      );
      for (const entry of entries) assert.equal(queue.put(entry), true);
      const pending = entries.flatMap((e) => ("id" in e ? [e.id] : []));
      const out: EmittedElement<number>[] = pollAll(queue);
      const it = picks[Symbol.iterator]();
      while (pending.length > 0) {
        const [id] = pending.splice(it.next().value % pending.length, 1);
        queue.complete(id, [id * 10]);
        out.push(...pollAll(queue));
      }
      assert.deepEqual(
        out.map((e) => e.kind === "watermark" ? e.watermark : e.id),
        entries.map((_, i) => i),
      );
      assert.equal(queue.isEmpty, true);
    }),
  );
});

Deno.test("OrderedQueue reports the queued watermarks and the oldest one for metrics", () => {
  const queue = new OrderedQueue<string, number>(4);
  assert.equal(queue.heldWatermarks, 0);
  assert.equal(queue.oldestHeldWatermark(), null);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  queue.put({ watermark: 10 });
  queue.put({ watermark: 20 });
  assert.equal(queue.heldWatermarks, 2);
  assert.equal(queue.oldestHeldWatermark(), 10);
  queue.complete(1, []);
  queue.pollEmittable();
  queue.pollEmittable();
  assert.equal(queue.heldWatermarks, 1);
  assert.equal(queue.oldestHeldWatermark(), 20);
  queue.restore({ entries: [{ watermark: 5 }] });
  assert.equal(queue.oldestHeldWatermark(), 5);
  queue.pollEmittable();
  assert.equal(queue.heldWatermarks, 0);
});
