// Every restore path, through the commands a user types, on a KV file with
// a history of checkpoints: `--restore none`, `--restore <id>` of an older
// checkpoint, a damaged latest checkpoint (a manifest overwritten with
// garbage, a snapshot deleted), and every manifest damaged (refused, exit
// 1; `--restore none` then runs). Each run reaches the end with the
// failure-free output, on the local runtime (`main.ts durable`, and a
// bounded job file served by `main.ts`) and on the KV runtime (`main.ts
// <job-file> --runtime kv`). The tests wait for conditions (a process
// exiting, state in the KV file), never for a time.

import assert from "node:assert/strict";
import { KvStorage, ManualClock } from "../../src/mod.ts";
import { CheckpointStore } from "../../src/actors/mod.ts";
import { readTable } from "../../src/connectors/mod.ts";
import {
  durableCountsJob,
  TABLE_NAME,
  type WindowCount,
} from "../../examples/durable_counts.ts";
import { takeCheckpoints } from "../_support/take_checkpoints.ts";
import {
  expectedRestoreCounts,
  readRestoreCounts,
  RESTORE_COUNTS_CHECKPOINTS,
  writeRestoreHistory,
} from "../_support/restore_counts_job.ts";
import { freePort } from "../_support/free_port.ts";
import { mainCommand } from "../_support/dev_process.ts";

const JOB_FILE = "tests/_support/restore_counts_job.ts";
const DURABLE_CHECKPOINTS = ["weir", "durable-counts", "checkpoints"];
const DURABLE_DONE = /^3010 window counts, 300000 events$/m;
const decoder = new TextDecoder();

/** `main.ts` with `args`, as `deno task dev` runs it. */
function main(args: string[]): Deno.Command {
  return mainCommand(args);
}

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `main.ts` with `args` until it exits by itself. */
async function run(args: string[]): Promise<Ran> {
  const { code, stdout, stderr } = await main(args).output();
  return {
    code,
    stdout: decoder.decode(stdout),
    stderr: decoder.decode(stderr),
  };
}

/** A temp dir with a KV file, removed after `fn`. */
async function withStore(fn: (store: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "weir-restore-" });
  try {
    await fn(`${dir}/weir.sqlite`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function withKv<T>(
  store: string,
  fn: (kv: Deno.Kv) => Promise<T>,
): Promise<T> {
  const kv = await Deno.openKv(store);
  try {
    return await fn(kv);
  } finally {
    kv.close();
  }
}

function checkpointStore(kv: Deno.Kv, prefix: string[]): CheckpointStore {
  return new CheckpointStore(new KvStorage(kv, prefix), { log: () => {} });
}

/** The ids of the complete checkpoints under `prefix`. */
function listed(store: string, prefix: string[]): Promise<number[]> {
  return withKv(
    store,
    async (kv) =>
      (await checkpointStore(kv, prefix).list()).map((info) => info.id),
  );
}

function highestId(store: string, prefix: string[]): Promise<number> {
  return withKv(store, (kv) => checkpointStore(kv, prefix).highestId());
}

type Damage = "garbage manifest" | "deleted snapshot";

/** Damages checkpoint `id` under `prefix` as a hand would. */
function damage(
  store: string,
  prefix: string[],
  id: number,
  how: Damage,
): Promise<void> {
  return withKv(store, async (kv) => {
    if (how === "garbage manifest") {
      await kv.set([...prefix, "v", "cp", id, "m"], "garbage");
      return;
    }
    const storage = new KvStorage(kv, prefix);
    const [[key]] = await storage.list(["cp", id, "s"], {
      limit: 1,
      keysOnly: true,
    });
    await storage.delete(key);
  });
}

// ---- main.ts durable: the local runtime on the bounded durable example ----

/**
 * `main.ts durable <store>` seeds the log and runs to the end; then, with
 * its table emptied, the job starts over and crashes after four
 * checkpoints early in its input: a history of checkpoints, and a table
 * that only a run to the end completes.
 */
async function durableHistory(store: string): Promise<number[]> {
  assertDurableDone(await run(["durable", store]));
  return await withKv(store, async (kv) => {
    for await (
      const row of kv.list({ prefix: ["weir", "table", TABLE_NAME] })
    ) {
      await kv.delete(row.key);
    }
    const runtime = durableCountsJob(kv, { clock: new ManualClock(0) })
      .createRuntime();
    // Lets background reads of the log land between checkpoints.
    await takeCheckpoints(
      runtime,
      4,
      () => new Promise((resolve) => setTimeout(resolve, 0)),
    );
    const rows = [...(await readTable<WindowCount>(kv, TABLE_NAME)).values()];
    assert.ok(rows.reduce((n, r) => n + r.count, 0) < 300_000);
    return (await checkpointStore(kv, DURABLE_CHECKPOINTS).list()).map((info) =>
      info.id
    );
  });
}

/**
 * Checks that a run exited 0 and wrote nothing to stderr but the line per
 * corrupt checkpoint it skipped: no error, no failed clean-up.
 */
function assertQuiet(ran: Ran): void {
  assert.equal(ran.code, 0, ran.stderr);
  const lines = ran.stderr.split("\n").filter((line) => line !== "");
  assert.deepEqual(
    lines.filter((line) => !line.startsWith("Skipping checkpoint ")),
    [],
  );
}

function assertDurableDone(ran: Ran): void {
  assertQuiet(ran);
  assert.match(ran.stdout, DURABLE_DONE);
}

Deno.test("main.ts durable --restore none on a store with history runs to the end", async () => {
  await withStore(async (store) => {
    await durableHistory(store);
    const highest = await highestId(store, DURABLE_CHECKPOINTS);
    assertDurableDone(await run(["durable", store, "--restore", "none"]));
    assert.ok(await highestId(store, DURABLE_CHECKPOINTS) > highest);
  });
});

Deno.test("main.ts durable --restore <id> of an older checkpoint runs to the end", async () => {
  await withStore(async (store) => {
    const [oldest] = await durableHistory(store);
    const highest = await highestId(store, DURABLE_CHECKPOINTS);
    assertDurableDone(
      await run(["durable", store, "--restore", String(oldest)]),
    );
    assert.ok(await highestId(store, DURABLE_CHECKPOINTS) > highest);
  });
});

for (const how of ["garbage manifest", "deleted snapshot"] as const) {
  Deno.test(`main.ts durable skips a latest checkpoint with a ${how} for the previous one and runs to the end`, async () => {
    await withStore(async (store) => {
      const ids = await durableHistory(store);
      await damage(store, DURABLE_CHECKPOINTS, ids.at(-1)!, how);
      const ran = await run(["durable", store]);
      assertDurableDone(ran);
      assert.match(
        ran.stderr,
        new RegExp(`Skipping checkpoint ${ids.at(-1)} of job 'durable-counts'`),
      );
      assert.ok(await highestId(store, DURABLE_CHECKPOINTS) > ids.at(-1)!);
    });
  });
}

Deno.test("main.ts durable refuses a store whose every manifest is garbage (exit 1, naming them); --restore none then runs to the end", async () => {
  await withStore(async (store) => {
    const ids = await durableHistory(store);
    for (const id of ids) {
      await damage(store, DURABLE_CHECKPOINTS, id, "garbage manifest");
    }
    const refused = await run(["durable", store]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(
        `^error: Cannot restore the latest checkpoint of job 'durable-counts' .*checkpoint ${
          ids.at(-1)
        } \\(its manifest cannot be read .*--restore none`,
        "m",
      ),
    );
    assert.doesNotMatch(refused.stdout, DURABLE_DONE);
    assertDurableDone(await run(["durable", store, "--restore", "none"]));
  });
});

// ---- main.ts <job-file>: a bounded job file on either runtime ----

/** A KV file holding checkpoints 1 to 4 of the job file (2, 3, 4 kept). */
async function jobHistory(store: string): Promise<void> {
  await withKv(store, (kv) => writeRestoreHistory(kv, 4));
  assert.deepEqual(await listed(store, RESTORE_COUNTS_CHECKPOINTS), [2, 3, 4]);
  const table = await withKv(store, readRestoreCounts);
  assert.ok(table.size < expectedRestoreCounts().size, "part of the output");
}

/**
 * Serves the job file on the local runtime until the table in the KV file
 * is the failure-free one (the job is bounded; the server stays up), then
 * stops it with SIGTERM; or until it exits by itself.
 */
async function serveToEnd(store: string, restore: string): Promise<Ran> {
  // One handle, opened first: reads never wait for the process to open.
  return await withKv(store, async (kv) => {
    const child = main([
      JOB_FILE,
      "--store",
      store,
      "--port",
      String(freePort()),
      "--restore",
      restore,
    ]).spawn();
    const exited = child.status.then(() => true);
    const output = Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    const expected = JSON.stringify([...expectedRestoreCounts()].sort());
    for (;;) {
      const ended = await Promise.race([
        exited,
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 50)),
      ]);
      if (ended) break;
      // The last windows fire at the end of input only: a complete table
      // means the job is done. SIGTERM saves what is still pending.
      const table = JSON.stringify([...await readRestoreCounts(kv)].sort());
      if (table === expected) {
        child.kill("SIGTERM");
        break;
      }
    }
    const { code } = await child.status;
    const [stdout, stderr] = await output;
    return { code, stdout, stderr };
  });
}

/** `main.ts <job-file> --runtime kv` on two worker processes, to the end. */
function kvToEnd(store: string, restore: string): Promise<Ran> {
  return run([
    JOB_FILE,
    "--runtime",
    "kv",
    "--processes",
    "2",
    "--lease-ms",
    "1000",
    "--store",
    store,
    "--port",
    String(freePort()),
    "--restore",
    restore,
  ]);
}

const RUNTIMES = { local: serveToEnd, kv: kvToEnd } as const;

/** Checks that a run ended well with the failure-free table and new ids. */
async function assertJobDone(
  store: string,
  runtime: keyof typeof RUNTIMES,
  ran: Ran,
  highest: number,
): Promise<void> {
  assertQuiet(ran);
  if (runtime === "kv") assert.match(ran.stdout, /2 of 2 workers ended/);
  assert.deepEqual(
    await withKv(store, readRestoreCounts),
    expectedRestoreCounts(),
  );
  assert.ok(await highestId(store, RESTORE_COUNTS_CHECKPOINTS) > highest);
}

for (const runtime of ["local", "kv"] as const) {
  const flags = runtime === "kv" ? " --runtime kv" : "";
  const toEnd = RUNTIMES[runtime];

  Deno.test(`main.ts <job-file>${flags} --restore none on a store with history runs to the end`, async () => {
    await withStore(async (store) => {
      await jobHistory(store);
      const ran = await toEnd(store, "none");
      await assertJobDone(store, runtime, ran, 4);
      if (runtime === "kv") assert.match(ran.stdout, /: starting afresh\n/);
    });
  });

  Deno.test(`main.ts <job-file>${flags} --restore <id> of an older checkpoint runs to the end`, async () => {
    await withStore(async (store) => {
      await jobHistory(store);
      const ran = await toEnd(store, "2");
      await assertJobDone(store, runtime, ran, 4);
      if (runtime === "local") {
        assert.match(ran.stdout, /restored from checkpoint 2,/);
      } else {
        assert.match(ran.stdout, /: starting from checkpoint 2\n/);
      }
    });
  });

  for (const how of ["garbage manifest", "deleted snapshot"] as const) {
    Deno.test(`main.ts <job-file>${flags} skips a latest checkpoint with a ${how} for the previous one and runs to the end`, async () => {
      await withStore(async (store) => {
        await jobHistory(store);
        await damage(store, RESTORE_COUNTS_CHECKPOINTS, 4, how);
        const ran = await toEnd(store, "latest");
        await assertJobDone(store, runtime, ran, 4);
        assert.match(ran.stderr, /Skipping checkpoint 4 of job/);
        if (runtime === "local") {
          assert.match(ran.stdout, /restored from checkpoint 3,/);
        } else {
          assert.match(ran.stdout, /: starting from checkpoint 3\n/);
        }
      });
    });
  }

  Deno.test(`main.ts <job-file>${flags} refuses a store whose every manifest is garbage (exit 1, naming them); --restore none then runs to the end`, async () => {
    await withStore(async (store) => {
      await jobHistory(store);
      for (const id of [2, 3, 4]) {
        await damage(store, RESTORE_COUNTS_CHECKPOINTS, id, "garbage manifest");
      }
      const refused = await toEnd(store, "latest");
      assert.equal(refused.code, 1);
      // Refused before any worker starts, or anything is reset.
      assert.doesNotMatch(refused.stdout, /started|serving/);
      assert.match(
        refused.stderr,
        /^error: Cannot restore the latest checkpoint of job 'restore_counts_job' .*checkpoint 4 \(its manifest cannot be read .*checkpoint 3 .*checkpoint 2 .*--restore none/m,
      );
      await assertJobDone(store, runtime, await toEnd(store, "none"), 4);
    });
  });
}

Deno.test("main.ts <job-file> --runtime kv: a worker started again with --restore <id> after that checkpoint was retired joins the job (the supervisor's restarts)", async () => {
  await withStore(async (store) => {
    await jobHistory(store);
    await assertJobDone(store, "kv", await kvToEnd(store, "2"), 4);
    // Retention has deleted checkpoint 2 by now; the job is recorded.
    assert.ok(
      !(await listed(store, RESTORE_COUNTS_CHECKPOINTS)).includes(2),
    );
    const worker = await run([
      JOB_FILE,
      "--runtime",
      "kv",
      "--worker",
      "w3",
      "--lease-ms",
      "1000",
      "--store",
      store,
      "--restore",
      "2",
    ]);
    assertQuiet(worker);
    assert.match(worker.stdout, /worker w3: job 'restore_counts_job' finished/);
  });
});
