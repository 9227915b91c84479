// A job file owns its settings: `deno task dev <job-file>` runs it with the
// parallelism, checkpoint interval and watermarkRecovery of its `settings`
// export, flags override each, the start line says which came from where,
// and a setting that does not exist is refused by name.

import assert from "node:assert/strict";
import { freePort } from "../_support/free_port.ts";
import { Dev } from "../_support/dev_process.ts";
import { seedTicks } from "./jobs/gated_counts.ts";

const JOB = "tests/e2e/jobs/gated_counts.ts";

async function parallelisms(port: number): Promise<number[]> {
  const job = await (await fetch(`http://127.0.0.1:${port}/jobs/gated_counts`))
    .json();
  return job.operators.map((op: { parallelism: number }) => op.parallelism);
}

async function start(args: string[]): Promise<{ dev: Dev; port: number }> {
  const dir = await Deno.makeTempDir({ prefix: "weir-settings-" });
  const store = `${dir}/weir.sqlite`;
  const kv = await Deno.openKv(store);
  await seedTicks(kv, 1_000);
  kv.close();
  await Deno.writeTextFile(`${dir}/gate`, "open");
  const port = freePort();
  const dev = new Dev(
    [JOB, "--store", store, "--port", String(port), ...args],
    { WEIR_GATE: `${dir}/gate` },
  );
  await dev.line(/serving http/);
  return { dev, port };
}

Deno.test("deno task dev runs a job file with its own settings and prints them", async () => {
  const { dev, port } = await start([]);
  await dev.line(
    /job 'gated_counts': parallelism 1 \(job file\), no periodic checkpoints \(job file\), watermarkRecovery "replay" \(default\)/,
  );
  assert.deepEqual(await parallelisms(port), [1, 1, 1]);
  dev.child.kill("SIGINT");
  assert.equal(await dev.exit(), 0);
});

Deno.test("deno task dev: flags override a job file's settings", async () => {
  const { dev, port } = await start([
    "--parallelism",
    "3",
    "--checkpoint-interval-ms",
    "500",
    "--watermark-recovery",
    "persist",
  ]);
  await dev.line(
    /parallelism 3 \(command line\), checkpoints every 500 ms \(command line\), watermarkRecovery "persist" \(command line\)/,
  );
  assert.deepEqual(await parallelisms(port), [3, 3, 3]);
  dev.child.kill("SIGINT");
  assert.equal(await dev.exit(), 0);
});

Deno.test("deno task dev refuses a job file setting that does not exist, and a bad flag, naming them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weir-settings-" });
  const file = `${dir}/typo.ts`;
  await Deno.writeTextFile(
    file,
    "export const settings = { paralelism: 2 };\nexport default function job() {}\n",
  );
  const typo = new Dev([file, "--store", `${dir}/weir.sqlite`, "--port", "0"]);
  assert.equal(await typo.exit(), 1);
  assert.match(
    typo.lines.join("\n"),
    /error: Cannot run the job file '.*typo.ts' as 'settings.paralelism' must be one of parallelism, checkpointIntervalMs, watermarkRecovery, errorPolicy: current value is 2/,
  );
  const flag = new Dev([file, "--watermark-recovery", "keep"]);
  assert.equal(await flag.exit(), 1);
  assert.match(
    flag.lines.join("\n"),
    /'--watermark-recovery' must be persist or replay: current value is keep/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task dev refuses a settings flag in the demo and durable modes, whose jobs have settings of their own, naming it", async () => {
  const demo = new Dev(["demo", "--error-policy", "fail"]);
  assert.equal(await demo.exit(), 1);
  assert.match(
    demo.lines.join("\n"),
    /error: Cannot start as '--error-policy' does not apply to the demo mode: current value is fail/,
  );
  const dir = await Deno.makeTempDir({ prefix: "weir-settings-" });
  const durable = new Dev([
    "durable",
    `${dir}/durable.sqlite`,
    "--parallelism",
    "4",
  ]);
  assert.equal(await durable.exit(), 1);
  assert.match(
    durable.lines.join("\n"),
    /error: Cannot start as '--parallelism' does not apply to the durable mode: current value is 4/,
  );
  await Deno.remove(dir, { recursive: true });
});
