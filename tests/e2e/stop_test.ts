// Ctrl-C on `deno task dev <job-file>` while a checkpoint is in progress:
// the process waits for that checkpoint, takes a final one, and exits; a
// restart from it runs to the end with the failure-free table. The job
// holds its checkpoint barriers behind asynchronous calls that wait for a
// gate file, so "in progress" is a state the test creates, not a race.

import assert from "node:assert/strict";
import { readTable } from "../../src/connectors/sinks/kv_table.ts";
import { freePort } from "../_support/free_port.ts";
import { Dev } from "../_support/dev_process.ts";
import { seedTicks, TABLE, type TickCount } from "./jobs/gated_counts.ts";

const JOB = "tests/e2e/jobs/gated_counts.ts";
const JOB_NAME = "gated_counts";
// More than the mailboxes hold (64 batches of up to 1024 records): the
// source cannot reach the end of the log while the gate is shut.
const RECORDS = 100_000;

async function seeded(dir: string): Promise<string> {
  const store = `${dir}/weir.sqlite`;
  const kv = await Deno.openKv(store);
  await seedTicks(kv, RECORDS);
  kv.close();
  return store;
}

/** Every window count, by brute force: 5 keys, one record per ms. */
function expected(): string[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < RECORDS; i++) {
    const id = `k${i % 5}@${Math.floor(i / 1_000) * 1_000}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts].map(([id, n]) => `${id}=${n}`).sort();
}

async function table(store: string): Promise<string[]> {
  const kv = await Deno.openKv(store);
  try {
    const rows = await readTable<TickCount>(kv, TABLE);
    return [...rows.values()].map((r) => `${r.id}=${r.count}`).sort();
  } finally {
    kv.close();
  }
}

/** Polls the job until its asynchronous subtask has input queued behind its calls. */
async function backPressured(base: string): Promise<void> {
  for (;;) {
    const job = await (await fetch(`${base}/jobs/${JOB_NAME}`)).json();
    const queued = job.operators.some((op: {
      id: string;
      subtasks: { mailboxDepth: number }[];
    }) =>
      op.id.startsWith("async") &&
      op.subtasks.some((s) => s.mailboxDepth > 0)
    );
    if (queued) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("deno task dev: Ctrl-C during a checkpoint waits for it, takes a final one, and a restart from it ends with the failure-free table", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weir-stop-" });
  const store = await seeded(dir);
  const gate = `${dir}/gate`;
  const port = freePort();
  const first = new Dev([JOB, "--store", store, "--port", String(port)], {
    WEIR_GATE: gate,
  });
  await first.line(/serving http:\/\/127\.0\.0\.1:\d+/);
  const base = `http://127.0.0.1:${port}`;
  await backPressured(base);
  // The barrier queues behind the calls waiting at the gate.
  const response = await fetch(`${base}/jobs/${JOB_NAME}/checkpoints`, {
    method: "POST",
  });
  assert.equal(response.status, 202);
  const { id } = await response.json();
  first.child.kill("SIGINT");
  await first.line(
    new RegExp(`checkpoint ${id} is in progress; waiting for it`),
  );
  await Deno.writeTextFile(gate, "open");
  const [, final] = await first.line(/stopped at final checkpoint (\d+)/);
  assert.equal(Number(final), id + 1);
  assert.equal(await first.exit(), 0, first.lines.join("\n"));

  const second = new Dev([
    JOB,
    "--store",
    store,
    "--port",
    String(freePort()),
    "--restore",
    "latest",
  ], { WEIR_GATE: gate });
  await second.line(new RegExp(`restored from checkpoint ${final}`));
  await second.line(/finished/);
  second.child.kill("SIGINT");
  assert.equal(await second.exit(), 0, second.lines.join("\n"));
  assert.deepEqual(await table(store), expected());
  await Deno.remove(dir, { recursive: true });
});
