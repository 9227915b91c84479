// planShare(): how KV-runtime workers divide a job's actors.

import assert from "node:assert/strict";
import {
  type LeaseView,
  planShare,
  type ShareInput,
} from "../../../src/actors/kv/_sharing.ts";

const ACTORS = ["a", "b", "c", "d", "e"];

function plan(overrides: Partial<ShareInput>) {
  return planShare({
    actors: ACTORS,
    live: new Set(),
    retryAt: new Map(),
    leases: new Map(),
    workers: 1,
    now: 1_000,
    ...overrides,
  });
}

Deno.test("planShare() lets a lone worker take every free actor", () => {
  assert.deepEqual(plan({}), { take: ACTORS, giveBack: 0 });
});

Deno.test("planShare() takes free and expired actors up to ceil(actors / workers), skipping held ones", () => {
  const leases = new Map([
    ["a", { owner: "w2", expiresAt: 2_000 }], // held
    ["b", { owner: "w3", expiresAt: 1_000 }], // expired at now
    ["c", { owner: "w3", expiresAt: 500 }], // expired
  ]);
  // A third worker has nothing yet: first everyone to floor(5 / 3) = 1...
  assert.deepEqual(plan({ leases, workers: 3 }), {
    take: ["b"],
    giveBack: 0,
  });
  // ...then up to ceil(5 / 3) = 2 once every worker has its floor.
  const held = new Map([
    ...leases,
    ["b", { owner: "me", expiresAt: 2_000 }],
    ["d", { owner: "w3", expiresAt: 2_000 }],
  ]);
  assert.deepEqual(plan({ leases: held, workers: 3, live: new Set(["b"]) }), {
    take: ["c"],
    giveBack: 0,
  });
  assert.deepEqual(plan({ leases, workers: 5 }).take, ["b"]);
  // Two workers, w2 below floor(5 / 2) = 2: this one stops at the floor.
  const mine = new Map([...leases, ["e", { owner: "me", expiresAt: 2_000 }]]);
  assert.deepEqual(plan({ leases: mine, workers: 2, live: new Set(["e"]) }), {
    take: ["b"],
    giveBack: 0,
  });
});

Deno.test("planShare() does not take an actor before its retry time after a failure", () => {
  const retryAt = new Map([["a", 1_001], ["b", 1_000]]);
  assert.deepEqual(plan({ retryAt, workers: 5 }).take, ["b"]);
});

Deno.test("planShare() gives back what is above the share only while another worker has room", () => {
  const mine = new Map(
    ACTORS.map((id) => [id, { owner: "me", expiresAt: 5_000 }]),
  );
  const live = new Set(ACTORS);
  // A second worker with nothing: give back 5 - ceil(5 / 2) = 2.
  assert.deepEqual(plan({ live, leases: mine, workers: 2 }), {
    take: [],
    giveBack: 2,
  });
  // Alone: keep everything.
  assert.equal(plan({ live, leases: mine, workers: 1 }).giveBack, 0);
  // Two workers already at their share (3 and 2): nobody gives back.
  const split = new Map<string, LeaseView>(
    ACTORS.map((
      id,
      i,
    ) => [id, { owner: i < 3 ? "me" : "w2", expiresAt: 5_000 }]),
  );
  assert.equal(
    plan({ live: new Set(ACTORS.slice(0, 3)), leases: split, workers: 2 })
      .giveBack,
    0,
  );
});

Deno.test("planShare() rebalances 4 actors held 2, 2, 0 by three workers into 2, 1, 1 without taking back what it gave", () => {
  const actors = ["a", "b", "c", "d"];
  const lease = (owner: string) => ({ owner, expiresAt: 5_000 });
  // w1 holds a and b, w3 holds c and d, w2 nothing.
  const leases = new Map([
    ["a", lease("w1")],
    ["b", lease("w1")],
    ["c", lease("w3")],
    ["d", lease("w3")],
  ]);
  const w1 = plan({ actors, live: new Set(["a", "b"]), leases, workers: 3 });
  assert.deepEqual(w1, { take: [], giveBack: 1 });
  // w1 gave b back: it does not take it again while w2 has nothing.
  const afterGive = new Map(leases);
  afterGive.delete("b");
  assert.deepEqual(
    plan({ actors, live: new Set(["a"]), leases: afterGive, workers: 3 }),
    { take: [], giveBack: 0 },
  );
  // w2 takes one; then, nobody short, the free one goes to whoever looks.
  assert.deepEqual(
    plan({ actors, live: new Set(), leases: afterGive, workers: 3 }).take,
    ["b"],
  );
  const settled = new Map([...afterGive, ["b", lease("w2")]]);
  settled.delete("d");
  assert.deepEqual(
    plan({ actors, live: new Set(["a"]), leases: settled, workers: 3 }),
    { take: ["d"], giveBack: 0 },
  );
});
