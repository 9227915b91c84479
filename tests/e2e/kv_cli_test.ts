// `deno task dev --runtime kv`: the command line of the KV runtime. With
// `--processes 3` it starts three worker processes on one KV file and ends
// when they have run the bounded job; alone it is a worker that serves the
// app with POST /tick; bad flags are refused naming the flag.

import assert from "node:assert/strict";
import { readAppendLog } from "../../src/connectors/mod.ts";
import {
  expectedCounts,
  OUTPUT,
  seedClusterEvents,
} from "../../bench/kv_runtime/cluster_counts.ts";
import { freePort } from "../_support/free_port.ts";
import { heldBy, leases, unfinished } from "../_support/kv_leases.ts";
import { waitFor } from "../_support/wait_for.ts";
import { Dev, mainCommand } from "../_support/dev_process.ts";

const JOB_FILE = "bench/kv_runtime/cluster_counts.ts";
const JOB = "cluster_counts";
const EVENTS = 50_000;

function dev(args: string[]): Deno.Command {
  return mainCommand(args);
}

async function seeded(
  events = EVENTS,
): Promise<{ dir: string; store: string }> {
  const dir = await Deno.makeTempDir({ prefix: "weir-kv-cli-" });
  const store = `${dir}/weir.sqlite`;
  const kv = await Deno.openKv(store);
  await seedClusterEvents(kv, events);
  kv.close();
  return { dir, store };
}

/** `main.ts` with the cluster job on three worker processes sharing `store`. */
function threeWorkers(store: string): Deno.Command {
  return dev([
    JOB_FILE,
    "--runtime",
    "kv",
    "--processes",
    "3",
    "--store",
    store,
    "--port",
    String(freePort()),
    "--lease-ms",
    "1000",
  ]);
}

async function output(store: string): Promise<string[]> {
  const kv = await Deno.openKv(store);
  try {
    return (await readAppendLog<string>(kv, OUTPUT)).map((r) => r.value)
      .sort();
  } finally {
    kv.close();
  }
}

Deno.test("--runtime kv --processes 3 starts three workers on one KV file, which run the job to its end exactly once", async () => {
  const { dir, store } = await seeded();
  try {
    const { code, stdout, stderr } = await threeWorkers(store).output();
    const out = new TextDecoder().decode(stdout);
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    for (const worker of ["w1", "w2", "w3"]) {
      assert.match(
        out,
        new RegExp(`worker ${worker} of job 'cluster_counts' started`),
      );
    }
    assert.match(out, /3 worker processes sharing/);
    assert.match(out, /3 of 3 workers ended normally/);
    assert.deepEqual(await output(store), expectedCounts(EVENTS));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--runtime kv alone is a worker that serves the app: POST /tick runs a round, GET /jobs shows the actors, SIGTERM gives the leases up", async () => {
  const { dir, store } = await seeded();
  const port = freePort();
  const child = dev([
    JOB_FILE,
    "--runtime",
    "kv",
    "--store",
    store,
    "--port",
    String(port),
  ]).spawn();
  try {
    const jobs = await waitFor("the app to answer", async () => {
      const response = await fetch(
        `http://127.0.0.1:${port}/jobs/cluster_counts`,
      );
      if (response.ok) {
        return await response.json() as {
          operators: { subtasks: unknown[] }[];
        };
      }
      await response.body?.cancel();
      return false;
    }, { unless: child.status });
    assert.equal(jobs.operators.flatMap((o) => o.subtasks).length, 4);
    const tick = await fetch(`http://127.0.0.1:${port}/tick`, {
      method: "POST",
    });
    assert.equal(tick.status, 200);
    assert.equal(typeof (await tick.json()).progressed, "boolean");
    // Bounded: the job ends, the server stays up.
    await waitFor(
      "every window in the output",
      async () =>
        (await output(store)).length === expectedCounts(EVENTS).length,
      { unless: child.status },
    );
    assert.deepEqual(await output(store), expectedCounts(EVENTS));
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await child.stdout.cancel();
    await child.stderr.cancel();
    await Deno.remove(dir, { recursive: true });
    assert.equal(status.code, 0);
  }
});

Deno.test("--processes 3 starts a worker again when it dies (SIGKILL): the job still ends exactly once", async () => {
  // Enough that the workers still have work once every one has started.
  const { dir, store } = await seeded(1_000_000);
  try {
    const child = threeWorkers(store).spawn();
    const stdout = new Response(child.stdout).text();
    const stderr = new Response(child.stderr).text();
    // Kill a worker once it holds the lease of an actor that has not
    // finished (so its death must be taken over), w2 by preference: on a
    // fast machine the job may end before the last worker started takes
    // anything. Found by its unique command line.
    const kv = await Deno.openKv(store);
    let victim: string;
    try {
      victim = await waitFor(
        "a worker to hold an unfinished actor",
        async () => {
          const all = await leases(kv, JOB);
          for (const worker of ["w2", "w3", "w1"]) {
            const held = heldBy(all, worker);
            if (held.length > 0 && await unfinished(kv, JOB, held)) {
              return worker;
            }
          }
          return false;
        },
        { unless: child.status },
      );
    } finally {
      kv.close();
    }
    const { stdout: pids } = await new Deno.Command("pgrep", {
      args: ["-f", "--", `--worker ${victim} --store ${store}`],
      stdout: "piped",
      stderr: "null",
    }).output();
    const pid = Number(new TextDecoder().decode(pids).trim().split("\n")[0]);
    assert.ok(pid > 0, `${victim} was found`);
    Deno.kill(pid, "SIGKILL");
    const status = await child.status;
    const err = await stderr;
    assert.equal(status.code, 0, err);
    assert.match(
      err,
      new RegExp(
        `worker ${victim} exited \\(SIGKILL\\); starting it again \\(1 of 5\\)`,
      ),
    );
    assert.match(await stdout, /3 of 3 workers ended normally/);
    assert.deepEqual(await output(store), expectedCounts(1_000_000));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (
  const [args, message] of [
    [
      ["--runtime", "nope"],
      /'--runtime' must be local or kv: current value is nope/,
    ],
    [["--processes", "3"], /'--processes' needs '--runtime kv'/],
    [
      ["--runtime", "kv", "--processes", "0"],
      /'--processes' must be a positive integer: current value is 0/,
    ],
    [
      ["--runtime", "kv", "--lease-ms", "5"],
      /'--lease-ms' must be an integer of at least 100: current value is 5/,
    ],
  ] as const
) {
  Deno.test(`deno task dev ${args.join(" ")} is refused, naming the flag`, async () => {
    const { code, stderr } = await dev([...args, "--port", "0"]).output();
    assert.equal(code, 1);
    assert.match(new TextDecoder().decode(stderr), message);
  });
}

Deno.test("Ctrl-C stops --runtime kv --processes 2 cleanly: every worker ends normally and the command exits 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weir-kv-cli-" });
  // An ingest job never ends by itself: only Ctrl-C stops it.
  const run = new Dev([
    "examples/ingest_counts.ts",
    "--runtime",
    "kv",
    "--processes",
    "2",
    "--store",
    `${dir}/weir.sqlite`,
    "--port",
    String(freePort()),
  ]);
  try {
    await run.line(/worker w1 of job 'ingest_counts' started/);
    await run.line(/worker w2 of job 'ingest_counts' started/);
    run.child.kill("SIGINT");
    assert.equal(await run.exit(), 0, run.lines.join("\n"));
    assert.ok(
      run.lines.some((l) => /2 of 2 workers ended normally/.test(l)),
      run.lines.join("\n"),
    );
    assert.ok(
      !run.lines.some((l) => /Bad resource ID/.test(l)),
      run.lines.join("\n"),
    );
  } finally {
    try {
      run.child.kill("SIGKILL");
    } catch {
      // It ended.
    }
    await run.exit();
    await Deno.remove(dir, { recursive: true });
  }
});
