// Deno Deploy's path of main.ts, on this machine: with DENO_DEPLOY set it
// runs the job on the KV runtime over Deno.openKv() (in memory here, as
// DENO_KV_DB_MODE asks), registers the cron tick, serves the app on PORT,
// gives its leases up on SIGINT (Deploy's shutdown signal), and runs the
// job WEIR_JOB names (Deploy's arguments are fixed).

import assert from "node:assert/strict";
import { freePort } from "../_support/free_port.ts";
import { waitFor } from "../_support/wait_for.ts";
import { mainCommand } from "../_support/dev_process.ts";

Deno.test("With DENO_DEPLOY set, main.ts runs the demo job on the KV runtime, serves it, and exits cleanly on SIGINT", async () => {
  const port = freePort();
  const child = mainCommand([], {
    env: {
      DENO_DEPLOY: "1",
      DENO_KV_DB_MODE: "memory",
      PORT: String(port),
    },
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  type Job = {
    name: string;
    operators: { subtasks: { recordsIn: number }[] }[];
  };
  let job: Job | null = null;
  try {
    // Until the app answers and the job has read records: Deploy's path
    // is up and running.
    job = await waitFor("the demo job to read records", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/jobs/demo`);
      const body: Job = await response.json();
      const records = body.operators.flatMap((o) => o.subtasks)
        .reduce((n, s) => n + s.recordsIn, 0);
      return records > 0 && body;
    }, { unless: child.status });
  } finally {
    child.kill("SIGINT");
  }
  const status = await child.status;
  const out = await stdout;
  const err = await stderr;
  assert.equal(status.code, 0, err);
  assert.match(
    out,
    /job 'demo' on the KV runtime \(worker [0-9a-f-]+\), serving http:\/\/0\.0\.0\.0:\d+/,
  );
  assert.ok(job !== null, "the app answered");
  assert.equal(job.name, "demo");
  assert.ok(
    job.operators.flatMap((o) => o.subtasks).some((s) => s.recordsIn > 0),
    "the job read records",
  );
});

Deno.test("With DENO_DEPLOY set, --processes is refused by name: Deploy starts no processes", async () => {
  const { code, stdout, stderr } = await mainCommand(
    ["--runtime", "kv", "--processes", "2"],
    { env: { DENO_DEPLOY: "1", DENO_KV_DB_MODE: "memory" } },
  ).output();
  assert.equal(code, 1);
  assert.equal(new TextDecoder().decode(stdout), "");
  assert.match(
    new TextDecoder().decode(stderr),
    /^error: Cannot start as '--processes' cannot be used on Deno Deploy .*current value is 2$/m,
  );
});

Deno.test("With DENO_DEPLOY set, WEIR_JOB chooses the job main.ts runs without arguments: examples/ingest_counts.ts", async () => {
  const port = freePort();
  const child = mainCommand([], {
    env: {
      DENO_DEPLOY: "1",
      DENO_KV_DB_MODE: "memory",
      PORT: String(port),
      WEIR_JOB: "examples/ingest_counts.ts",
    },
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  let name = "";
  try {
    name = await waitFor("the app to serve the job", async () => {
      const response = await fetch(
        `http://127.0.0.1:${port}/jobs/ingest_counts`,
      );
      const body: { name?: string } = await response.json();
      return response.ok && body.name !== undefined && body.name;
    }, { unless: child.status });
  } finally {
    child.kill("SIGINT");
  }
  const status = await child.status;
  const err = await stderr;
  assert.equal(status.code, 0, err);
  assert.equal(name, "ingest_counts");
  assert.match(
    await stdout,
    /job 'ingest_counts' on the KV runtime \(worker [0-9a-f-]+\), serving/,
  );
});

Deno.test("WEIR_JOB naming no job main.ts lists is refused by name, with the ones it lists", async () => {
  const { code, stdout, stderr } = await mainCommand([], {
    env: {
      DENO_DEPLOY: "1",
      DENO_KV_DB_MODE: "memory",
      WEIR_JOB: "jobs/mine.ts",
    },
  }).output();
  assert.equal(code, 1);
  assert.equal(new TextDecoder().decode(stdout), "");
  assert.match(
    new TextDecoder().decode(stderr),
    /^error: Cannot start as 'WEIR_JOB' must name one of examples\/live_clicks\.ts, examples\/ingest_counts\.ts \(list another in main\.ts\): current value is "jobs\/mine\.ts"$/m,
  );
});
