import assert from "node:assert/strict";
import fc from "fast-check";
import {
  TimerService,
  type TimerServiceSnapshot,
} from "../../src/windows/timer_service.ts";

type Fired = Array<[number, number]>;

/** Advances the watermark and returns the timers fired, in order. */
function fireUpTo(timers: TimerService, watermark: number): Fired {
  const fired: Fired = [];
  timers.advanceWatermark(watermark, (id, ts) => fired.push([id, ts]));
  return fired;
}

/** Advances processing time and returns the timers fired, in order. */
function fireAt(timers: TimerService, now: number): Fired {
  const fired: Fired = [];
  timers.advanceProcessingTime(now, (id, ts) => fired.push([id, ts]));
  return fired;
}

// ---------------------------------------------------------------------------
// Registration and deduplication

Deno.test("TimerService stores one timer for the same (timestamp, key, window) registered twice", () => {
  const timers = new TimerService();
  for (let i = 0; i < 5; i++) timers.registerEventTimeTimer(3, 1_999);
  timers.registerEventTimeTimer(3, 3_999);
  timers.registerEventTimeTimer(4, 1_999);
  assert.equal(timers.numEventTimeTimers(), 3);
  assert.equal(timers.hasEventTimeTimer(3, 1_999), true);
  assert.equal(timers.hasEventTimeTimer(3, 2_999), false);
  assert.deepEqual(fireUpTo(timers, 1_999), [[3, 1_999], [4, 1_999]]);
  assert.equal(timers.numEventTimeTimers(), 1);
});

Deno.test("TimerService deduplicates within each of many timers of one id", () => {
  const timers = new TimerService();
  for (let round = 0; round < 3; round++) {
    for (let ts = 0; ts < 6; ts++) timers.registerEventTimeTimer(1, ts);
  }
  assert.equal(timers.numEventTimeTimers(), 6);
  assert.deepEqual(
    fireUpTo(timers, 10),
    [0, 1, 2, 3, 4, 5].map((ts) => [1, ts]),
  );
});

Deno.test("TimerService.deleteEventTimeTimer() ignores a timer that is not pending", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 10);
  timers.deleteEventTimeTimer(1, 11);
  timers.deleteEventTimeTimer(2, 10);
  timers.deleteProcessingTimeTimer(1, 10);
  assert.equal(timers.numEventTimeTimers(), 1);
  timers.deleteEventTimeTimer(1, 10);
  timers.deleteEventTimeTimer(1, 10);
  assert.equal(timers.numEventTimeTimers(), 0);
  assert.deepEqual(fireUpTo(timers, Infinity), []);
});

// ---------------------------------------------------------------------------
// Firing

Deno.test("TimerService.advanceWatermark() fires in ascending timestamp order, ties by ascending id", () => {
  const timers = new TimerService();
  const registrations: Fired = [[9, 5], [2, 7], [4, 5], [1, 3], [0, 7], [4, 3]];
  for (const [id, ts] of registrations) timers.registerEventTimeTimer(id, ts);
  assert.deepEqual(fireUpTo(timers, 10), [
    [1, 3],
    [4, 3],
    [4, 5],
    [9, 5],
    [0, 7],
    [2, 7],
  ]);
});

Deno.test("TimerService.advanceWatermark() fires a timer at the watermark but not one just above it", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 100);
  timers.registerEventTimeTimer(2, 101);
  assert.deepEqual(fireUpTo(timers, 99), []);
  assert.deepEqual(fireUpTo(timers, 100), [[1, 100]]);
  assert.equal(timers.hasEventTimeTimer(2, 101), true);
  assert.deepEqual(fireUpTo(timers, 101), [[2, 101]]);
});

Deno.test("TimerService.currentWatermark starts at -Infinity and is set before the first callback", () => {
  const timers = new TimerService();
  assert.equal(timers.currentWatermark, -Infinity);
  timers.registerEventTimeTimer(1, 5);
  const seen: number[] = [];
  timers.advanceWatermark(20, () => seen.push(timers.currentWatermark));
  assert.deepEqual(seen, [20]);
  assert.equal(timers.currentWatermark, 20);
});

Deno.test("TimerService.advanceWatermark() never lowers currentWatermark", () => {
  const timers = new TimerService();
  fireUpTo(timers, 50);
  assert.deepEqual(fireUpTo(timers, 10), []);
  assert.equal(timers.currentWatermark, 50);
  fireUpTo(timers, 50);
  assert.equal(timers.currentWatermark, 50);
});

Deno.test("TimerService does not fire a timer registered at or below the current watermark until the next advance", () => {
  const timers = new TimerService();
  fireUpTo(timers, 100);
  timers.registerEventTimeTimer(1, 40);
  timers.registerEventTimeTimer(2, 100);
  assert.equal(timers.numEventTimeTimers(), 2);
  assert.equal(timers.nextEventTimeTimer(), 40);
  // A lower watermark does not lower the current one and fires only up to itself.
  assert.deepEqual(fireUpTo(timers, 60), [[1, 40]]);
  assert.equal(timers.currentWatermark, 100);
  assert.deepEqual(fireUpTo(timers, 100), [[2, 100]]);
});

Deno.test("TimerService.advanceWatermark() fires a timer a callback registers at or below the watermark in the same call", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 10);
  const fired: Fired = [];
  timers.advanceWatermark(20, (id, ts) => {
    fired.push([id, ts]);
    if (id === 1) {
      timers.registerEventTimeTimer(2, 15); // due: fires in this call
      timers.registerEventTimeTimer(3, 5); // below the one firing: still fires
      timers.registerEventTimeTimer(4, 21); // not due
    }
  });
  assert.deepEqual(fired, [[1, 10], [3, 5], [2, 15]]);
  assert.deepEqual(timers.snapshot().eventTime, [4, 21]);
});

Deno.test("TimerService.advanceWatermark() removes a timer before its callback, so the callback may re-register it for later", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 10);
  const fired: Fired = [];
  timers.advanceWatermark(10, (id, ts) => {
    fired.push([id, ts]);
    assert.equal(timers.hasEventTimeTimer(id, ts), false);
    assert.equal(timers.numEventTimeTimers(), 0);
    timers.registerEventTimeTimer(id, ts + 1);
  });
  assert.deepEqual(fired, [[1, 10]]);
  assert.deepEqual(fireUpTo(timers, 11), [[1, 11]]);
});

Deno.test("TimerService.advanceWatermark() does not fire a due timer a callback deletes", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 10);
  timers.registerEventTimeTimer(2, 10);
  timers.registerEventTimeTimer(3, 12);
  timers.registerEventTimeTimer(4, 13);
  const fired: Fired = [];
  timers.advanceWatermark(20, (id, ts) => {
    fired.push([id, ts]);
    if (id === 1) {
      timers.deleteEventTimeTimer(2, 10);
      timers.deleteAllTimers(3);
    }
  });
  assert.deepEqual(fired, [[1, 10], [4, 13]]);
  assert.equal(timers.numEventTimeTimers(), 0);
});

Deno.test("TimerService keeps the remaining timers pending when a callback throws", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 1);
  timers.registerEventTimeTimer(2, 2);
  assert.throws(
    () =>
      timers.advanceWatermark(5, () => {
        throw new Error("boom");
      }),
    { message: "boom" },
  );
  assert.equal(timers.currentWatermark, 5);
  assert.equal(timers.hasEventTimeTimer(1, 1), false);
  assert.deepEqual(fireUpTo(timers, 5), [[2, 2]]);
});

// ---------------------------------------------------------------------------
// Deletion

Deno.test("TimerService.deleteAllTimers() removes every timer of the id in both domains", () => {
  const timers = new TimerService();
  for (const ts of [3, 8, 13]) {
    timers.registerEventTimeTimer(7, ts);
    timers.registerProcessingTimeTimer(7, ts);
  }
  timers.registerEventTimeTimer(8, 8);
  timers.registerProcessingTimeTimer(8, 9);
  timers.deleteAllTimers(7);
  timers.deleteAllTimers(7);
  timers.deleteAllTimers(99);
  assert.equal(timers.numEventTimeTimers(), 1);
  assert.equal(timers.numProcessingTimeTimers(), 1);
  assert.equal(timers.hasEventTimeTimer(7, 8), false);
  assert.equal(timers.nextEventTimeTimer(), 8);
  assert.equal(timers.nextProcessingTimeTimer(), 9);
  assert.deepEqual(fireUpTo(timers, 100), [[8, 8]]);
  assert.deepEqual(fireAt(timers, 100), [[8, 9]]);
});

Deno.test("TimerService.clearTimers() deletes as deleteAllTimers() does, and the id registers again", () => {
  const timers = new TimerService();
  for (const ts of [3, 8]) {
    timers.registerEventTimeTimer(7, ts);
    timers.registerProcessingTimeTimer(7, ts);
  }
  timers.registerEventTimeTimer(8, 8);
  timers.clearTimers(7);
  timers.clearTimers(7);
  timers.clearTimers(99);
  assert.equal(timers.numEventTimeTimers(), 1);
  assert.equal(timers.numProcessingTimeTimers(), 0);
  assert.equal(timers.hasEventTimeTimer(7, 3), false);
  timers.registerEventTimeTimer(7, 9);
  assert.deepEqual(timers.snapshot().eventTime, [8, 8, 7, 9]);
  assert.deepEqual(fireUpTo(timers, 100), [[8, 8], [7, 9]]);
  assert.throws(() => timers.clearTimers(-1), RangeError);
});

Deno.test("TimerService fires a timer deleted and then registered again exactly once", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 10);
  timers.registerEventTimeTimer(2, 10);
  timers.deleteEventTimeTimer(1, 10);
  timers.registerEventTimeTimer(1, 10);
  timers.registerEventTimeTimer(1, 10);
  timers.deleteAllTimers(2);
  timers.registerEventTimeTimer(2, 10);
  assert.equal(timers.numEventTimeTimers(), 2);
  assert.deepEqual(fireUpTo(timers, 10), [[1, 10], [2, 10]]);
  assert.deepEqual(fireUpTo(timers, Infinity), []);
});

Deno.test("TimerService stays correct across heap compaction after mass deletion", () => {
  const timers = new TimerService();
  for (let id = 0; id < 1_000; id++) timers.registerEventTimeTimer(id, id % 97);
  for (let id = 0; id < 1_000; id++) {
    if (id % 10 !== 0) timers.deleteAllTimers(id);
  }
  // Re-register some deleted pairs after the rebuild: each must fire once.
  for (let id = 1; id < 1_000; id += 100) timers.registerEventTimeTimer(id, 0);
  assert.equal(timers.numEventTimeTimers(), 110);
  const fired = fireUpTo(timers, Infinity);
  assert.equal(fired.length, 110);
  const sorted = [...fired].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  assert.deepEqual(fired, sorted);
  assert.equal(new Set(fired.map(([id, ts]) => `${id}@${ts}`)).size, 110);
});

Deno.test("TimerService fires timers sharing a timestamp in ascending id order whatever the registration order", () => {
  const timers = new TimerService();
  const ids = Array.from({ length: 200 }, (_, i) => (i * 37) % 200);
  for (const id of ids) timers.registerEventTimeTimer(id, 5);
  for (let id = 199; id >= 0; id--) timers.registerEventTimeTimer(id, 6);
  timers.registerEventTimeTimer(500, 5);
  const expected: Fired = [];
  for (const ts of [5, 6]) {
    for (let id = 0; id < 200; id++) expected.push([id, ts]);
    if (ts === 5) expected.push([500, 5]);
  }
  assert.deepEqual(fireUpTo(timers, 6), expected);
});

Deno.test("TimerService.advanceWatermark() fires timers a callback adds to the timestamp being fired in (timestamp, id) order", () => {
  const timers = new TimerService();
  for (const id of [0, 2, 4, 6, 8]) timers.registerEventTimeTimer(id, 10);
  const fired: Fired = [];
  timers.advanceWatermark(10, (id, ts) => {
    fired.push([id, ts]);
    if (id === 2) {
      timers.registerEventTimeTimer(5, 10); // between pending ids
      timers.registerEventTimeTimer(1, 10); // below the id that fired
      timers.registerEventTimeTimer(9, 10); // above every id
      timers.registerEventTimeTimer(7, 3); // at an earlier timestamp
      timers.deleteEventTimeTimer(6, 10);
    }
    // Re-registered while its own timestamp is firing: fires once more.
    if (id === 8 && ts === 10 && fired.length < 20) {
      timers.registerEventTimeTimer(8, 10);
    }
  });
  assert.deepEqual(fired, [
    [0, 10],
    [2, 10],
    [7, 3],
    [1, 10],
    [4, 10],
    [5, 10],
    [8, 10],
    [8, 10],
    [8, 10],
    ...Array.from({ length: 11 }, (): [number, number] => [8, 10]),
    [9, 10],
  ]);
  assert.equal(timers.numEventTimeTimers(), 0);
});

Deno.test("TimerService keeps the timers of one timestamp correct across tombstones, re-registration and compaction", () => {
  const timers = new TimerService();
  for (let id = 0; id < 1_000; id++) timers.registerEventTimeTimer(id, 7);
  // Deleting most of the bucket compacts it; some deleted pairs come back,
  // some of them twice, and some deleted again.
  for (let id = 0; id < 1_000; id++) {
    if (id % 10 !== 0) timers.deleteEventTimeTimer(id, 7);
  }
  for (let id = 995; id > 0; id -= 50) timers.registerEventTimeTimer(id, 7);
  for (let id = 995; id > 0; id -= 100) {
    timers.deleteEventTimeTimer(id, 7);
    timers.registerEventTimeTimer(id, 7);
  }
  timers.deleteAllTimers(945);
  const expected: number[] = [];
  for (let id = 0; id < 1_000; id++) {
    if (id % 10 === 0 || (id % 50 === 45 && id !== 945)) expected.push(id);
  }
  assert.equal(timers.numEventTimeTimers(), expected.length);
  assert.deepEqual(
    timers.snapshot().eventTime,
    expected.flatMap((id) => [id, 7]),
  );
  assert.deepEqual(fireUpTo(timers, 7), expected.map((id) => [id, 7]));
  assert.equal(timers.nextEventTimeTimer(), Infinity);
});

Deno.test("TimerService resumes a timestamp whose callback threw part way through its timers", () => {
  const timers = new TimerService();
  for (let id = 0; id < 6; id++) timers.registerEventTimeTimer(id, 4);
  assert.throws(() =>
    timers.advanceWatermark(4, (id) => {
      if (id === 2) throw new Error("boom");
    })
  );
  timers.registerEventTimeTimer(1, 4); // below the ids still pending
  timers.registerEventTimeTimer(9, 4);
  assert.deepEqual(timers.snapshot().eventTime, [1, 4, 3, 4, 4, 4, 5, 4, 9, 4]);
  assert.deepEqual(fireUpTo(timers, 4), [[1, 4], [3, 4], [4, 4], [5, 4], [
    9,
    4,
  ]]);
});

// ---------------------------------------------------------------------------
// Processing time, infinities, next timer

Deno.test("TimerService keeps processing-time timers independent of event-time timers", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, 10);
  timers.registerProcessingTimeTimer(1, 10);
  timers.registerProcessingTimeTimer(1, 10);
  timers.registerProcessingTimeTimer(2, 5);
  assert.equal(timers.numEventTimeTimers(), 1);
  assert.equal(timers.numProcessingTimeTimers(), 2);
  assert.deepEqual(fireUpTo(timers, 100), [[1, 10]]);
  assert.equal(timers.hasProcessingTimeTimer(1, 10), true);
  assert.deepEqual(fireAt(timers, 9), [[2, 5]]);
  assert.deepEqual(fireAt(timers, 10), [[1, 10]]);
  assert.equal(timers.currentWatermark, 100);
  assert.equal(timers.numProcessingTimeTimers(), 0);
});

Deno.test("TimerService fires a timer at Infinity only on watermark Infinity, and one at -Infinity on any advance", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, Infinity);
  timers.registerEventTimeTimer(2, -Infinity);
  assert.equal(timers.nextEventTimeTimer(), -Infinity);
  assert.deepEqual(fireUpTo(timers, -Infinity), [[2, -Infinity]]);
  assert.equal(timers.nextEventTimeTimer(), Infinity);
  assert.equal(timers.numEventTimeTimers(), 1);
  assert.deepEqual(fireUpTo(timers, Number.MAX_SAFE_INTEGER), []);
  assert.deepEqual(fireUpTo(timers, Infinity), [[1, Infinity]]);
  timers.registerProcessingTimeTimer(3, Infinity);
  assert.deepEqual(fireAt(timers, Infinity), [[3, Infinity]]);
});

Deno.test("TimerService.nextProcessingTimeTimer() returns the smallest pending timestamp, skipping deleted ones", () => {
  const timers = new TimerService();
  assert.equal(timers.nextProcessingTimeTimer(), Infinity);
  timers.registerProcessingTimeTimer(1, 300);
  timers.registerProcessingTimeTimer(2, 200);
  timers.registerProcessingTimeTimer(3, 250);
  assert.equal(timers.nextProcessingTimeTimer(), 200);
  timers.deleteProcessingTimeTimer(2, 200);
  assert.equal(timers.nextProcessingTimeTimer(), 250);
  timers.deleteAllTimers(3);
  assert.equal(timers.nextProcessingTimeTimer(), 300);
  fireAt(timers, 300);
  assert.equal(timers.nextProcessingTimeTimer(), Infinity);
  assert.equal(timers.nextEventTimeTimer(), Infinity);
});

// ---------------------------------------------------------------------------
// Snapshots

Deno.test("TimerService.snapshot() lists pending timers flattened in firing order", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(5, 20);
  timers.registerEventTimeTimer(2, 20);
  timers.registerEventTimeTimer(9, 10);
  timers.registerEventTimeTimer(9, 30);
  timers.deleteEventTimeTimer(9, 30);
  timers.registerProcessingTimeTimer(1, Infinity);
  timers.registerProcessingTimeTimer(0, 7);
  fireUpTo(timers, 3);
  assert.deepEqual(timers.snapshot(), {
    currentWatermark: 3,
    eventTime: [9, 10, 2, 20, 5, 20],
    processingTime: [0, 7, 1, Infinity],
  });
});

Deno.test("TimerService.restore() resumes with the same timers, watermark and firing order", () => {
  const timers = new TimerService();
  for (let id = 0; id < 20; id++) {
    timers.registerEventTimeTimer(id, (id * 7) % 11);
    timers.registerEventTimeTimer(id, 100 + id);
    timers.registerProcessingTimeTimer(id, (id * 5) % 13);
  }
  timers.deleteAllTimers(4);
  fireUpTo(timers, 2);
  const snapshot = timers.snapshot();
  const restored = new TimerService();
  restored.registerEventTimeTimer(99, 0); // replaced by the restore
  restored.restore(structuredClone(snapshot));
  assert.deepEqual(restored.snapshot(), snapshot);
  assert.equal(restored.currentWatermark, 2);
  assert.equal(restored.numEventTimeTimers(), timers.numEventTimeTimers());
  assert.deepEqual(fireUpTo(restored, 50), fireUpTo(timers, 50));
  assert.deepEqual(fireUpTo(restored, Infinity), fireUpTo(timers, Infinity));
  assert.deepEqual(fireAt(restored, Infinity), fireAt(timers, Infinity));
});

Deno.test("TimerService.restore() stores a pair listed twice once", () => {
  const timers = new TimerService();
  timers.restore({
    currentWatermark: -Infinity,
    eventTime: [1, 5, 1, 5],
    processingTime: [],
  });
  assert.equal(timers.numEventTimeTimers(), 1);
});

Deno.test("TimerService.restore() rejects a malformed snapshot, naming the field, and keeps its state", () => {
  const good: TimerServiceSnapshot = {
    currentWatermark: 0,
    eventTime: [1, 2],
    processingTime: [3, 4],
  };
  const cases: Array<[unknown, string, RegExp]> = [
    [
      { ...good, eventTime: [1, 2, 3] },
      "RangeError",
      /'snapshot\.eventTime' .*length is 3$/,
    ],
    [
      { ...good, processingTime: [1] },
      "RangeError",
      /'snapshot\.processingTime' /,
    ],
    [
      { ...good, eventTime: [-1, 2] },
      "RangeError",
      /'snapshot\.eventTime\[0\]'.*-1$/,
    ],
    [
      { ...good, eventTime: [1, 2, 1.5, 2] },
      "RangeError",
      /'snapshot\.eventTime\[2\]'.*1\.5$/,
    ],
    [
      { ...good, processingTime: [1, NaN] },
      "RangeError",
      /'snapshot\.processingTime\[1\]'.*NaN$/,
    ],
    [
      { ...good, currentWatermark: NaN },
      "RangeError",
      /'snapshot\.currentWatermark'.*NaN$/,
    ],
    [
      { ...good, eventTime: ["1", 2] },
      "TypeError",
      /'snapshot\.eventTime\[0\]'.*"1"$/,
    ],
    [
      { ...good, eventTime: undefined },
      "TypeError",
      /'snapshot\.eventTime' must be an array/,
    ],
    [null, "TypeError", /'snapshot' must be an object: current value is null$/],
  ];
  for (const [snapshot, name, message] of cases) {
    const timers = new TimerService();
    timers.registerEventTimeTimer(8, 8);
    assert.throws(
      () => timers.restore(snapshot as TimerServiceSnapshot),
      {
        name,
        message: new RegExp(
          `^Cannot restore TimerService as ${message.source}`,
        ),
      },
    );
    assert.deepEqual(timers.snapshot(), {
      currentWatermark: -Infinity,
      eventTime: [8, 8],
      processingTime: [],
    });
  }
});

// ---------------------------------------------------------------------------
// Argument checks

Deno.test("TimerService rejects a bad id or timestamp, naming the parameter and the value", () => {
  const timers = new TimerService();
  const calls: Array<[string, (id: number, ts: number) => unknown]> = [
    [
      "register event-time timer",
      (id, ts) => timers.registerEventTimeTimer(id, ts),
    ],
    [
      "delete event-time timer",
      (id, ts) => timers.deleteEventTimeTimer(id, ts),
    ],
    ["look up event-time timer", (id, ts) => timers.hasEventTimeTimer(id, ts)],
    [
      "register processing-time timer",
      (id, ts) => timers.registerProcessingTimeTimer(id, ts),
    ],
    [
      "delete processing-time timer",
      (id, ts) => timers.deleteProcessingTimeTimer(id, ts),
    ],
    [
      "look up processing-time timer",
      (id, ts) => timers.hasProcessingTimeTimer(id, ts),
    ],
  ];
  const bad: Array<[number, number, string, string]> = [
    [
      1,
      NaN,
      "RangeError",
      "'timestamp' must be a safe integer, -Infinity or Infinity: current value is NaN",
    ],
    [
      1,
      0.5,
      "RangeError",
      "'timestamp' must be a safe integer, -Infinity or Infinity: current value is 0.5",
    ],
    [
      1,
      2 ** 53,
      "RangeError",
      `'timestamp' must be a safe integer, -Infinity or Infinity: current value is ${
        2 ** 53
      }`,
    ],
    [
      1,
      "5" as unknown as number,
      "TypeError",
      `'timestamp' must be a safe integer, -Infinity or Infinity: current value is "5"`,
    ],
    [
      -1,
      0,
      "RangeError",
      "'id' must be a non-negative safe integer: current value is -1",
    ],
    [
      1.5,
      0,
      "RangeError",
      "'id' must be a non-negative safe integer: current value is 1.5",
    ],
    [
      Infinity,
      0,
      "RangeError",
      "'id' must be a non-negative safe integer: current value is Infinity",
    ],
    [
      undefined as unknown as number,
      0,
      "TypeError",
      "'id' must be a non-negative safe integer: current value is undefined",
    ],
  ];
  for (const [action, call] of calls) {
    for (const [id, ts, name, rest] of bad) {
      assert.throws(() => call(id, ts), {
        name,
        message: `Cannot ${action} as ${rest}`,
      });
    }
  }
  assert.equal(timers.numEventTimeTimers(), 0);
  assert.equal(timers.numProcessingTimeTimers(), 0);
});

Deno.test("TimerService rejects a bad watermark, processing time, callback or id to clear, naming the parameter", () => {
  const timers = new TimerService();
  const noop = () => {};
  assert.throws(() => timers.advanceWatermark(NaN, noop), {
    name: "RangeError",
    message: /^Cannot advance watermark as 'watermark' .*current value is NaN$/,
  });
  assert.throws(() => timers.advanceProcessingTime(1.25, noop), {
    name: "RangeError",
    message:
      /^Cannot advance processing time as 'now' .*current value is 1\.25$/,
  });
  assert.throws(
    () => timers.advanceWatermark(1, "f" as unknown as typeof noop),
    { name: "TypeError", message: /'onTimer' must be a function/ },
  );
  assert.throws(
    () => timers.advanceProcessingTime(1, undefined as unknown as typeof noop),
    { name: "TypeError", message: /'onTimer' must be a function/ },
  );
  assert.throws(() => timers.deleteAllTimers(-3), {
    name: "RangeError",
    message: /^Cannot delete all timers as 'id' .*current value is -3$/,
  });
  assert.equal(timers.currentWatermark, -Infinity);
});

// ---------------------------------------------------------------------------
// Properties: the service against a brute-force model

/** The part of the service the property drives, so the model can stand in. */
interface Timers {
  readonly currentWatermark: number;
  registerEventTimeTimer(id: number, ts: number): void;
  deleteEventTimeTimer(id: number, ts: number): void;
  registerProcessingTimeTimer(id: number, ts: number): void;
  deleteProcessingTimeTimer(id: number, ts: number): void;
  deleteAllTimers(id: number): void;
  advanceWatermark(wm: number, onTimer: (id: number, ts: number) => void): void;
  advanceProcessingTime(
    now: number,
    onTimer: (id: number, ts: number) => void,
  ): void;
  nextEventTimeTimer(): number;
  nextProcessingTimeTimer(): number;
  numEventTimeTimers(): number;
  numProcessingTimeTimers(): number;
}

/** Live pairs in plain arrays; firing scans for the smallest due pair each turn. */
class BruteForceTimers implements Timers {
  currentWatermark = -Infinity;
  eventTime: Fired = [];
  processingTime: Fired = [];

  registerEventTimeTimer(id: number, ts: number): void {
    add(this.eventTime, id, ts);
  }
  deleteEventTimeTimer(id: number, ts: number): void {
    this.eventTime = this.eventTime.filter(([i, t]) => i !== id || t !== ts);
  }
  registerProcessingTimeTimer(id: number, ts: number): void {
    add(this.processingTime, id, ts);
  }
  deleteProcessingTimeTimer(id: number, ts: number): void {
    this.processingTime = this.processingTime.filter(([i, t]) =>
      i !== id || t !== ts
    );
  }
  deleteAllTimers(id: number): void {
    this.eventTime = this.eventTime.filter(([i]) => i !== id);
    this.processingTime = this.processingTime.filter(([i]) => i !== id);
  }
  advanceWatermark(
    wm: number,
    onTimer: (id: number, ts: number) => void,
  ): void {
    this.currentWatermark = Math.max(this.currentWatermark, wm);
    this.#fire("eventTime", wm, onTimer);
  }
  advanceProcessingTime(
    now: number,
    onTimer: (id: number, ts: number) => void,
  ): void {
    this.#fire("processingTime", now, onTimer);
  }
  nextEventTimeTimer(): number {
    return Math.min(Infinity, ...this.eventTime.map(([, t]) => t));
  }
  nextProcessingTimeTimer(): number {
    return Math.min(Infinity, ...this.processingTime.map(([, t]) => t));
  }
  numEventTimeTimers(): number {
    return this.eventTime.length;
  }
  numProcessingTimeTimers(): number {
    return this.processingTime.length;
  }
  snapshot(): TimerServiceSnapshot {
    const flat = (pairs: Fired) => sortPairs(pairs).flat();
    return {
      currentWatermark: this.currentWatermark,
      eventTime: flat(this.eventTime),
      processingTime: flat(this.processingTime),
    };
  }

  #fire(
    domain: "eventTime" | "processingTime",
    limit: number,
    onTimer: (id: number, ts: number) => void,
  ): void {
    for (;;) {
      const due = sortPairs(this[domain].filter(([, t]) => t <= limit));
      if (due.length === 0) return;
      const [id, ts] = due[0];
      this[domain] = this[domain].filter(([i, t]) => i !== id || t !== ts);
      onTimer(id, ts);
    }
  }
}

function add(pairs: Fired, id: number, ts: number): void {
  if (!pairs.some(([i, t]) => i === id && t === ts)) pairs.push([id, ts]);
}

function sortPairs(pairs: Fired): Fired {
  return [...pairs].sort((a, b) =>
    a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] - b[0]
  );
}

type Op =
  | {
    op: "registerE" | "deleteE" | "registerP" | "deleteP";
    id: number;
    ts: number;
  }
  | { op: "deleteAll"; id: number }
  | { op: "advanceE" | "advanceP"; to: number };

/** What a callback does when a timer of an id fires, so callbacks are exercised too. */
type Reaction =
  | { op: "none" }
  | { op: "registerE" | "deleteE" | "registerP"; id: number; delta: number }
  | { op: "deleteAll"; id: number };

const NUM_IDS = 4;
const id = fc.integer({ min: 0, max: NUM_IDS - 1 });
const timestamp = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 12 }), weight: 20 },
  { arbitrary: fc.constantFrom(-Infinity, Infinity), weight: 1 },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constantFrom("registerE", "registerP"),
      id,
      ts: timestamp,
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({
      op: fc.constantFrom("deleteE", "deleteP"),
      id,
      ts: timestamp,
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant("deleteAll"), id }), weight: 1 },
  {
    arbitrary: fc.record({
      op: fc.constantFrom("advanceE", "advanceP"),
      to: timestamp,
    }),
    weight: 3,
  },
) as fc.Arbitrary<Op>;
const reaction: fc.Arbitrary<Reaction> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant("none") }), weight: 3 },
  {
    arbitrary: fc.record({
      op: fc.constantFrom("registerE", "deleteE", "registerP"),
      id,
      delta: fc.integer({ min: -3, max: 3 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant("deleteAll"), id }), weight: 1 },
) as fc.Arbitrary<Reaction>;
const scenario = fc.record({
  ops: fc.array(op, { maxLength: 150, size: "max" }),
  reactions: fc.array(reaction, { minLength: NUM_IDS, maxLength: NUM_IDS }),
});

// A budget per advance keeps reactions that re-register due timers from
// looping forever; both sides spend it identically while they agree.
const REACTION_BUDGET = 8;

function run(timers: Timers, ops: Op[], reactions: Reaction[]): string[] {
  const log: string[] = [];
  for (const step of ops) {
    switch (step.op) {
      case "registerE":
        timers.registerEventTimeTimer(step.id, step.ts);
        break;
      case "deleteE":
        timers.deleteEventTimeTimer(step.id, step.ts);
        break;
      case "registerP":
        timers.registerProcessingTimeTimer(step.id, step.ts);
        break;
      case "deleteP":
        timers.deleteProcessingTimeTimer(step.id, step.ts);
        break;
      case "deleteAll":
        timers.deleteAllTimers(step.id);
        break;
      case "advanceE":
      case "advanceP": {
        let budget = REACTION_BUDGET;
        const domain = step.op === "advanceE" ? "E" : "P";
        const onTimer = (fid: number, fts: number) => {
          log.push(`${domain} ${fid}@${fts} wm=${timers.currentWatermark}`);
          const r = reactions[fid];
          if (r.op === "none" || budget-- <= 0) return;
          if (r.op === "deleteAll") timers.deleteAllTimers(r.id);
          else {
            const ts = fts + r.delta;
            if (r.op === "registerE") timers.registerEventTimeTimer(r.id, ts);
            if (r.op === "deleteE") timers.deleteEventTimeTimer(r.id, ts);
            if (r.op === "registerP") {
              timers.registerProcessingTimeTimer(r.id, ts);
            }
          }
        };
        if (domain === "E") timers.advanceWatermark(step.to, onTimer);
        else timers.advanceProcessingTime(step.to, onTimer);
        break;
      }
    }
    log.push(
      `E#${timers.numEventTimeTimers()} next=${timers.nextEventTimeTimer()} ` +
        `P#${timers.numProcessingTimeTimers()} next=${timers.nextProcessingTimeTimer()} ` +
        `wm=${timers.currentWatermark}`,
    );
  }
  return log;
}

Deno.test("TimerService fires the same timers in the same order as a brute-force model on random operations", () => {
  fc.assert(
    fc.property(scenario, ({ ops, reactions }) => {
      const timers = new TimerService();
      const model = new BruteForceTimers();
      assert.deepEqual(run(timers, ops, reactions), run(model, ops, reactions));
      assert.deepEqual(timers.snapshot(), model.snapshot());
    }),
    { seed: 42, numRuns: 300 },
  );
});

Deno.test("TimerService.restore() resumes identically from a snapshot taken after random operations", () => {
  fc.assert(
    fc.property(scenario, scenario, (before, after) => {
      const timers = new TimerService();
      run(timers, before.ops, before.reactions);
      const restored = new TimerService();
      restored.restore(structuredClone(timers.snapshot()));
      const drain: Op[] = [{ op: "advanceE", to: Infinity }, {
        op: "advanceP",
        to: Infinity,
      }];
      assert.deepEqual(
        run(restored, [...after.ops, ...drain], after.reactions),
        run(timers, [...after.ops, ...drain], after.reactions),
      );
    }),
    { seed: 42, numRuns: 300 },
  );
});

// Many ids on few timestamps, so that timers share timestamps, callbacks add
// to the timestamp being fired, and deletions leave many tombstones behind.
const MANY_IDS = 24;
const manyIds = fc.integer({ min: 0, max: MANY_IDS - 1 });
const fewTimestamps = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 20 },
  { arbitrary: fc.constantFrom(-Infinity, Infinity), weight: 1 },
);
const crowdedScenario = fc.record({
  ops: fc.array(
    fc.oneof(
      {
        arbitrary: fc.record({
          op: fc.constantFrom("registerE", "registerP"),
          id: manyIds,
          ts: fewTimestamps,
        }),
        weight: 8,
      },
      {
        arbitrary: fc.record({
          op: fc.constantFrom("deleteE", "deleteP"),
          id: manyIds,
          ts: fewTimestamps,
        }),
        weight: 4,
      },
      {
        arbitrary: fc.record({ op: fc.constant("deleteAll"), id: manyIds }),
        weight: 1,
      },
      {
        arbitrary: fc.record({
          op: fc.constantFrom("advanceE", "advanceP"),
          to: fewTimestamps,
        }),
        weight: 2,
      },
    ) as fc.Arbitrary<Op>,
    { maxLength: 200, size: "max" },
  ),
  reactions: fc.array(
    fc.oneof(
      { arbitrary: fc.record({ op: fc.constant("none") }), weight: 2 },
      {
        arbitrary: fc.record({
          op: fc.constantFrom("registerE", "deleteE", "registerP"),
          id: manyIds,
          delta: fc.integer({ min: -1, max: 1 }),
        }),
        weight: 4,
      },
      {
        arbitrary: fc.record({ op: fc.constant("deleteAll"), id: manyIds }),
        weight: 1,
      },
    ) as fc.Arbitrary<Reaction>,
    { minLength: MANY_IDS, maxLength: MANY_IDS },
  ),
});

Deno.test("TimerService matches the brute-force model when many timers share each timestamp", () => {
  fc.assert(
    fc.property(crowdedScenario, ({ ops, reactions }) => {
      const timers = new TimerService();
      const model = new BruteForceTimers();
      assert.deepEqual(run(timers, ops, reactions), run(model, ops, reactions));
      assert.deepEqual(timers.snapshot(), model.snapshot());
      const restored = new TimerService();
      restored.restore(structuredClone(timers.snapshot()));
      const drain: Op[] = [{ op: "advanceE", to: Infinity }, {
        op: "advanceP",
        to: Infinity,
      }];
      assert.deepEqual(
        run(restored, drain, reactions),
        run(model, drain, reactions),
      );
    }),
    { seed: 42, numRuns: 300 },
  );
});
