import assert from "node:assert/strict";
import type { AppendRecord } from "../../src/connectors/sources/kv_log.ts";
import {
  type Event,
  eventLog,
  eventsToSeed,
  seedEvents,
} from "../../examples/durable_counts.ts";

/** Every partition's records, in order. */
async function contents(kv: Deno.Kv): Promise<AppendRecord<Event>[][]> {
  const log = eventLog(kv);
  const out: AppendRecord<Event>[][] = [];
  for (let p = 0; p < log.numPartitions; p++) {
    const records = await log.read(p, 0, 10_000);
    out.push(records.map(({ value, timestamp }) => ({ value, timestamp })));
  }
  return out;
}

Deno.test("examples/durable_counts.ts: seedEvents() appends only what a partly seeded log lacks, and the log ends as if seeded at once", async () => {
  using whole = await Deno.openKv(":memory:");
  assert.equal(await seedEvents(whole, 5_001), 5_001);
  const expected = await contents(whole);

  // A seeding killed after some appends: partition 0 complete, partition
  // 1 partly, the others empty.
  using partial = await Deno.openKv(":memory:");
  const log = eventLog(partial);
  await log.append(0, expected[0]);
  await log.append(1, expected[1].slice(0, 700));
  assert.equal(await eventsToSeed(partial, 5_001), 5_001 - 1_251 - 700);
  assert.equal(await seedEvents(partial, 5_001), 5_001 - 1_251 - 700);
  assert.deepEqual(await contents(partial), expected);
  assert.equal(await eventsToSeed(partial, 5_001), 0);
  assert.equal(await seedEvents(partial, 5_001), 0, "a complete log is kept");
  assert.deepEqual(await contents(partial), expected);
});

Deno.test("examples/durable_counts.ts: seedEvents() refuses a log holding more than the events asked for, naming the partition", async () => {
  using kv = await Deno.openKv(":memory:");
  await seedEvents(kv, 400);
  await assert.rejects(seedEvents(kv, 100), {
    name: "RangeError",
    message:
      /partition 0 must hold at most 25 of 100 events: current value is 100/,
  });
  await assert.rejects(eventsToSeed(kv, 100), { name: "RangeError" });
});
