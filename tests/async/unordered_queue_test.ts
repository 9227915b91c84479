import assert from "node:assert/strict";
import fc from "fast-check";
import { pollAll, rec, wm } from "./_queue_support.ts";
import { OrderedQueue } from "../../src/async/ordered_queue.ts";
import type {
  EmittedElement,
  QueueSnapshot,
} from "../../src/async/stream_element_queue.ts";
import { UnorderedQueue } from "../../src/async/unordered_queue.ts";

/** Puts R1(ts0), R2(ts1), W(2), R3(ts3), R4(ts4), W(5), R5(ts6), R6(ts7). */
function tableQueue(): UnorderedQueue<string, number> {
  const queue = new UnorderedQueue<string, number>(8);
  let id = 1;
  for (const ts of [0, 1, "W2", 3, 4, "W5", 6, 7]) {
    const entry = typeof ts === "string"
      ? { watermark: Number(ts.slice(1)) }
      : { id: id, timestamp: ts, value: `R${id++}` };
    assert.equal(queue.put(entry), true);
  }
  return queue;
}

Deno.test("UnorderedQueue follows the capacity-8 table: records leave as completed, never across a watermark (UnorderedStreamElementQueueTest)", () => {
  const queue = tableQueue();
  assert.equal(queue.size, 8);
  assert.equal(queue.isFull, true);
  assert.deepEqual(pollAll(queue), []);

  queue.complete(3, [13]);
  assert.deepEqual(pollAll(queue), []); // behind W2
  assert.equal(queue.size, 8);

  queue.complete(2, [12]);
  assert.deepEqual(pollAll(queue), [rec(2, [12], 1)]);
  assert.equal(queue.size, 7);

  queue.complete(6, [16]);
  queue.complete(4, [14]);
  assert.deepEqual(pollAll(queue), []); // R1 pending
  assert.equal(queue.size, 7);

  queue.complete(1, [11]);
  assert.deepEqual(pollAll(queue), [
    rec(1, [11], 0),
    wm(2),
    rec(3, [13], 3),
    rec(4, [14], 4),
    wm(5),
    rec(6, [16], 7),
  ]);
  assert.equal(queue.size, 1);

  queue.complete(5, [15]);
  assert.deepEqual(pollAll(queue), [rec(5, [15], 6)]);
  assert.equal(queue.size, 0);
  assert.equal(queue.isEmpty, true);
});

Deno.test("UnorderedQueue passes a watermark straight through an empty queue", () => {
  const queue = new UnorderedQueue<string, number>(1);
  assert.equal(queue.put({ watermark: 5 }), true);
  assert.deepEqual(queue.pollEmittable(), wm(5));
  assert.equal(queue.isEmpty, true);
  assert.equal(queue.put({ watermark: 6 }), true);
  assert.deepEqual(queue.pollEmittable(), wm(6));
});

Deno.test("UnorderedQueue.pollEmittable() returns one element per call", () => {
  const queue = new UnorderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  queue.put({ id: 2, timestamp: 1, value: "b" });
  queue.complete(1, [1]);
  queue.complete(2, [2]);
  assert.deepEqual(queue.pollEmittable(), rec(1, [1], 0));
  assert.equal(queue.size, 1);
  assert.deepEqual(queue.pollEmittable(), rec(2, [2], 1));
  assert.equal(queue.pollEmittable(), null);
});

Deno.test("UnorderedQueue stamps the outputs with the input record's timestamp, for zero or many outputs", () => {
  const queue = new UnorderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 500, value: "a" });
  queue.put({ id: 2, timestamp: -Infinity, value: "b" });
  queue.complete(2, []);
  queue.complete(1, [7, 8]);
  assert.deepEqual(pollAll(queue), [
    rec(2, [], -Infinity),
    rec(1, [7, 8], 500),
  ]);
});

Deno.test("UnorderedQueue emits the records of one segment in completion order", () => {
  const queue = new UnorderedQueue<string, number>(8);
  for (let id = 1; id <= 4; id++) {
    queue.put({ id, timestamp: id, value: `R${id}` });
  }
  for (const id of [3, 1, 4, 2]) queue.complete(id, [id]);
  assert.deepEqual(
    pollAll(queue).map((e) => e.kind === "records" && e.id),
    [3, 1, 4, 2],
  );
});

Deno.test("UnorderedQueue keeps consecutive watermarks in order and records after them behind them", () => {
  const queue = new UnorderedQueue<string, number>(8);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  queue.put({ watermark: 1 });
  queue.put({ watermark: 2 });
  queue.put({ id: 2, timestamp: 3, value: "b" });
  queue.complete(2, [2]);
  assert.deepEqual(pollAll(queue), []);
  queue.complete(1, [1]);
  assert.deepEqual(pollAll(queue), [
    rec(1, [1], 0),
    wm(1),
    wm(2),
    rec(2, [2], 3),
  ]);
  assert.equal(queue.isEmpty, true);
});

Deno.test("UnorderedQueue drops a drained first segment so the next watermark can leave", () => {
  const queue = new UnorderedQueue<string, number>(8);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  queue.complete(1, [1]);
  assert.deepEqual(pollAll(queue), [rec(1, [1], 0)]);
  // The drained segment is the last one: the watermark reuses it.
  queue.put({ watermark: 1 });
  queue.put({ id: 2, timestamp: 2, value: "b" });
  assert.deepEqual(queue.pollEmittable(), wm(1));
  queue.complete(2, [2]);
  assert.deepEqual(pollAll(queue), [rec(2, [2], 2)]);
});

Deno.test("UnorderedQueue.put() returns false when full, counting watermarks, and accepts again after a poll", () => {
  const queue = new UnorderedQueue<string, number>(2);
  assert.equal(queue.put({ id: 1, timestamp: 0, value: "a" }), true);
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
  assert.deepEqual(queue.pollEmittable(), wm(0));
  assert.equal(queue.isFull, false);
});

Deno.test("UnorderedQueue.complete() ignores a second completion of the same record", () => {
  const queue = new UnorderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  queue.put({ watermark: 0 });
  queue.put({ id: 2, timestamp: 1, value: "b" });
  assert.equal(queue.complete(2, [20]), true);
  assert.equal(queue.complete(2, [99]), false); // a result after a timeout
  assert.equal(queue.complete(1, [10]), true);
  assert.equal(queue.complete(1, [98]), false);
  assert.deepEqual(pollAll(queue), [rec(1, [10], 0), wm(0), rec(2, [20], 1)]);
  assert.equal(queue.complete(2, [97]), false); // already emitted
  assert.equal(queue.complete(42, [1]), false); // never queued
  assert.equal(queue.isEmpty, true);
});

Deno.test("UnorderedQueue.put() rejects a record id that is already queued", () => {
  const queue = new UnorderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  assert.throws(() => queue.put({ id: 1, timestamp: 5, value: "b" }), {
    name: "RangeError",
    message:
      /^Cannot put a record into UnorderedQueue as 'entry\.id' must be unique among queued records: current value is 1$/,
  });
  assert.equal(queue.size, 1);
});

Deno.test("UnorderedQueue rejects a capacity that is not a positive safe integer", () => {
  for (const capacity of [0, -3, 2.5, NaN, Infinity]) {
    assert.throws(() => new UnorderedQueue(capacity), {
      name: "RangeError",
      message:
        /^Cannot create UnorderedQueue as 'capacity' must be a positive safe integer: current value is /,
    });
  }
  assert.throws(() => new UnorderedQueue(null as unknown as number), {
    name: "TypeError",
    message: /'capacity' must be a number: current value is null/,
  });
});

Deno.test("UnorderedQueue.snapshot() lists every entry segment by segment in arrival order", () => {
  const queue = tableQueue();
  queue.complete(4, [14]);
  queue.complete(3, [13]);
  queue.complete(2, [12]);
  assert.deepEqual(pollAll(queue), [rec(2, [12], 1)]);
  assert.deepEqual(queue.snapshot(), {
    entries: [
      { id: 1, timestamp: 0, value: "R1" },
      { watermark: 2 },
      { id: 3, timestamp: 3, value: "R3" },
      { id: 4, timestamp: 4, value: "R4" },
      { watermark: 5 },
      { id: 5, timestamp: 6, value: "R5" },
      { id: 6, timestamp: 7, value: "R6" },
    ],
  });
});

Deno.test("UnorderedQueue.restore() round-trips a snapshot, re-segmented, with every record pending again", () => {
  const queue = tableQueue();
  queue.complete(6, [16]);
  const snapshot = structuredClone(queue.snapshot());
  const restored = new UnorderedQueue<string, number>(8);
  restored.put({ watermark: -1 }); // replaced by the restore
  restored.restore(snapshot);
  assert.deepEqual(restored.snapshot(), snapshot);
  assert.equal(restored.size, 8);
  assert.equal(restored.isFull, true);
  assert.equal(restored.complete(6, [60]), true); // pending again: re-run
  restored.complete(5, [50]);
  restored.complete(3, [30]);
  assert.deepEqual(pollAll(restored), []);
  restored.complete(2, [20]);
  restored.complete(1, [10]);
  assert.deepEqual(pollAll(restored), [
    rec(2, [20], 1),
    rec(1, [10], 0),
    wm(2),
    rec(3, [30], 3),
  ]);
  restored.complete(4, [40]);
  assert.deepEqual(pollAll(restored), [
    rec(4, [40], 4),
    wm(5),
    rec(6, [60], 7),
    rec(5, [50], 6),
  ]);
});

Deno.test("UnorderedQueue.restore() accepts an ordered queue's snapshot and one larger than its capacity", () => {
  const ordered = new OrderedQueue<string, number>(3);
  ordered.put({ id: 1, timestamp: 0, value: "a" });
  ordered.put({ watermark: 0 });
  ordered.put({ id: 2, timestamp: 1, value: "b" });
  const queue = new UnorderedQueue<string, number>(2);
  queue.restore(ordered.snapshot());
  assert.equal(queue.size, 3);
  assert.equal(queue.put({ watermark: 1 }), false);
  queue.complete(2, [2]);
  assert.deepEqual(pollAll(queue), []);
  queue.complete(1, [1]);
  assert.deepEqual(pollAll(queue), [rec(1, [1], 0), wm(0), rec(2, [2], 1)]);
  assert.equal(queue.put({ watermark: 1 }), true);
});

Deno.test("UnorderedQueue.restore() rejects bad snapshots naming the field and leaves the queue unchanged", () => {
  const queue = new UnorderedQueue<string, number>(4);
  queue.put({ id: 1, timestamp: 0, value: "a" });
  const before = queue.snapshot();
  const bad: Array<[unknown, string, RegExp]> = [
    [
      42,
      "TypeError",
      /^Cannot restore UnorderedQueue as 'snapshot' must be an object: current value is 42$/,
    ],
    [{}, "TypeError", /'snapshot\.entries' must be an array/],
    [
      { entries: [7] },
      "TypeError",
      /'snapshot\.entries\[0\]' must be an object/,
    ],
    [
      { entries: [{ watermark: null }] },
      "TypeError",
      /'snapshot\.entries\[0\]\.watermark'/,
    ],
    [
      { entries: [{ watermark: NaN }] },
      "RangeError",
      /'snapshot\.entries\[0\]\.watermark'/,
    ],
    [
      { entries: [{ id: 2 ** 60, timestamp: 0 }] },
      "RangeError",
      /'snapshot\.entries\[0\]\.id'/,
    ],
    [
      { entries: [{ id: 1, timestamp: "0" }] },
      "TypeError",
      /'snapshot\.entries\[0\]\.timestamp' must be a number/,
    ],
    [
      {
        entries: [{ id: 3, timestamp: 0 }, { watermark: 1 }, {
          id: 3,
          timestamp: 2,
        }],
      },
      "RangeError",
      /'snapshot\.entries\[2\]\.id' must be unique: current value is 3/,
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

Deno.test("UnorderedQueue emits s1–s3, then w1, then s4, then w2, then s5/s6, then w3 for every completion order (property, FLINK-4391 design example)", () => {
  // Queue s1, s2, s3, w1, s4, w2, s5, s6, w3; watermarks are 101..103.
  const layout = [1, 2, 3, 101, 4, 102, 5, 6, 103];
  const expectedGroups = [[1, 2, 3], [101], [4], [102], [5, 6], [103]];
  fc.assert(
    fc.property(
      fc.shuffledSubarray([1, 2, 3, 4, 5, 6], { minLength: 6, maxLength: 6 }),
      fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      (completionOrder, pollAfter) => {
        const queue = new UnorderedQueue<number, number>(layout.length);
        for (const x of layout) {
          queue.put(
            x > 100 ? { watermark: x } : { id: x, timestamp: x, value: x },
          );
        }
        const out: number[] = [];
        const collect = () =>
          pollAll(queue).forEach((e) =>
            out.push(e.kind === "watermark" ? e.watermark : e.id)
          );
        completionOrder.forEach((id, i) => {
          queue.complete(id, [id]);
          if (pollAfter[i]) collect();
        });
        collect();
        let at = 0;
        for (const group of expectedGroups) {
          const slice = out.slice(at, at + group.length);
          assert.deepEqual([...slice].sort((a, b) => a - b), group);
          at += group.length;
        }
        assert.equal(out.length, layout.length);
        // Inside a segment, completion order is kept.
        const pos = (id: number) => completionOrder.indexOf(id);
        const s123 = out.slice(0, 3);
        assert.deepEqual(s123, [...s123].sort((a, b) => pos(a) - pos(b)));
      },
    ),
  );
});

type Op =
  | { put: "record" | "watermark" }
  | { complete: number }
  | { poll: true };

Deno.test("UnorderedQueue never moves a record across a watermark and emits every record once, for any interleaving (property)", () => {
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      arbitrary: fc.constantFrom("record" as const, "watermark" as const).map((
        put,
      ) => ({ put })),
      weight: 3,
    },
    { arbitrary: fc.nat().map((complete) => ({ complete })), weight: 3 },
    { arbitrary: fc.constant({ poll: true as const }), weight: 1 },
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.array(op, { maxLength: 80 }),
      fc.infiniteStream(fc.nat()),
      (capacity, ops, picks) => {
        const queue = new UnorderedQueue<number, number>(capacity);
        // For each accepted record: how many watermarks were put before it.
        const watermarksBefore = new Map<number, number>();
        const putWatermarks: number[] = [];
        const pending: number[] = [];
        const out: EmittedElement<number>[] = [];
        let nextId = 0;
        let inQueue = 0;
        const poll = () => {
          const polled = pollAll(queue);
          inQueue -= polled.length;
          out.push(...polled);
        };
        for (const o of ops) {
          if ("put" in o) {
            const accepted = o.put === "record"
              ? queue.put({ id: nextId, timestamp: nextId, value: nextId })
              : queue.put({ watermark: nextId });
            assert.equal(accepted, inQueue < capacity);
            if (accepted) {
              inQueue++;
              if (o.put === "record") {
                watermarksBefore.set(nextId, putWatermarks.length);
                pending.push(nextId);
              } else putWatermarks.push(nextId);
            }
            nextId++;
          } else if ("complete" in o) {
            if (pending.length === 0) continue;
            const [id] = pending.splice(o.complete % pending.length, 1);
            assert.equal(queue.complete(id, [id]), true);
            assert.equal(queue.complete(id, [-1]), false);
          } else poll();
          assert.equal(queue.size, inQueue);
          const emittedWatermarks = out.filter((e) => e.kind === "watermark");
          const held = putWatermarks.slice(emittedWatermarks.length);
          assert.equal(queue.heldWatermarks, held.length);
          assert.equal(queue.oldestHeldWatermark(), held[0] ?? null);
        }
        // Finish everything in a random order, polling as we go.
        const it = picks[Symbol.iterator]();
        while (pending.length > 0) {
          const [id] = pending.splice(it.next().value % pending.length, 1);
          queue.complete(id, [id]);
          if (it.next().value % 2 === 0) poll();
        }
        poll();
        assert.equal(queue.isEmpty, true);

        let watermarksSeen = 0;
        const seen = new Set<number>();
        for (const e of out) {
          if (e.kind === "watermark") {
            assert.equal(e.watermark, putWatermarks[watermarksSeen]);
            watermarksSeen++;
          } else {
            // Exactly the watermarks put before the record precede it.
            assert.equal(watermarksSeen, watermarksBefore.get(e.id));
            assert.deepEqual(e.values, [e.id]);
            assert.equal(e.timestamp, e.id);
            assert.equal(seen.has(e.id), false);
            seen.add(e.id);
          }
        }
        assert.equal(watermarksSeen, putWatermarks.length);
        assert.deepEqual([...seen].sort((a, b) => a - b), [
          ...watermarksBefore.keys(),
        ]);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("UnorderedQueue reports the queued watermarks and the oldest one for metrics", () => {
  const queue = tableQueue();
  assert.equal(queue.heldWatermarks, 2);
  assert.equal(queue.oldestHeldWatermark(), 2);
  queue.complete(1, []);
  queue.complete(2, []);
  pollAll(queue);
  assert.equal(queue.heldWatermarks, 1);
  assert.equal(queue.oldestHeldWatermark(), 5);
  queue.restore({ entries: [] });
  assert.equal(queue.heldWatermarks, 0);
  assert.equal(queue.oldestHeldWatermark(), null);
});
