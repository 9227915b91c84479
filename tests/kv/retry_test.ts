// retryTransient: retries of Deno KV calls that failed for a passing reason.
// Sleep and jitter are injected, so no test waits.

import assert from "node:assert/strict";
import {
  isTransient,
  PersistentKvError,
  retryTransient,
} from "../../src/kv/retry.ts";

/** A sleep that records what it was asked to wait, and does not wait. */
function recordingSleep() {
  const waits: number[] = [];
  const sleep = (ms: number) => {
    waits.push(ms);
    return Promise.resolve();
  };
  return { waits, sleep };
}

/** A call that throws each of `errors` in turn, then returns `value`. */
function failingThen<T>(errors: unknown[], value: T) {
  let calls = 0;
  const call = () => {
    const error = errors[calls++];
    return error === undefined ? Promise.resolve(value) : Promise.reject(error);
  };
  return { call, calls: () => calls };
}

Deno.test("retryTransient() returns the value of a call that succeeds at once", async () => {
  const { waits, sleep } = recordingSleep();
  const { call, calls } = failingThen([], "ok");
  assert.equal(await retryTransient(call, { sleep, random: () => 0.5 }), "ok");
  assert.equal(calls(), 1);
  assert.deepEqual(waits, []);
});

Deno.test("retryTransient() retries transient errors and returns the value", async () => {
  const { waits, sleep } = recordingSleep();
  const { call, calls } = failingThen([
    new Error("database is locked"),
    new Error("SQLITE_BUSY: database table is locked"),
    new TypeError("connection reset by peer"),
  ], 42);
  const value = await retryTransient(call, { sleep, random: () => 0.5 });
  assert.equal(value, 42);
  assert.equal(calls(), 4);
  // One wait before each retry, none after the success.
  assert.equal(waits.length, 3);
});

Deno.test("retryTransient() throws a non-transient error at once", async () => {
  const { waits, sleep } = recordingSleep();
  const error = new RangeError("value too large (max 65536 bytes)");
  const { call, calls } = failingThen([error], "never");
  await assert.rejects(
    retryTransient(call, { sleep, random: () => 0.5 }),
    (thrown: unknown) => {
      assert.equal(thrown, error); // the same object, not wrapped
      return true;
    },
  );
  assert.equal(calls(), 1);
  assert.deepEqual(waits, []);
});

Deno.test("retryTransient() throws a non-transient error that follows transient ones", async () => {
  const { waits, sleep } = recordingSleep();
  const error = new TypeError("Key too large for write");
  const { call, calls } = failingThen(
    [new Error("database is locked"), error],
    "never",
  );
  await assert.rejects(
    retryTransient(call, { sleep, random: () => 0.5 }),
    (thrown: unknown) => thrown === error,
  );
  assert.equal(calls(), 2);
  assert.equal(waits.length, 1);
});

Deno.test("retryTransient() gives up after `attempts` transient failures with PersistentKvError", async () => {
  const { waits, sleep } = recordingSleep();
  const errors = [
    new Error("database is locked"),
    new Error("database is locked"),
    new Error("operation timed out after 5s"),
  ];
  const { call, calls } = failingThen(errors, "never");
  await assert.rejects(
    retryTransient(call, {
      attempts: 3,
      sleep,
      random: () => 0.5,
      what: "commit actor 'j/map-1/0'",
    }),
    (error: unknown) => {
      assert.ok(error instanceof PersistentKvError);
      assert.ok(error instanceof Error);
      assert.equal(error.name, "PersistentKvError");
      assert.equal(error.code, "KV_UNAVAILABLE");
      assert.ok(error.message.includes("commit actor 'j/map-1/0'"));
      assert.ok(error.message.includes("operation timed out after 5s"));
      assert.ok(error.message.includes("3 attempts"));
      assert.equal(error.cause, errors[2]);
      return true;
    },
  );
  assert.equal(calls(), 3);
  // No wait after the last attempt.
  assert.equal(waits.length, 2);
});

Deno.test("retryTransient() names Deno KV when no `what` is given, and retries 8 times by default", async () => {
  const { waits, sleep } = recordingSleep();
  const errors = Array.from(
    { length: 20 },
    (_, i) => new Error(`database is locked #${i + 1}`),
  );
  const { call, calls } = failingThen(errors, "never");
  await assert.rejects(
    retryTransient(call, { sleep, random: () => 0.5 }),
    (error: unknown) => {
      assert.ok(error instanceof PersistentKvError);
      assert.match(error.message, /^Cannot reach Deno KV /);
      assert.ok(error.message.includes("database is locked #8"));
      assert.equal(error.cause, errors[7]);
      return true;
    },
  );
  assert.equal(calls(), 8);
  assert.equal(waits.length, 7);
});

Deno.test("retryTransient() with attempts 1 does not retry", async () => {
  const { waits, sleep } = recordingSleep();
  const { call, calls } = failingThen([new Error("busy")], "never");
  await assert.rejects(
    retryTransient(call, { attempts: 1, sleep, random: () => 0.5 }),
    PersistentKvError,
  );
  assert.equal(calls(), 1);
  assert.deepEqual(waits, []);
});

Deno.test("retryTransient() reports a thrown non-Error by its string", async () => {
  const { sleep } = recordingSleep();
  const { call } = failingThen(["SQLITE_BUSY", "SQLITE_BUSY"], "never");
  await assert.rejects(
    retryTransient(call, { attempts: 2, sleep, random: () => 0.5 }),
    (error: unknown) => {
      assert.ok(error instanceof PersistentKvError);
      assert.ok(error.message.includes('"SQLITE_BUSY"'));
      assert.equal(error.cause, "SQLITE_BUSY");
      return true;
    },
  );
});

Deno.test("retryTransient() backoff bounds double per attempt and are capped by maxMs", async () => {
  const { waits, sleep } = recordingSleep();
  const errors = Array.from(
    { length: 7 },
    () => new Error("database is locked"),
  );
  const { call } = failingThen(errors, "done");
  // Jitter just below 1: each wait is just below its bound.
  const value = await retryTransient(call, {
    attempts: 8,
    baseMs: 10,
    maxMs: 300,
    sleep,
    random: () => 0.999,
  });
  assert.equal(value, "done");
  assert.equal(waits.length, 7);
  // The bound before attempt n + 1 is min(maxMs, baseMs * 2^n).
  const bounds = [20, 40, 80, 160, 300, 300, 300];
  assert.deepEqual(waits, bounds.map((bound) => Math.floor(0.999 * bound)));
  for (const wait of waits) {
    assert.ok(Number.isInteger(wait));
    assert.ok(wait >= 0 && wait < 300);
  }
  // Grows until the cap, then stays there.
  for (let i = 1; i < 4; i++) assert.ok(waits[i] > waits[i - 1]);
  assert.equal(waits[4], waits[5]);
  assert.equal(waits[5], waits[6]);
});

Deno.test("retryTransient() waits are the jitter times the bound (full jitter)", async () => {
  const run = async (random: () => number) => {
    const { waits, sleep } = recordingSleep();
    const { call } = failingThen(
      [new Error("busy"), new Error("busy"), new Error("busy")],
      1,
    );
    await retryTransient(call, { baseMs: 100, maxMs: 10_000, sleep, random });
    return waits;
  };
  assert.deepEqual(await run(() => 0), [0, 0, 0]);
  assert.deepEqual(await run(() => 0.5), [100, 200, 400]);
  assert.deepEqual(await run(() => 0.25), [50, 100, 200]);
});

Deno.test("isTransient() accepts locks, timeouts and dropped connections", () => {
  for (
    const message of [
      "database is locked",
      "Database Is Locked",
      "database table is locked",
      "SQLITE_BUSY",
      "error: resource busy",
      "request timed out",
      "Timeout while waiting for KV",
      "connection reset",
      "connection closed before message completed",
      "connection refused",
      "Resource temporarily unavailable",
      "EAGAIN",
    ]
  ) {
    assert.equal(isTransient(new Error(message)), true, message);
  }
  assert.equal(isTransient("database is locked"), true);
  assert.equal(isTransient(new TypeError("connection reset")), true);
});

Deno.test("isTransient() rejects bad arguments and limits", () => {
  for (
    const error of [
      new RangeError("value too large (max 65536 bytes)"),
      new TypeError("Key too large for write (max 2048 bytes)"),
      new TypeError("too many mutations in atomic operation"),
      new Error("Invalid key part"),
      new Error(""),
      "permission denied",
      undefined,
      null,
      42,
    ]
  ) {
    assert.equal(isTransient(error), false, String(error));
  }
});
