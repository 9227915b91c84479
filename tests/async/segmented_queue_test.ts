import assert from "node:assert/strict";
import fc from "fast-check";
import {
  SegmentedQueue,
  type SegmentedQueueSnapshot,
} from "../../src/async/segmented_queue.ts";

/** Pops until `null`, as the operator does after each watermark or completion. */
function drain<K>(queue: SegmentedQueue<K>): number[] {
  const popped: number[] = [];
  for (
    let w = queue.popOldestWatermark();
    w !== null;
    w = queue.popOldestWatermark()
  ) {
    popped.push(w);
  }
  return popped;
}

function lastSegment<K>(queue: SegmentedQueue<K>): [K, number][] {
  return queue.snapshot().segments.at(-1) ?? [];
}

Deno.test("SegmentedQueue.addKeyToLastSegment() puts both keys in the last segment (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("k1");
  queue.addKeyToLastSegment("k2");
  assert.equal(queue.segmentCount, 1);
  assert.deepEqual(lastSegment(queue), [["k1", 1], ["k2", 1]]);
});

Deno.test("SegmentedQueue.addKeyToLastSegment() after a watermark puts the keys in the segment after it (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addWatermark(1000);
  queue.addKeyToLastSegment("k1");
  queue.addKeyToLastSegment("k2");
  assert.deepEqual(lastSegment(queue), [["k1", 1], ["k2", 1]]);
  assert.deepEqual(queue.snapshot().segments[0], []);
});

Deno.test("SegmentedQueue.removeKey() returns true and removes only that key (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("k1");
  queue.addKeyToLastSegment("k2");
  assert.equal(queue.removeKey("k1"), true);
  assert.deepEqual(lastSegment(queue), [["k2", 1]]);
});

Deno.test("SegmentedQueue.removeKey() returns false for a key on an empty queue (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  assert.equal(queue.removeKey("nonExistentKey"), false);
  queue.addKeyToLastSegment("k1");
  assert.equal(queue.removeKey("nonExistentKey"), false);
  assert.equal(queue.inFlight, 1);
});

Deno.test("SegmentedQueue.addWatermark() after a key makes two segments and one pending watermark (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("k1");
  assert.equal(queue.segmentCount, 1);
  queue.addWatermark(1000);
  assert.equal(queue.segmentCount, 2);
  assert.equal(queue.heldWatermarks, 1);
});

Deno.test("SegmentedQueue.popOldestWatermark() returns the oldest of two watermarks and keeps the other (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addWatermark(1000);
  queue.addWatermark(2000);
  assert.equal(queue.popOldestWatermark(), 1000);
  assert.equal(queue.heldWatermarks, 1);
  assert.equal(queue.oldestHeldWatermark(), 2000);
});

Deno.test("SegmentedQueue.popOldestWatermark() returns null while a key before the watermark is in flight (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("k1");
  queue.addWatermark(1000);
  assert.equal(queue.popOldestWatermark(), null);
  assert.equal(queue.heldWatermarks, 1);
});

Deno.test("SegmentedQueue.popOldestWatermark() returns null on an empty queue (SegmentedQueueTest)", () => {
  const queue = new SegmentedQueue<string>();
  assert.equal(queue.popOldestWatermark(), null);
  assert.equal(queue.segmentCount, 0);
});

Deno.test("SegmentedQueue follows the complex sequence step by step (SegmentedQueueTest complex)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addWatermark(1000);
  queue.addWatermark(1001);
  assert.equal(queue.popOldestWatermark(), 1000);
  assert.equal(queue.popOldestWatermark(), 1001);
  queue.addKeyToLastSegment("k1");
  queue.addKeyToLastSegment("k2");
  queue.addWatermark(2000);
  queue.addKeyToLastSegment("k3");
  queue.addKeyToLastSegment("k4");
  assert.equal(queue.removeKey("k1"), true);
  assert.equal(queue.removeKey("k3"), true);
  assert.equal(queue.popOldestWatermark(), null);
  queue.addWatermark(3000);
  queue.addKeyToLastSegment("k5");
  assert.equal(queue.removeKey("k2"), true);
  assert.equal(queue.popOldestWatermark(), 2000);
  assert.equal(queue.removeKey("k4"), true);
  assert.equal(queue.popOldestWatermark(), 3000);
  assert.equal(queue.popOldestWatermark(), null);
  assert.equal(queue.inFlight, 1); // k5, after the last watermark
});

Deno.test("SegmentedQueue releases both watermarks only when the last key before the first finishes (EventRouterTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("k1");
  queue.addKeyToLastSegment("k2");
  queue.addWatermark(100);
  assert.deepEqual(drain(queue), []);
  queue.addKeyToLastSegment("k3");
  queue.addWatermark(200);
  assert.deepEqual(drain(queue), []);
  assert.equal(queue.removeKey("k2"), true);
  assert.deepEqual(drain(queue), []);
  assert.equal(queue.removeKey("k3"), true);
  assert.deepEqual(drain(queue), []);
  assert.equal(queue.removeKey("k1"), true);
  assert.deepEqual(drain(queue), [100, 200]);
});

Deno.test("SegmentedQueue holds a watermark until its one key finishes, then releases it (EventRouterTest)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("k1");
  queue.addWatermark(100);
  assert.deepEqual(drain(queue), []);
  assert.equal(queue.removeKey("k1"), true);
  assert.deepEqual(drain(queue), [100]);
});

Deno.test("SegmentedQueue.addWatermark() on an empty queue is poppable at once (fixed)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addWatermark(1000);
  assert.equal(queue.popOldestWatermark(), 1000);
  assert.equal(queue.heldWatermarks, 0);
});

Deno.test("SegmentedQueue does not let keys added after a watermark on an empty queue hold it back (fixed: Flink Agents would)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addWatermark(1000);
  queue.addKeyToLastSegment("k1");
  assert.equal(queue.popOldestWatermark(), 1000);
  assert.equal(queue.inFlight, 1);
  queue.addWatermark(2000);
  assert.equal(queue.popOldestWatermark(), null);
  queue.removeKey("k1");
  assert.equal(queue.popOldestWatermark(), 2000);
});

Deno.test("SegmentedQueue.addWatermark() after everything was popped is poppable at once (fixed)", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("k1");
  queue.addWatermark(100);
  queue.removeKey("k1");
  assert.deepEqual(drain(queue), [100]);
  queue.addWatermark(200);
  queue.addKeyToLastSegment("k2");
  assert.deepEqual(drain(queue), [200]);
});

Deno.test("SegmentedQueue.removeKey() decrements the oldest segment holding the key", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("A");
  queue.addWatermark(1);
  queue.addKeyToLastSegment("A");
  assert.equal(queue.removeKey("A"), true);
  assert.deepEqual(queue.snapshot().segments, [[], [["A", 1]]]);
  assert.equal(queue.popOldestWatermark(), 1);
});

Deno.test("SegmentedQueue lets a slow key A hold back the watermark while key B finishes, and not key A's later record", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("UserA"); // A1: slow model call
  queue.addKeyToLastSegment("UserB"); // B1: quick
  queue.addWatermark(2); // WM1
  queue.addKeyToLastSegment("UserA"); // A2 lands in the new segment
  assert.deepEqual(queue.snapshot().segments, [
    [["UserA", 1], ["UserB", 1]],
    [["UserA", 1]],
  ]);
  assert.equal(queue.removeKey("UserB"), true);
  assert.deepEqual(drain(queue), []);
  assert.equal(queue.removeKey("UserA"), true); // A1 done
  assert.deepEqual(drain(queue), [2]); // released with A2 still in flight
  assert.equal(queue.inFlight, 1);
});

Deno.test("SegmentedQueue reports held watermarks, keys in flight and the oldest held watermark for metrics", () => {
  const queue = new SegmentedQueue<string>();
  assert.equal(queue.heldWatermarks, 0);
  assert.equal(queue.inFlight, 0);
  assert.equal(queue.oldestHeldWatermark(), null);
  queue.addKeyToLastSegment("a");
  queue.addKeyToLastSegment("a");
  queue.addWatermark(10);
  queue.addKeyToLastSegment("b");
  queue.addWatermark(20);
  assert.equal(queue.heldWatermarks, 2);
  assert.equal(queue.inFlight, 3);
  assert.equal(queue.oldestHeldWatermark(), 10);
  queue.removeKey("a");
  queue.removeKey("a");
  assert.deepEqual(drain(queue), [10]);
  assert.equal(queue.oldestHeldWatermark(), 20);
  assert.equal(queue.inFlight, 1);
  queue.removeKey("missing");
  assert.equal(queue.inFlight, 1);
});

Deno.test("SegmentedQueue.snapshot() and restore() round-trip segments and held watermarks", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("a");
  queue.addKeyToLastSegment("a");
  queue.addKeyToLastSegment("b");
  queue.addWatermark(100);
  queue.addKeyToLastSegment("a");
  queue.addWatermark(200);
  const snapshot = queue.snapshot();
  assert.deepEqual(snapshot, {
    segments: [[["a", 2], ["b", 1]], [["a", 1]], []],
    watermarks: [100, 200],
  });
  const restored = new SegmentedQueue<string>();
  restored.restore(structuredClone(snapshot));
  assert.deepEqual(restored.snapshot(), snapshot);
  assert.equal(restored.inFlight, 4);
  assert.equal(restored.heldWatermarks, 2);
  restored.removeKey("a");
  restored.removeKey("b");
  restored.removeKey("a");
  assert.deepEqual(drain(restored), [100]);
  restored.removeKey("a");
  assert.deepEqual(drain(restored), [200]);
});

Deno.test("SegmentedQueue.snapshot() is detached from the queue", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("a");
  queue.addWatermark(1);
  const snapshot = queue.snapshot();
  snapshot.segments[0].push(["b", 1]);
  snapshot.watermarks.push(2);
  assert.deepEqual(queue.snapshot(), {
    segments: [[["a", 1]], []],
    watermarks: [1],
  });
});

Deno.test("SegmentedQueue.restore() round-trips an empty queue and replaces earlier state", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("a");
  queue.addWatermark(5);
  queue.restore(new SegmentedQueue<string>().snapshot());
  assert.deepEqual(queue.snapshot(), { segments: [], watermarks: [] });
  assert.equal(queue.inFlight, 0);
  queue.addWatermark(7);
  assert.equal(queue.popOldestWatermark(), 7);
});

Deno.test("SegmentedQueue.restore() adds up the counts of a key listed twice in one segment", () => {
  const queue = new SegmentedQueue<string>();
  queue.restore({ segments: [[["a", 1], ["a", 2]]], watermarks: [] });
  assert.deepEqual(queue.snapshot().segments, [[["a", 3]]]);
  assert.equal(queue.inFlight, 3);
});

Deno.test("SegmentedQueue.restore() rejects bad snapshots naming the field and leaves the queue unchanged", () => {
  const queue = new SegmentedQueue<string>();
  queue.addKeyToLastSegment("a");
  const before = queue.snapshot();
  const bad: Array<[unknown, string, RegExp]> = [
    [null, "TypeError", /'snapshot' must be an object/],
    [{ segments: {}, watermarks: [] }, "TypeError", /'snapshot\.segments'/],
    [{ segments: [], watermarks: 1 }, "TypeError", /'snapshot\.watermarks'/],
    [
      { segments: [[]], watermarks: ["x"] },
      "TypeError",
      /'snapshot\.watermarks\[0\]'.*"x"/,
    ],
    [
      { segments: [[], []], watermarks: [NaN] },
      "RangeError",
      /'snapshot\.watermarks\[0\]'.*NaN/,
    ],
    [
      { segments: [[]], watermarks: [1] },
      "RangeError",
      /'snapshot\.segments\.length' must be 2.*1/,
    ],
    [
      { segments: [[], []], watermarks: [] },
      "RangeError",
      /'snapshot\.segments\.length' must be 0 or 1.*2/,
    ],
    [
      { segments: [[["a", 0]]], watermarks: [] },
      "RangeError",
      /'snapshot\.segments\[0\]\[0\]\[1\]' must be a positive safe integer.*0/,
    ],
    [
      { segments: [[["a", 1.5]]], watermarks: [] },
      "RangeError",
      /'snapshot\.segments\[0\]\[0\]\[1\]'/,
    ],
    [
      { segments: [[["a", "1"]]], watermarks: [] },
      "TypeError",
      /'snapshot\.segments\[0\]\[0\]\[1\]' must be a number/,
    ],
    [
      { segments: [["a"]], watermarks: [] },
      "TypeError",
      /'snapshot\.segments\[0\]\[0\]' must be a \[key, count\] pair/,
    ],
    [
      { segments: [1], watermarks: [] },
      "TypeError",
      /'snapshot\.segments\[0\]'/,
    ],
  ];
  for (const [snapshot, name, message] of bad) {
    assert.throws(
      () => queue.restore(snapshot as SegmentedQueueSnapshot<string>),
      { name, message },
    );
  }
  assert.deepEqual(queue.snapshot(), before);
});

Deno.test("SegmentedQueue.restore() accepts infinite watermarks", () => {
  const queue = new SegmentedQueue<string>();
  queue.restore({ segments: [[], [], []], watermarks: [-Infinity, Infinity] });
  assert.deepEqual(drain(queue), [-Infinity, Infinity]);
});

Deno.test("SegmentedQueue.rebuild() puts every in-flight key in the first segment", () => {
  const queue = SegmentedQueue.rebuild(["a", "b", "a"]);
  assert.deepEqual(queue.snapshot(), {
    segments: [[["a", 2], ["b", 1]]],
    watermarks: [],
  });
  assert.equal(queue.inFlight, 3);
  assert.equal(queue.heldWatermarks, 0);
});

Deno.test("SegmentedQueue.rebuild() makes the first replayed watermark wait for the recovered keys", () => {
  const queue = SegmentedQueue.rebuild(["a", "b"]);
  queue.addWatermark(100);
  queue.addKeyToLastSegment("a"); // a replayed record after the watermark
  queue.removeKey("a");
  assert.deepEqual(drain(queue), []);
  queue.removeKey("b");
  assert.deepEqual(drain(queue), [100]);
  assert.equal(queue.inFlight, 1);
});

Deno.test("SegmentedQueue.rebuild() with no keys gives an empty queue", () => {
  const queue = SegmentedQueue.rebuild<string>([]);
  assert.equal(queue.segmentCount, 0);
  queue.addWatermark(3);
  assert.equal(queue.popOldestWatermark(), 3);
});

type Op =
  | { add: string }
  | { watermark: true }
  | { finish: string };

Deno.test("SegmentedQueue releases each watermark exactly when every record before it has finished (property)", () => {
  const key = fc.constantFrom("a", "b", "c");
  const op: fc.Arbitrary<Op> = fc.oneof(
    key.map((k) => ({ add: k })),
    fc.constant({ watermark: true as const }),
    key.map((k) => ({ finish: k })),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
      const queue = new SegmentedQueue<string>();
      // Model: the arrival position of each unfinished record, and the
      // watermarks in arrival order with their positions.
      const unfinished: Array<{ key: string; at: number }> = [];
      const watermarks: Array<{ w: number; at: number }> = [];
      let released = 0;
      let next = 0;
      const popped: number[] = [];
      for (const o of ops) {
        const at = next++;
        if ("add" in o) {
          queue.addKeyToLastSegment(o.add);
          unfinished.push({ key: o.add, at });
          continue;
        }
        if ("watermark" in o) {
          queue.addWatermark(at);
          watermarks.push({ w: at, at });
        } else {
          // Per-key FIFO completion: the oldest record of that key finishes.
          const i = unfinished.findIndex((r) => r.key === o.finish);
          assert.equal(queue.removeKey(o.finish), i >= 0);
          if (i >= 0) unfinished.splice(i, 1);
        }
        popped.push(...drain(queue));
        const oldest = unfinished.length === 0 ? Infinity : unfinished[0].at;
        while (
          released < watermarks.length && watermarks[released].at < oldest
        ) {
          released++;
        }
        assert.deepEqual(popped, watermarks.slice(0, released).map((x) => x.w));
        assert.equal(queue.inFlight, unfinished.length);
        assert.equal(queue.heldWatermarks, watermarks.length - released);
      }
    }),
  );
});
