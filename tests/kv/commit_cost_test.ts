import assert from "node:assert/strict";
import { CommitCost } from "../../src/kv/commit_cost.ts";
import { KV_LIMITS } from "../../src/kv/limits.ts";
import { keyCost } from "../../src/kv/kv_write.ts";

Deno.test("CommitCost counts a set's key twice in the payload and once in the written keys, a delete's once, a check's once", () => {
  const cost = new CommitCost(5);
  cost.addSized(10, 100);
  cost.addSized(7, null);
  assert.deepEqual(
    { mutations: cost.mutations, payload: cost.payload, keys: cost.keys },
    { mutations: 2, payload: 5 + 2 * 10 + 100 + 7, keys: 10 },
  );
  const byKey = new CommitCost();
  byKey.addCheck(["a"]);
  byKey.addSet(["a"], 16);
  byKey.add({ key: ["b"], value: 3 });
  byKey.add({ key: ["c"], value: null });
  const k = keyCost(["a"]);
  assert.equal(k, 4, "one byte more than its encoding");
  assert.equal(byKey.payload, k + (2 * k + 16) + (2 * k + 16) + k);
  assert.equal(byKey.keys, 2 * k);
});

Deno.test("CommitCost.fitsWith() and fits() stop at each of Deno KV's commit limits", () => {
  const mutations = new CommitCost();
  for (let i = 0; i < KV_LIMITS.mutations; i++) mutations.addSized(1, null);
  assert.ok(mutations.fits());
  assert.ok(!mutations.fitsWithSized(1, null));

  const payload = new CommitCost(KV_LIMITS.mutationBytes - 10);
  assert.ok(payload.fitsWithSized(10, null));
  assert.ok(!payload.fitsWithSized(11, null));
  assert.ok(!payload.fitsWithSized(5, 1));

  const keys = new CommitCost();
  keys.addSized(KV_LIMITS.keyTotalBytes, 0);
  assert.ok(keys.fits());
  assert.ok(!keys.fitsWithSized(1, 0));
  assert.ok(keys.fitsWithSized(1, null), "a delete writes no key");
  keys.addSized(1, 0);
  assert.ok(!keys.fits());
});
