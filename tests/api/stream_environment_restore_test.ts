// StreamEnvironment.execute() on a store with history: every restore path
// (none, an older id, a corrupt latest checkpoint, all of them corrupt)
// runs to the end with the failure-free table, numbering its checkpoints
// above every id the store ever held.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { KvStorage } from "../../src/actors/kv/kv_storage.ts";
import { UnreadableCheckpointsError } from "../../src/actors/unreadable_checkpoints_error.ts";
import {
  expectedSums,
  readSums,
  SUMS_CHECKPOINTS,
  sumsCheckpointKeys,
  sumsJob,
  sumsStore,
} from "../_support/sums_job.ts";

/**
 * Runs the job until it has saved checkpoints 1 to `count`, then drops it
 * (a crash): the store holds that history, the table part of the output.
 */
async function history(
  kv: Deno.Kv,
  clock: ManualClock,
  count = 4,
  retainedCheckpoints = 3,
): Promise<void> {
  const runtime = sumsJob(kv, clock, { retainedCheckpoints }).createRuntime();
  while ((runtime.latestCheckpoint?.id ?? 0) < count) {
    if (!runtime.step()) {
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
    await runtime.flushCheckpoints();
  }
  assert.ok(
    (await readSums(kv)).size < expectedSums().size,
    "the crash leaves part of the output to do",
  );
}

/** One test on a fresh in-memory KV and clock. */
function kvTest(
  name: string,
  fn: (kv: Deno.Kv, clock: ManualClock) => Promise<void>,
): void {
  Deno.test(name, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      await fn(kv, new ManualClock(0));
    } finally {
      kv.close();
    }
  });
}

for (const retain of [3, 1]) {
  kvTest(
    `StreamEnvironment.execute({ restore: "none" }) on a store with history runs to the end, numbering checkpoints above the store's (retaining ${retain})`,
    async (kv, clock) => {
      await history(kv, clock, 4, retain);
      const runtime = await sumsJob(kv, clock, { retainedCheckpoints: retain })
        .execute({ restore: "none" });
      assert.deepEqual(await readSums(kv), expectedSums());
      assert.ok(runtime.latestCheckpoint!.id > 4);
      assert.equal(
        await sumsStore(kv).highestId(),
        runtime.latestCheckpoint!.id,
      );
    },
  );
}

kvTest(
  "StreamEnvironment.execute({ restore: id }) of an older checkpoint runs to the end, numbering checkpoints above the store's",
  async (kv, clock) => {
    await history(kv, clock, 4);
    assert.deepEqual((await sumsStore(kv).list()).map((c) => c.id), [2, 3, 4]);
    const runtime = await sumsJob(kv, clock).execute({ restore: 2 });
    assert.deepEqual(await readSums(kv), expectedSums());
    const ids = (await sumsStore(kv).list()).map((c) => c.id);
    assert.ok(ids.at(-1)! > 4, ids.join(" "));
    assert.equal(runtime.latestCheckpoint!.id, ids.at(-1));
  },
);

kvTest(
  "StreamEnvironment.createRuntime() without findCheckpoint() numbers its checkpoints above the store's when run",
  async (kv, clock) => {
    await history(kv, clock, 4);
    const runtime = sumsJob(kv, clock).createRuntime();
    await runtime.run();
    assert.deepEqual(await readSums(kv), expectedSums());
    assert.ok(runtime.latestCheckpoint!.id > 4);
  },
);

for (
  const [damage, spoil] of [
    [
      "a manifest overwritten with garbage",
      (kv: Deno.Kv, id: number) =>
        kv.set([...SUMS_CHECKPOINTS, "v", "cp", id, "m"], "garbage"),
    ],
    [
      "a snapshot deleted",
      (kv: Deno.Kv, id: number) =>
        new KvStorage(kv, SUMS_CHECKPOINTS).delete([
          "cp",
          id,
          "s",
          "sums/source-0/0",
        ]),
    ],
  ] as const
) {
  kvTest(
    `StreamEnvironment.execute() skips a latest checkpoint with ${damage} for the previous one, and runs to the end, twice`,
    async (kv, clock) => {
      await history(kv, clock, 4);
      await spoil(kv, 4);
      const first = await sumsJob(kv, clock).execute();
      assert.deepEqual(await readSums(kv), expectedSums());
      assert.ok(first.latestCheckpoint!.id > 4);
      // Its saves deleted the corrupt checkpoint; a later start restores
      // the newest again.
      assert.deepEqual(await sumsCheckpointKeys(kv, 4), []);
      const again = await sumsJob(kv, clock).execute();
      assert.deepEqual(await readSums(kv), expectedSums());
      assert.ok(again.latestCheckpoint!.id >= first.latestCheckpoint!.id);
    },
  );
}

kvTest(
  'StreamEnvironment.execute() refuses a store whose every manifest is garbage, naming them; execute({ restore: "none" }) then runs to the end',
  async (kv, clock) => {
    await history(kv, clock, 4);
    const before = await readSums(kv);
    for (const id of [2, 3, 4]) {
      await kv.set([...SUMS_CHECKPOINTS, "v", "cp", id, "m"], "garbage");
    }
    await assert.rejects(sumsJob(kv, clock).execute(), (error: unknown) => {
      assert.ok(error instanceof UnreadableCheckpointsError);
      assert.deepEqual(error.checkpoints.map((c) => c.id), [4, 3, 2]);
      assert.match(
        error.message,
        /job 'sums' .*checkpoint 4 \(its manifest cannot be read .*--restore none/,
      );
      return true;
    });
    assert.deepEqual(await readSums(kv), before, "nothing ran");
    const runtime = await sumsJob(kv, clock).execute({ restore: "none" });
    assert.deepEqual(await readSums(kv), expectedSums());
    const ids = (await sumsStore(kv).list()).map((c) => c.id);
    assert.ok(ids.every((id) => id > 4), ids.join(" "));
    assert.equal(runtime.latestCheckpoint!.id, ids.at(-1));
    for (const id of [2, 3, 4]) {
      assert.deepEqual(await sumsCheckpointKeys(kv, id), []);
    }
  },
);
