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

// Keys ingest accepts (a missing one too: the job's keyBy then throws on
// it), and keys no job can process.
const goodKey = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("a", "b", "c", "d", "1") },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 5 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constant("k".repeat(1_000)) },
);
const badKey = fc.constantFrom<unknown>(
  null,
  {},
  [],
  { a: 1 },
  [1, 2],
  true,
  "k".repeat(2_100),
  "é".repeat(600),
  "\0".repeat(1_024),
);

// Mostly within 2 s of where the run is in event time (the run moves it
// 1 s a batch, so windows fire and most records are on time), some
// anywhere in the documented range before them (late, or windows of their
// own; the end of the range is the flush's); and timestamps outside it or
// not integers.
const goodTs = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.integer({ min: -2_000, max: 2_000 }).map((rel) => ({ rel })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: MIN_TIMESTAMP, max: T0 }),
  },
);
const badTs = fc.constantFrom<unknown>(
  SAFE,
  -SAFE,
  SAFE - 1,
  MAX_TIMESTAMP + 1,
  MIN_TIMESTAMP - 1,
  1.5,
  "1767225600000",
  null,
);

const goodRecord = fc.record(
  {
    key: goodKey,
    ts: goodTs,
    boom: fc.constantFrom(undefined, undefined, undefined, true),
    note: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ["ts"] },
);
const badRecord = fc.oneof(
  fc.tuple(goodRecord, badKey).map(([r, key]) => ({ ...r, key })),
  fc.tuple(goodRecord, badTs).map(([r, ts]) => ({ ...r, ts })),
);

// A batch of good records, a quarter of them with one bad record in;
// some sent with an Idempotency-Key, and sent again.
const batch = fc.record({
  good: fc.array(goodRecord, { minLength: 1, maxLength: 20 }),
  bad: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: badRecord },
  ),
  at: fc.nat(),
  resend: fc.boolean(),
  key: fc.option(fc.uuid(), { freq: 2 }),
}).map(({ good, bad, at, resend, key }) => {
  const records: unknown[] = [...good];
  if (bad !== null) records.splice(at % (records.length + 1), 0, bad);
  return { records, resend, key };
});

/** Puts a record's relative timestamp at `base`. */
function at(base: number) {
  return (record: unknown): unknown => {
    const { ts } = record as { ts: unknown };
    return typeof ts === "object" && ts !== null && "rel" in ts
      ? { ...record as object, ts: base + (ts as { rel: number }).rel }
      : record;
  };
}

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

async function post(
  port: number,
  records: unknown[],
  idempotencyKey: string | null = null,
): Promise<{ status: number; appended: number; duplicate: boolean }> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
  };
  if (idempotencyKey !== null) headers["idempotency-key"] = idempotencyKey;
  const response = await fetch(`http://127.0.0.1:${port}/ingest/events`, {
    method: "POST",
    headers,
    body: JSON.stringify(records),
  });
  const body = await response.json();
  return {
    status: response.status,
    appended: body.appended ?? 0,
    duplicate: body.duplicate === true,
  };
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
      let batches = 0;
      await fc.assert(
        fc.asyncProperty(batch, async ({ records: drawn, resend, key }) => {
          const base = T0 + 1_000 * batches++;
          const records = drawn.map(at(base));
          const first = await post(port, records, key);
          assert.ok(
            first.status === 202 || first.status === 400,
            `status ${first.status} for ${
              JSON.stringify(records).slice(0, 300)
            }`,
          );
          if (first.status === 202) {
            assert.equal(first.appended, records.length);
            accepted += first.appended;
          } else refused++;
          if (resend && key !== null && first.status === 202) {
            const again = await post(port, records, key);
            assert.deepEqual(
              [again.status, again.appended, again.duplicate],
              [202, 0, true],
            );
          }
        }),
        { numRuns: 300, seed: 16 },
      );
      assert.ok(accepted > 1_000 && refused > 20, `${accepted} / ${refused}`);
      // Records at the end of the documented range on many keys (so on
      // every partition) move event time past every window of the others;
      // their own window never fires.
      const flush = Array.from({ length: 20 }, (_, i) => ({
        key: `z${i}`,
        ts: MAX_TIMESTAMP,
      }));
      assert.equal((await post(port, flush)).status, 202);
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
      assert.ok(
        end.job.deadLetters > 0 && total(end.rows) > accepted / 2,
        "some records were dead-lettered, most counted",
      );

      // A restart after the end: Ctrl-C takes a final checkpoint, the next
      // run restores it; one more record (late or in an open window) shows
      // it processes, and the table and dead letters are as they were.
      dev.child.kill("SIGTERM");
      assert.equal(await dev.exit(), 0);
      dev = await serve(port, store);
      assert.equal(
        (await post(port, [{ key: "z0", ts: MAX_TIMESTAMP }])).status,
        202,
      );
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
