// The acceptance test of "no record can kill a job": fast-check posts
// random and adversarial batches (keys that are null, objects, arrays,
// booleans or 2,100 characters long; timestamps at the safe-integer
// limits, outside the documented range, fractional or strings; records
// without a key; records the job's own code throws on) to a running
// `deno task dev` of a job fed over HTTP, then lets event time run to the
// end. The service never exits; every accepted record is counted in the
// table, dropped as late (and counted as such), or in the dead-letter log;
// nothing refused was appended; and a restart after the end changes
// nothing.

import assert from "node:assert/strict";
import fc from "fast-check";
import { readTable } from "../../src/connectors/sinks/kv_table.ts";
import { MAX_TIMESTAMP, MIN_TIMESTAMP } from "../../src/time/constants.ts";
import { Dev } from "../_support/dev_process.ts";
import { freePort } from "../_support/free_port.ts";
import { waitFor } from "../_support/wait_for.ts";
import { type KeyCount, TABLE } from "./jobs/fuzz_counts.ts";

const JOB_FILE = "tests/e2e/jobs/fuzz_counts.ts";
const T0 = Date.UTC(2026, 0, 1);
const SAFE = Number.MAX_SAFE_INTEGER;

const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("a", "b", "c", "d", "1") },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 5 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      null,
      {},
      [],
      { a: 1 },
      [1, 2],
      true,
      "k".repeat(2_100),
      "é".repeat(600),
    ),
  },
);

// Mostly inside a few minutes of event time (so windows fire), some
// anywhere in the documented range, some outside it or not integers.
const ts = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: T0, max: T0 + 300_000 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: MIN_TIMESTAMP, max: MAX_TIMESTAMP - 20_000 }),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      SAFE,
      -SAFE,
      SAFE - 1,
      MAX_TIMESTAMP + 1,
      MIN_TIMESTAMP - 1,
      1.5,
      "1767225600000",
      null,
    ),
  },
);

const record = fc.record(
  { key, ts, boom: fc.boolean(), note: fc.string({ maxLength: 10 }) },
  { requiredKeys: ["ts"] },
).map((r) => (r.boom === false ? { ...r, boom: undefined } : r));

const batch = fc.array(record, { minLength: 1, maxLength: 25 });

interface Summary {
  name: string;
  recordsIn: number;
  lateRecordsDropped: number;
  deadLetters: number;
}

async function summary(port: number): Promise<Summary> {
  const response = await fetch(`http://127.0.0.1:${port}/jobs`);
  const { jobs } = await response.json();
  return jobs[0];
}

async function counted(store: string): Promise<Map<string, number>> {
  const kv = await Deno.openKv(store);
  try {
    const rows = await readTable<KeyCount>(kv, TABLE);
    return new Map([...rows.values()].map((r) => [r.id, r.count]));
  } finally {
    kv.close();
  }
}

function total(rows: Map<string, number>): number {
  return [...rows.values()].reduce((a, b) => a + b, 0);
}

async function post(port: number, records: unknown[]): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/ingest/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(records),
  });
  await response.body?.cancel();
  return response.status;
}

async function serve(port: number, store: string): Promise<Dev> {
  const dev = new Dev([JOB_FILE, "--port", String(port), "--store", store]);
  await dev.line(/serving http/);
  return dev;
}

Deno.test({
  name:
    "deno task dev: random and poison batches posted to ingest never stop the job; every accepted record is counted, late or dead-lettered; a restart changes nothing",
  async fn() {
    const dir = await Deno.makeTempDir();
    const store = `${dir}/weir.sqlite`;
    const port = freePort();
    let dev = await serve(port, store);
    try {
      let accepted = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(batch, async (records) => {
          const status = await post(port, records);
          assert.ok(
            status === 202 || status === 400,
            `status ${status} for ${JSON.stringify(records).slice(0, 300)}`,
          );
          if (status === 202) accepted += records.length;
          else refused++;
        }),
        { numRuns: 150, seed: 16 },
      );
      assert.ok(accepted > 500 && refused > 20, `${accepted} / ${refused}`);
      // Records at the end of the documented range on many keys (so on
      // every partition) move event time past every window of the others;
      // their own window never fires.
      const flush = Array.from({ length: 20 }, (_, i) => ({
        key: `z${i}`,
        ts: MAX_TIMESTAMP,
      }));
      assert.equal(await post(port, flush), 202);
      const read = accepted + flush.length;

      const end = await waitFor(
        "every accepted record accounted for",
        async () => {
          const job = await summary(port);
          const rows = await counted(store);
          const accounted = total(rows) + job.lateRecordsDropped +
            job.deadLetters;
          return job.recordsIn === read && accounted === accepted &&
            { job, rows };
        },
        { unless: dev.child.status, timeoutMs: 60_000 },
      );
      assert.ok(end.job.deadLetters > 0, "some records were dead-lettered");

      // A restart after the end: Ctrl-C takes a final checkpoint, the next
      // run restores it; one more record (late or in an open window) shows
      // it processes, and the table and dead letters are as they were.
      dev.child.kill("SIGTERM");
      assert.equal(await dev.exit(), 0);
      dev = await serve(port, store);
      assert.equal(await post(port, [{ key: "z0", ts: MAX_TIMESTAMP }]), 202);
      const after = await waitFor("the restarted job to read it", async () => {
        const job = await summary(port);
        // Sources count from the restored checkpoint or from 0.
        return (job.recordsIn === 1 || job.recordsIn === read + 1) && job;
      }, { unless: dev.child.status });
      assert.equal(after.deadLetters, end.job.deadLetters);
      assert.deepEqual(await counted(store), end.rows);
    } finally {
      dev.child.kill("SIGTERM");
      await dev.exit();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
