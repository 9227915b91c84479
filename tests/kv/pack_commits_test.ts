import assert from "node:assert/strict";
import {
  commitAll,
  packBySize,
  packCommits,
} from "../../src/kv/pack_commits.ts";
import type { KvWrite } from "../../src/kv/kv_write.ts";

Deno.test("packCommits() keeps writes in order and fills each commit up to the 800 KiB payload", () => {
  const writes: KvWrite[] = Array.from({ length: 30 }, (_, i) => ({
    key: ["t", i],
    value: new Uint8Array(60_000),
  }));
  const commits = packCommits(writes);
  assert.deepEqual(commits.map((c) => c.length), [13, 13, 4]);
  assert.deepEqual(commits.flat(), writes);
  assert.deepEqual(packCommits([]), []);
});

Deno.test("packBySize() leaves room for checks in every commit, and gives an oversized mutation a commit of its own", () => {
  const items = [1, 2, 3];
  const sizer = {
    keyBytes: () => 0,
    valueBytes: (n: number) => n === 2 ? 900_000 : 400_000,
  };
  assert.deepEqual(packBySize(items, sizer), [[1], [2], [3]]);
  assert.deepEqual(
    packBySize([1, 1], { keyBytes: () => 0, valueBytes: () => 400_000 }),
    [[1, 1]],
  );
  assert.deepEqual(
    packBySize([1, 1], {
      keyBytes: () => 0,
      valueBytes: () => 400_000,
      checkBytes: 20_000,
    }),
    [[1], [1]],
  );
});

Deno.test("commitAll() writes and deletes over several commits", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(["gone"], 1);
    await commitAll(kv, [
      ...Array.from({ length: 1_200 }, (_, i): KvWrite => ({
        key: ["n", i],
        value: i,
      })),
      { key: ["gone"], value: null },
    ]);
    assert.equal((await kv.get(["n", 1_199])).value, 1_199);
    assert.equal((await kv.get(["gone"])).value, null);
  } finally {
    kv.close();
  }
});
