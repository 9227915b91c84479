import assert from "node:assert/strict";
import {
  CheckpointIds,
  readHighestId,
} from "../../src/actors/checkpoint_ids.ts";

Deno.test("readHighestId() is 0 without a store that can say, and checks what the store says", async () => {
  assert.equal(await readHighestId(undefined), 0);
  assert.equal(await readHighestId({}), 0);
  assert.equal(await readHighestId({ highestId: () => Promise.resolve(7) }), 7);
  await assert.rejects(
    readHighestId({ highestId: () => Promise.resolve(-1) }),
    { name: "RangeError", message: /'checkpointStore.highestId\(\)'/ },
  );
});

Deno.test("readHighestId() reads through the retry it is given", async () => {
  const seen: string[] = [];
  const id = await readHighestId(
    { highestId: () => Promise.resolve(3) },
    (read) => {
      seen.push("retry");
      return read();
    },
  );
  assert.equal(id, 3);
  assert.deepEqual(seen, ["retry"]);
});

Deno.test("CheckpointIds numbers above the last id, a restored id and the store's highest (ids only grow within a store)", async () => {
  let reads = 0;
  const ids = new CheckpointIds({
    highestId: () => {
      reads++;
      return Promise.resolve(10);
    },
  }, 2);
  assert.equal(ids.known, false);
  ids.raise(4);
  assert.equal(ids.next(), 5);
  await Promise.all([ids.read(), ids.read()]);
  await ids.read();
  assert.equal(reads, 1);
  assert.equal(ids.known, true);
  assert.equal(ids.isAboveStore(5), false);
  assert.equal(ids.next(), 11);
  assert.equal(ids.isAboveStore(11), true);
  assert.equal(ids.last, 11);
});

Deno.test("CheckpointIds reads a store again after a failed read, and knows at once a store that cannot say", async () => {
  let fail = true;
  const ids = new CheckpointIds({
    highestId: () =>
      fail ? Promise.reject(new Error("down")) : Promise.resolve(1),
  }, 0);
  await assert.rejects(ids.read(), /down/);
  fail = false;
  await ids.read();
  assert.equal(ids.last, 1);
  assert.equal(new CheckpointIds(undefined, 0).known, true);
});
