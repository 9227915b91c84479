import assert from "node:assert/strict";
import { planCommit, planSweep } from "../../src/kv/commit_plan.ts";
import type { PlanOp } from "../../src/kv/commit_plan.ts";
import { PART_BYTES, readMarker } from "../../src/kv/chunks.ts";
import { encodedKeySize, orderedKey } from "../../src/kv/key_encoding.ts";
import { KV_LIMITS } from "../../src/kv/limits.ts";

function put(key: (string | number)[], bytes: number): PlanOp {
  return {
    key,
    keyBytes: encodedKeySize(key),
    id: orderedKey(key),
    bytes: new Uint8Array(bytes),
  };
}

function del(key: (string | number)[]): PlanOp {
  return { key, keyBytes: encodedKeySize(key), id: orderedKey(key) };
}

Deno.test("planCommit() makes a batch that fits one commit one commit: inline values, new parts and deletes of replaced parts", () => {
  const old = new Map([[orderedKey(["b"]), {
    version: "x".repeat(22),
    parts: 2,
    bytes: 100_000,
  }]]);
  const plan = planCommit({
    ops: [put(["a"], 10), del(["b"]), put(["c"], 70_000)],
    old,
    prefixBytes: 20,
  });
  assert.deepEqual(plan.staged, []);
  assert.deepEqual(plan.cleanup, []);
  assert.equal(plan.marker, null);
  const keys = plan.main.map((m) => m.key);
  assert.deepEqual(keys.slice(0, 3), [["v", "a"], ["v", "b"], ["v", "c"]]);
  assert.equal(plan.main[0].value![0], 1, "inline");
  assert.equal(plan.main[1].value, undefined, "a delete");
  assert.equal(plan.main[2].value![0], 2, "a manifest");
  // Two new parts of "c", then the deletes of "b"'s two old parts.
  assert.deepEqual(plan.main.slice(3).map((m) => [m.key[0], m.key[2]]), [
    ["p", 0],
    ["p", 1],
    ["p", 0],
    ["p", 1],
  ]);
  assert.equal(plan.main[3].value!.length, PART_BYTES);
});

Deno.test("planCommit() stages the parts of a batch over one commit under a marker, switches in one commit, then deletes replaced parts", () => {
  const old = new Map([[orderedKey(["a"]), {
    version: "y".repeat(22),
    parts: 20,
    bytes: 20 * PART_BYTES,
  }]]);
  const plan = planCommit({
    ops: [put(["a"], 3_000_000), put(["small"], 100)],
    old,
    prefixBytes: 10,
    checks: { count: 1, bytes: 30 },
  });
  assert.ok(plan.staged.length > 1);
  assert.ok(plan.marker !== null);
  // The first staged commit sets the marker, listing the new parts.
  const [first] = plan.staged[0];
  assert.deepEqual(first.key, plan.marker);
  const fresh = readMarker(first.value);
  assert.equal(fresh.length, 1);
  assert.equal(fresh[0][1], Math.ceil(3_000_000 / PART_BYTES));
  // The switch: both value keys, and the marker now lists the old parts.
  assert.deepEqual(plan.main.map((m) => m.key[0]), ["v", "v", "g"]);
  assert.deepEqual(readMarker(plan.main[2].value), [["y".repeat(22), 20]]);
  // The clean-up deletes the 20 old parts, then the marker.
  const cleanup = plan.cleanup.flat();
  assert.equal(cleanup.length, 21);
  assert.deepEqual(cleanup.at(-1)!.key, plan.marker);
  for (const commit of [...plan.staged, plan.main, ...plan.cleanup]) {
    assert.ok(commit.length <= KV_LIMITS.mutations);
  }
});

Deno.test("planCommit() throws a RangeError naming the limit a switch commit exceeds", () => {
  const many = Array.from({ length: 1_001 }, (_, i) => put(["k", i], 1));
  assert.throws(
    () => planCommit({ ops: many, old: new Map(), prefixBytes: 0 }),
    { name: "RangeError", message: /at most 1000 mutations.*1001/ },
  );
  assert.throws(
    () =>
      planCommit({
        ops: [put(["k"], 1)],
        old: new Map(),
        prefixBytes: 0,
        checks: { count: 11, bytes: 0 },
      }),
    { name: "RangeError", message: /10 checks/ },
  );
});

Deno.test("planSweep() deletes a marker's parts and then the marker, in commits within the limits", () => {
  const commits = planSweep([["v1", 1_500], ["v2", 1]], ["g", "m"], 100);
  const all = commits.flat();
  assert.equal(all.length, 1_502);
  assert.deepEqual(all.at(-1), { key: ["g", "m"], keyBytes: 27 });
  assert.ok(all.every((m) => m.value === undefined));
  assert.ok(commits.every((c) => c.length <= KV_LIMITS.mutations));
});
