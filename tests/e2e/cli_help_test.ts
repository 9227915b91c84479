// The command line's help and its refusals, driven as `deno task dev` (and
// the example tasks) run it: every command prints its usage, every flag
// with its default and an example, and exits 0; an unknown flag, or one
// the command does not take, exits 1 naming it.

import assert from "node:assert/strict";
import { mainCommand } from "../_support/dev_process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const decoder = new TextDecoder();

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function dev(args: string[]): Promise<Ran> {
  const { code, stdout, stderr } = await mainCommand(args).output();
  return {
    code,
    stdout: decoder.decode(stdout),
    stderr: decoder.decode(stderr),
  };
}

/** An example task's file with `args`, with the permissions of its task. */
async function task(file: string, args: string[]): Promise<Ran> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      file,
      ...args,
    ],
    cwd: ROOT,
  }).output();
  return {
    code,
    stdout: decoder.decode(stdout),
    stderr: decoder.decode(stderr),
  };
}

function assertHelp(ran: Ran, usage: RegExp, flags: readonly string[]): void {
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, usage);
  for (const flag of [...flags, "--help"]) {
    assert.ok(ran.stdout.includes(flag), `${flag} in:\n${ran.stdout}`);
  }
  assert.match(ran.stdout, /^Examples:\n {2}deno task /m);
}

const SERVE_DEFAULTS = [
  "--port <n>",
  "(default: 8000)",
  "--host <addr>",
  "(default: 127.0.0.1)",
  "--store <path>",
  "(default: ./.weir/weir.sqlite)",
  "--restore latest|none|<id>",
  "(default: latest)",
  "--parallelism",
  "--checkpoint-interval-ms",
  "--watermark-recovery",
  "--error-policy",
  "--allow-non-restored-state",
  "--runtime local|kv",
];

Deno.test("deno task dev --help (and -h) prints the commands and exits 0", async () => {
  for (const flag of ["--help", "-h"]) {
    const ran = await dev([flag]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^Usage: deno task dev \[job-file\]/);
    for (const command of ["dev", "kv", "supervisor", "demo", "durable"]) {
      assert.match(ran.stdout, new RegExp(`^ {2}${command} `, "m"));
    }
    assert.match(ran.stdout, /^Examples:/m);
  }
});

Deno.test("deno task dev <job-file> --help prints the dev command's usage, flags and defaults, and runs nothing", async () => {
  const ran = await dev(["examples/ingest_counts.ts", "--help"]);
  assertHelp(ran, /^Usage: deno task dev \[job-file\] \[--runtime local\]/, [
    ...SERVE_DEFAULTS,
    "(default: local)",
  ]);
  assert.doesNotMatch(ran.stdout, /--lease-ms|--processes/);
  assert.doesNotMatch(ran.stdout, /serving http/);
});

Deno.test("deno task dev --runtime kv --help prints the kv command's usage, flags and defaults", async () => {
  const ran = await dev(["--runtime", "kv", "--help"]);
  assertHelp(ran, /^Usage: deno task dev \[job-file\] --runtime kv /, [
    ...SERVE_DEFAULTS,
    "--processes <n>",
    "(default: 1)",
    "--lease-ms <ms>",
    "(default: 10000)",
    "--worker <id>",
  ]);
});

Deno.test("deno task dev --runtime kv --processes 3 -h prints the supervisor's usage, flags and defaults", async () => {
  const ran = await dev(["--runtime", "kv", "--processes", "3", "-h"]);
  assertHelp(
    ran,
    /^Usage: deno task dev \[job-file\] --runtime kv --processes <n> /,
    [
      ...SERVE_DEFAULTS,
      "--processes <n>",
      "--lease-ms <ms>",
      "(default: 10000)",
    ],
  );
  assert.doesNotMatch(ran.stdout, /--worker <id>/);
});

Deno.test("deno task demo --help and deno task durable --help print their usage and exit 0, also through deno task dev", async () => {
  for (
    const ran of [
      await task("examples/demo.ts", ["--help"]),
      await dev(["demo", "-h"]),
    ]
  ) {
    assertHelp(ran, /^Usage: deno task demo$/m, []);
  }
  for (
    const ran of [
      await task("examples/durable.ts", ["-h"]),
      await dev(["durable", "--help"]),
    ]
  ) {
    assertHelp(ran, /^Usage: deno task durable \[kv-file\]/m, [
      "--restore latest|none|<id>",
      "(default: latest)",
    ]);
  }
});

Deno.test("deno task dev refuses an unknown flag, naming it (exit 1)", async () => {
  for (
    const args of [
      ["--prot", "8000"],
      ["examples/ingest_counts.ts", "--runtime", "kv", "--bogus"],
      ["--help", "--bogus"],
    ]
  ) {
    const ran = await dev(args);
    const flag = args.find((a) => a === "--prot" || a === "--bogus")!;
    assert.equal(ran.code, 1, ran.stdout);
    assert.match(
      ran.stderr,
      new RegExp(
        `^error: Cannot start as '${flag}' is not a flag of weir's command line: see --help`,
      ),
    );
  }
});

Deno.test("deno task dev refuses a flag the command does not take, naming it and the command (exit 1)", async () => {
  const ran = await dev(["--lease-ms", "5000", "--port", "0"]);
  assert.equal(ran.code, 1);
  assert.match(
    ran.stderr,
    /error: Cannot start as '--lease-ms' does not apply to the dev command: see its --help/,
  );
  const two = await dev(["examples/ingest_counts.ts", "constructor"]);
  assert.equal(two.code, 1);
  assert.match(
    two.stderr,
    /error: Cannot start as the command takes one job file: current arguments are examples\/ingest_counts.ts constructor/,
  );
  const worker = await dev([
    "--runtime",
    "kv",
    "--processes",
    "2",
    "--worker",
    "w1",
    "--restore",
    "bad",
  ]);
  assert.equal(worker.code, 1);
  assert.match(
    worker.stderr,
    /'--restore' must be latest, none or a checkpoint id/,
  );
});

Deno.test("The example tasks refuse an unknown flag, naming it (exit 1)", async () => {
  for (
    const demo of [
      await task("examples/demo.ts", ["--port", "1"]),
      await dev(["demo", "--port", "1"]),
    ]
  ) {
    assert.equal(demo.code, 1);
    assert.match(
      demo.stderr,
      /^error: Cannot start as '--port' is not a flag of the demo example: see --help/,
    );
  }
  const durable = await dev(["durable", "--store", "x"]);
  assert.equal(durable.code, 1);
  assert.match(
    durable.stderr,
    /^error: Cannot start as '--store' is not a flag of the durable example: see --help/,
  );
});
