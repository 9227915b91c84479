/**
 * weir's command line (`deno task dev`), and Deno Deploy's entry: a thin
 * entry over `src/cli/`. `deno task dev --help` says what it runs; each
 * command (`dev`, `--runtime kv`, `--runtime kv --processes N`) has its own
 * `--help`.
 *
 * - `deno task dev [job-file]` runs a job on the local runtime over a Deno
 *   KV file and serves the HTTP app; without a job file, the demo job of
 *   `examples/live_clicks.ts`, or the job file `WEIR_JOB` names among those
 *   listed below (how Deno Deploy, whose arguments are fixed, runs another).
 * - `... --runtime kv [--processes N]` runs it on the KV runtime: this
 *   process is a worker, or it supervises N worker processes. On Deno
 *   Deploy (`DENO_DEPLOY` set) this is the default, on `Deno.openKv()`,
 *   with a `Deno.cron` tick every minute.
 * - `deno task demo` and `deno task durable` are example tasks;
 *   `deno task dev demo` and `deno task dev durable` run them too.
 *
 * @module
 */

import { runCli } from "./src/cli/cli.ts";
import { chooseDefaultJob } from "./src/cli/job_file.ts";

// On Deno Deploy: the KV runtime on the app's database, with Deno.cron as
// the backstop that wakes an instance every minute (registered at the top
// level, as Deploy requires, before anything is served).
const onDeploy = Deno.env.get("DENO_DEPLOY") !== undefined;
let deployTick: (() => Promise<boolean>) | null = null;
if (onDeploy) {
  Deno.cron("weir tick", "* * * * *", async () => {
    await deployTick?.();
  });
}

if (import.meta.main) {
  try {
    await runCli(Deno.args, {
      place: { onDeploy, port: Deno.env.get("PORT") },
      // String literals, loaded only when no job file is given: Deno
      // Deploy includes only statically known modules.
      defaultJob: chooseDefaultJob(Deno.env.get("WEIR_JOB"), {
        "examples/live_clicks.ts": () => import("./examples/live_clicks.ts"),
        "examples/ingest_counts.ts": () =>
          import("./examples/ingest_counts.ts"),
      }, {
        name: "demo",
        file: "examples/live_clicks.ts",
        load: () => import("./examples/live_clicks.ts"),
      }),
      entry: new URL(import.meta.url),
      examples: {
        demo: new URL("./examples/demo.ts", import.meta.url),
        durable: new URL("./examples/durable.ts", import.meta.url),
      },
      onTick: (tick) => {
        deployTick = tick;
      },
    });
  } catch (error) {
    console.error(
      `error: ${error instanceof Error ? error.message : String(error)}`,
    );
    Deno.exit(1);
  }
}
