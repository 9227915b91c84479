import assert from "node:assert/strict";
import { AsyncWaitOperator } from "../../../src/runtime/operators/async_wait.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";
import { ManualClock } from "../../../src/time/clock.ts";

/** A promise resolved by hand, so tests decide the completion order. */
function deferred<T>(): {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

type Call = { key: string; n: number };

function calls() {
  const pending = new Map<string, ReturnType<typeof deferred<string>>>();
  const fn = (call: Call) => {
    const d = deferred<string>();
    pending.set(`${call.key}${call.n}`, d);
    return d.promise;
  };
  const finish = (name: string) => pending.get(name)!.resolve(`${name}!`);
  return { fn, finish, pending };
}

Deno.test("AsyncWaitOperator (keyed) holds W1 until A1's slow result is out, and A2 after W1 does not hold it", async () => {
  const { fn, finish } = calls();
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(fn, {
      mode: "keyed",
      keySelector: (c) => c.key,
    }),
  ).open();
  h.element({ key: "A", n: 1 }, 100); // A1: takes 10 s
  h.element({ key: "B", n: 1 }, 110); // B1: at once
  finish("B1");
  await h.mail();
  assert.deepEqual(h.take(), ["R(B1!)@110"]);
  h.watermark(150); // W1
  h.element({ key: "A", n: 2 }, 200); // A2 arrives after W1
  finish("A2");
  await h.mail();
  assert.deepEqual(
    h.take(),
    [],
    "A2 waits behind A1 (same key), W1 waits for A1",
  );
  h.clock.advance(10_000);
  finish("A1");
  await h.mail();
  // W1 right after A1's result; A2 (after W1, timestamp 200) follows it.
  assert.deepEqual(h.take(), ["R(A1!)@100", "W150", "R(A2!)@200"]);
});

Deno.test("AsyncWaitOperator (keyed) emits W1 right after A1's result, before A2's if A2 is still running", async () => {
  const { fn, finish } = calls();
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(fn, {
      mode: "keyed",
      keySelector: (c) => c.key,
    }),
  ).open();
  h.element({ key: "A", n: 1 }, 100);
  h.watermark(150);
  h.element({ key: "A", n: 2 }, 200);
  finish("A1");
  await h.mail();
  assert.deepEqual(h.take(), ["R(A1!)@100", "W150"]);
  finish("A2");
  await h.mail();
  assert.deepEqual(h.take(), ["R(A2!)@200"]);
});

Deno.test("AsyncWaitOperator passes a watermark straight through when nothing is in flight", () => {
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(() => Promise.resolve("x"), {
      mode: "keyed",
      keySelector: (c) => c.key,
    }),
  ).open();
  h.watermark(5);
  assert.deepEqual(h.take(), ["W5"]);
});

Deno.test("AsyncWaitOperator (ordered) emits results in input order and watermarks in place", async () => {
  const { fn, finish } = calls();
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(fn, { mode: "ordered" }),
  ).open();
  h.element({ key: "r", n: 1 }, 0).element({ key: "r", n: 2 }, 1).watermark(2)
    .element({ key: "r", n: 3 }, 3);
  finish("r2");
  finish("r3");
  await h.mail();
  assert.deepEqual(h.take(), []);
  finish("r1");
  await h.mail();
  assert.deepEqual(h.take(), ["R(r1!)@0", "R(r2!)@1", "W2", "R(r3!)@3"]);
});

Deno.test("AsyncWaitOperator (unordered) lets results overtake within a segment but never cross a watermark", async () => {
  const { fn, finish } = calls();
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(fn, { mode: "unordered" }),
  ).open();
  h.element({ key: "r", n: 1 }, 0).element({ key: "r", n: 2 }, 1).watermark(2)
    .element({ key: "r", n: 3 }, 3);
  finish("r3");
  finish("r2");
  await h.mail();
  assert.deepEqual(h.take(), ["R(r2!)@1"]);
  finish("r1");
  await h.mail();
  assert.deepEqual(h.take(), ["R(r1!)@0", "W2", "R(r3!)@3"]);
});

Deno.test("AsyncWaitOperator counts spawned follow-up work toward its input", async () => {
  const follow = deferred<string>();
  const h = new OperatorHarness<string, string>(
    new AsyncWaitOperator<string, string>((v, ctx) => {
      ctx.spawn(follow.promise);
      return Promise.resolve(`${v}-main`);
    }, { mode: "keyed", keySelector: () => "k" }),
  ).open();
  h.element("a", 7).watermark(8);
  await h.mail();
  assert.deepEqual(h.take(), []);
  follow.resolve("a-follow");
  await h.mail();
  assert.deepEqual(h.take(), ["R(a-main)@7", "R(a-follow)@7", "W8"]);
});

Deno.test("AsyncWaitOperator applies back-pressure at capacity and reports its gauges", async () => {
  const { fn, finish } = calls();
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(fn, { mode: "ordered", capacity: 2 }),
  ).open();
  h.element({ key: "r", n: 1 }, 0);
  assert.equal(h.operator.isBackPressured!(), false);
  h.element({ key: "r", n: 2 }, 1);
  assert.equal(h.operator.isBackPressured!(), true);
  assert.equal(h.gauges.get("asyncInFlight")!(), 2);
  finish("r1");
  await h.mail();
  assert.equal(h.operator.isBackPressured!(), false);
});

Deno.test("AsyncWaitOperator times out a slow call with the timeout handler and ignores its late result", async () => {
  const { fn, finish } = calls();
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(fn, {
      mode: "ordered",
      timeoutMs: 1_000,
      onTimeout: (c) => `${c.key}${c.n}-timeout`,
    }),
  ).open();
  h.element({ key: "r", n: 1 }, 0);
  assert.equal(h.operator.nextProcessingTime(), 1_000);
  h.clock.set(1_000);
  h.operator.onProcessingTime(1_000);
  assert.deepEqual(h.take(), ["R(r1-timeout)@0"]);
  finish("r1");
  await h.mail();
  assert.deepEqual(h.take(), []);
});

Deno.test("AsyncWaitOperator retries a failed call with exponential backoff, then fails with a clear error", async () => {
  let attempts = 0;
  const h = new OperatorHarness<string, string>(
    new AsyncWaitOperator<string, string>(() => {
      attempts++;
      return Promise.reject(new Error("service down"));
    }, { mode: "ordered", retries: 2, backoffMs: 100 }),
  ).open();
  h.element("a", 5);
  await h.mail();
  assert.equal(h.operator.nextProcessingTime(), 100);
  h.clock.set(100);
  h.operator.onProcessingTime(100);
  await h.mail();
  assert.equal(h.operator.nextProcessingTime(), 300);
  h.clock.set(300);
  h.operator.onProcessingTime(300);
  await new Promise((r) => setTimeout(r, 0));
  assert.throws(() => h.operator.processMail!(), {
    message: /record at 5 after 3 attempt\(s\): service down/,
  });
  assert.equal(attempts, 3);
});

Deno.test("AsyncWaitOperator snapshots in-flight records and held watermarks, and re-runs them after a restore", async () => {
  const first = calls();
  const h = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(first.fn, {
      mode: "keyed",
      keySelector: (c) => c.key,
    }),
  ).open();
  h.element({ key: "A", n: 1 }, 100).element({ key: "B", n: 1 }, 110).watermark(
    150,
  );
  first.finish("B1");
  await h.mail();
  assert.deepEqual(h.take(), ["R(B1!)@110"]);
  const snapshot = structuredClone(
    h.operator.snapshotState(1, { watermarks: true }),
  );
  assert.deepEqual(snapshot, {
    pending: [{ value: { key: "A", n: 1 }, timestamp: 100 }, {
      watermark: 150,
    }],
  });
  const second = calls();
  const restored = new OperatorHarness<Call, string>(
    new AsyncWaitOperator<Call, string>(second.fn, {
      mode: "keyed",
      keySelector: (c) => c.key,
    }),
  );
  restored.operator.restoreState(snapshot);
  restored.open();
  assert.deepEqual([...second.pending.keys()], ["A1"], "A1 is called again");
  second.finish("A1");
  await restored.mail();
  assert.deepEqual(restored.take(), ["R(A1!)@100", "W150"]);
  assert.deepEqual(h.operator.snapshotState(1, { watermarks: false }), {
    pending: [{ value: { key: "A", n: 1 }, timestamp: 100 }],
  });
});

// --- a record whose call fails for good is set aside --------------------

Deno.test("AsyncWaitOperator sets aside a record whose call throws, rejects or times out, emits the others in order and releases the watermark", async () => {
  const h = guardHarness({
    operators: () => [
      new AsyncWaitOperator<string, string>((v) => {
        if (v === "sync") throw new TypeError("Cannot call for 'sync'");
        if (v === "reject") return Promise.reject(new Error("service down"));
        if (v === "hang") return new Promise(() => {});
        return Promise.resolve(v.toUpperCase());
      }, { mode: "ordered", timeoutMs: 50 }),
    ],
    clock: new ManualClock(0),
  });
  h.push(["a", "sync", "reject", "hang", "b"], [1, 2, 3, 4, 5]);
  h.watermark(10);
  await new Promise((r) => setTimeout(r, 0));
  h.subtask.processMail();
  assert.deepEqual(h.out, ["A@1"], "b waits behind the hanging call");
  h.clock.set(50);
  h.subtask.onProcessingTime(50);
  assert.deepEqual(h.out, ["A@1", "B@5"]);
  const letters = h.letters();
  assert.deepEqual(letters.map((l) => [l.value, l.timestamp]), [
    ["sync", 2],
    ["reject", 3],
    ["hang", 4],
  ]);
  assert.match(letters[0].error.message, /after 1 attempt\(s\): Cannot call/);
  assert.match(letters[2].error.message, /timed out after 50 ms/);
  assert.equal(h.subtask.inFlight, 0);
});

Deno.test("AsyncWaitOperator sets aside a record whose key selector throws in keyed mode", () => {
  const h = guardHarness({
    operators: () => [
      new AsyncWaitOperator<{ k?: string }, string>(
        () => Promise.resolve("x"),
        { mode: "keyed", keySelector: (v) => v.k!.length },
      ),
    ],
  });
  h.push([{ k: "a" }, {}], [1, 2]);
  assert.deepEqual(h.letters().map((l) => l.position), ["channel 0, record 1"]);
  assert.equal(h.subtask.inFlight, 1);
});

Deno.test("AsyncWaitOperator sets aside a record whose onTimeout throws, with what it threw, and emits the others in order", () => {
  const h = guardHarness({
    operators: () => [
      new AsyncWaitOperator<string, string>(() => new Promise(() => {}), {
        mode: "ordered",
        timeoutMs: 50,
        onTimeout(v) {
          if (v === "bad") throw new RangeError(`Cannot default '${v}'`);
          return `${v}?`;
        },
      }),
    ],
    clock: new ManualClock(0),
  });
  h.push(["a", "bad", "b"], [1, 2, 3]);
  h.watermark(10);
  h.clock.set(50);
  h.subtask.onProcessingTime(50);
  assert.deepEqual(h.out, ["a?@1", "b?@3"]);
  const [letter, ...rest] = h.letters();
  assert.equal(rest.length, 0);
  assert.deepEqual([letter.value, letter.timestamp, letter.error], [
    "bad",
    2,
    { name: "RangeError", message: "Cannot default 'bad'" },
  ]);
  assert.equal(h.subtask.inFlight, 0);
});
