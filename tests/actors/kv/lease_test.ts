// Lease: single-writer ownership of one actor in Deno KV, with a fencing
// epoch. Every case runs on an in-memory KV and a ManualClock.

import assert from "node:assert/strict";
import { Lease, type LeaseRecord } from "../../../src/actors/kv/lease.ts";
import { ManualClock } from "../../../src/time/clock.ts";

const KEY: Deno.KvKey = ["lease", "j/map-1/0"];
const TTL = 10_000;

/** An in-memory KV, a clock at 0 and two workers' views of one lease. */
async function setup(ttl = TTL) {
  const kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const a = new Lease(kv, KEY, "a", clock, ttl);
  const b = new Lease(kv, KEY, "b", clock, ttl);
  const stored = async () => (await kv.get<LeaseRecord>(KEY)).value;
  return { kv, clock, a, b, stored };
}

Deno.test("Lease.acquire() takes a free lease at epoch 1", async () => {
  const { kv, a, stored } = await setup();
  try {
    assert.equal(a.held, false);
    assert.equal(a.epoch, 0);
    assert.equal(await a.acquire(), true);
    assert.equal(a.held, true);
    assert.equal(a.epoch, 1);
    assert.deepEqual(await stored(), {
      owner: "a",
      epoch: 1,
      expiresAt: TTL,
    });
  } finally {
    kv.close();
  }
});

Deno.test("Lease.acquire() fails while another owner's lease is unexpired", async () => {
  const { kv, clock, a, b, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    assert.equal(await b.acquire(), false);
    assert.equal(b.held, false);
    assert.equal(b.epoch, 0);
    // Still unexpired one millisecond before expiresAt.
    clock.set(TTL - 1);
    assert.equal(await b.acquire(), false);
    assert.deepEqual(await stored(), { owner: "a", epoch: 1, expiresAt: TTL });
    assert.equal(a.held, true);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.acquire() takes over an expired lease and bumps the epoch", async () => {
  const { kv, clock, a, b, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    clock.set(TTL + 1);
    assert.equal(await b.acquire(), true);
    assert.equal(b.held, true);
    assert.equal(b.epoch, 2);
    assert.equal(a.epoch, 1); // `a` does not know yet
    assert.deepEqual(await stored(), {
      owner: "b",
      epoch: 2,
      expiresAt: TTL + 1 + TTL,
    });
  } finally {
    kv.close();
  }
});

Deno.test("Lease.renew() by the old holder fails after a take-over", async () => {
  const { kv, clock, a, b, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    clock.set(TTL + 1);
    assert.equal(await b.acquire(), true);
    // `a` does not know yet.
    assert.equal(a.held, true);
    assert.equal(await a.renew(), false);
    assert.equal(a.held, false);
    assert.equal(a.epoch, 0);
    // The failed renewal wrote nothing.
    assert.deepEqual(await stored(), {
      owner: "b",
      epoch: 2,
      expiresAt: TTL + 1 + TTL,
    });
    // And `b` still holds it.
    assert.equal(await b.renew(), true);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.check fences the old holder's commits after a take-over", async () => {
  const { kv, clock, a, b } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    // Before the take-over the check lets a commit through.
    const before = await kv.atomic().check(a.check).set(["state"], "a-1")
      .commit();
    assert.equal(before.ok, true);
    const stale = a.check;
    clock.set(TTL + 1);
    assert.equal(await b.acquire(), true);
    const result = await kv.atomic().check(stale).set(["state"], "a-2")
      .commit();
    assert.equal(result.ok, false);
    assert.equal((await kv.get(["state"])).value, "a-1");
    // The new holder's check passes.
    const fresh = await kv.atomic().check(b.check).set(["state"], "b-1")
      .commit();
    assert.equal(fresh.ok, true);
    assert.equal((await kv.get(["state"])).value, "b-1");
  } finally {
    kv.close();
  }
});

Deno.test("Lease.renew() changes the check, so an earlier one no longer passes", async () => {
  const { kv, clock, a, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    const first = a.check;
    clock.set(3_000);
    assert.equal(await a.renew(), true);
    assert.equal(a.epoch, 1);
    assert.deepEqual(await stored(), {
      owner: "a",
      epoch: 1,
      expiresAt: 3_000 + TTL,
    });
    assert.notEqual(a.check.versionstamp, first.versionstamp);
    assert.deepEqual(a.check.key, KEY);
    const stale = await kv.atomic().check(first).set(["x"], 1).commit();
    assert.equal(stale.ok, false);
    const current = await kv.atomic().check(a.check).set(["x"], 1).commit();
    assert.equal(current.ok, true);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.acquire() by the holder keeps the epoch and extends the lease", async () => {
  const { kv, clock, a, b, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    clock.set(4_000);
    assert.equal(await a.acquire(), true);
    assert.equal(a.epoch, 1);
    assert.deepEqual(await stored(), {
      owner: "a",
      epoch: 1,
      expiresAt: 4_000 + TTL,
    });
    // Extended: at the first expiry + 1, `b` still cannot take it.
    clock.set(TTL + 1);
    assert.equal(await b.acquire(), false);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.acquire() by a fresh view of the same owner does not take an unexpired lease", async () => {
  const { kv, clock, a, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    // A restarted worker with the same id does not know the versionstamp.
    const restarted = new Lease(kv, KEY, "a", clock, TTL);
    assert.equal(await restarted.acquire(), false);
    assert.deepEqual(await stored(), { owner: "a", epoch: 1, expiresAt: TTL });
  } finally {
    kv.close();
  }
});

Deno.test("Lease.release() lets another owner take the lease at once with a new epoch", async () => {
  const { kv, a, b, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    assert.equal(await b.acquire(), false);
    const stale = a.check;
    await a.release();
    assert.equal(a.held, false);
    assert.equal(a.epoch, 0);
    // The epoch is kept in KV; the next owner bumps it.
    assert.deepEqual(await stored(), { owner: "a", epoch: 1, expiresAt: 0 });
    // Same clock time (0): no waiting for the ttl.
    assert.equal(await b.acquire(), true);
    assert.equal(b.epoch, 2);
    const result = await kv.atomic().check(stale).set(["x"], 1).commit();
    assert.equal(result.ok, false);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.release() does not overwrite a lease taken over meanwhile", async () => {
  const { kv, clock, a, b, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    clock.set(TTL + 1);
    assert.equal(await b.acquire(), true);
    await a.release();
    assert.equal(a.held, false);
    assert.deepEqual(await stored(), {
      owner: "b",
      epoch: 2,
      expiresAt: TTL + 1 + TTL,
    });
    assert.equal(b.held, true);
    assert.equal(await b.renew(), true);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.due() turns true once half the ttl or less is left, at expiresSoonAt()", async () => {
  const { kv, clock, a } = await setup();
  try {
    // Not held: always due.
    assert.equal(a.due(), true);
    clock.set(1_000);
    assert.equal(await a.acquire(), true);
    // expiresAt = 11_000; half the ttl is 5_000.
    assert.equal(a.due(), false);
    assert.equal(a.due(1_000), false);
    assert.equal(a.due(5_999), false);
    assert.equal(a.due(6_000), true); // exactly half left
    assert.equal(a.due(a.expiresSoonAt()), true);
    clock.set(5_999);
    assert.equal(a.due(), false);
    clock.set(6_001);
    assert.equal(a.due(), true);
    // A renewal resets it.
    assert.equal(await a.renew(), true);
    assert.equal(a.due(), false);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.expiresSoonAt() is expiresAt minus half the ttl, Infinity when not held", async () => {
  const { kv, clock, a, b } = await setup();
  try {
    assert.equal(a.expiresSoonAt(), Infinity);
    clock.set(1_000);
    assert.equal(await a.acquire(), true);
    assert.equal(a.expiresSoonAt(), 1_000 + TTL - TTL / 2);
    assert.equal(a.due(a.expiresSoonAt() - 1), false);
    assert.equal(a.due(a.expiresSoonAt() + 1), true);
    clock.set(3_000);
    assert.equal(await a.renew(), true);
    assert.equal(a.expiresSoonAt(), 3_000 + TTL / 2);
    // A failed acquire leaves the other worker with no lease.
    assert.equal(await b.acquire(), false);
    assert.equal(b.expiresSoonAt(), Infinity);
    await a.release();
    assert.equal(a.expiresSoonAt(), Infinity);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.check throws a clear error when the lease is not held", async () => {
  const { kv, clock, a, b } = await setup();
  try {
    assert.throws(() => a.check, (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /^Cannot commit as the lease /);
      assert.ok(error.message.includes(JSON.stringify(KEY)));
      assert.ok(error.message.includes("'a'"));
      assert.match(error.message, /not held/);
      return true;
    });
    assert.equal(await a.acquire(), true);
    assert.deepEqual(a.check.key, KEY);
    assert.equal(typeof a.check.versionstamp, "string");
    clock.set(TTL + 1);
    assert.equal(await b.acquire(), true);
    assert.equal(await a.renew(), false);
    assert.throws(() => a.check, /must be held by 'a'/);
  } finally {
    kv.close();
  }
});

Deno.test("Lease.lost() forgets the lease without touching KV", async () => {
  const { kv, a, b, stored } = await setup();
  try {
    assert.equal(await a.acquire(), true);
    a.lost();
    assert.equal(a.held, false);
    assert.equal(await a.renew(), false);
    assert.deepEqual(await stored(), { owner: "a", epoch: 1, expiresAt: TTL });
    assert.equal(await b.acquire(), false);
  } finally {
    kv.close();
  }
});

Deno.test("Lease constructor rejects a ttlMs that is not a positive safe integer", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new ManualClock(0);
    for (const ttl of [0, 1.5, -1, NaN, Infinity]) {
      assert.throws(
        () => new Lease(kv, KEY, "a", clock, ttl),
        (error: unknown) => {
          assert.ok(error instanceof RangeError);
          assert.match(error.message, /'ttlMs'/);
          assert.ok(error.message.endsWith(`current value is ${ttl}`));
          return true;
        },
      );
    }
    // The smallest valid ttl is accepted and nothing is written.
    const lease = new Lease(kv, KEY, "a", clock, 1);
    assert.equal(lease.held, false);
    assert.equal((await kv.get(KEY)).value, null);
  } finally {
    kv.close();
  }
});
