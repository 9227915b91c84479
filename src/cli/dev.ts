/**
 * `deno task dev [job-file]`: a job on the local runtime over a Deno KV
 * file, restored from its latest checkpoint, with the HTTP app (ingest,
 * jobs, metrics, dashboard) served; Ctrl-C stops it with a final
 * checkpoint.
 *
 * @module
 */

import { describeJobSettings } from "../api/mod.ts";
import { createApp } from "../http/mod.ts";
import { LocalJobHandle } from "../observe/mod.ts";
import type { Command } from "./flags.ts";
import { type DefaultJob, findRestored, openJob } from "./job_file.ts";
import {
  onShutdown,
  openStore,
  type Place,
  runtimeFlag,
  serveFlags,
  type ServeOptions,
  serviceToken,
  startServer,
} from "./serve.ts";
import { allowedHostsFor } from "./serve_guards.ts";
import { stopLocalJob } from "./stop_local_job.ts";

/**
 * The `dev` command, as its `--help` shows it.
 *
 * @param place Where the command line runs: the defaults depend on it.
 * @returns The command.
 */
export function devCommand(place: Place): Command {
  return {
    name: "dev",
    usage: "deno task dev [job-file] [--runtime local] [flags]",
    summary: [
      "Runs the job file's job (without one, the demo job of",
      "examples/live_clicks.ts) on the local runtime over a Deno KV file,",
      "restores its latest checkpoint and serves the HTTP app (ingest, jobs,",
      "metrics, dashboard) at the printed address. The job file's default",
      "export receives { env, kv, ingest }; its `settings` export says how it",
      "runs, and the settings flags override it. Ctrl-C waits for a",
      "checkpoint in progress, takes a final one and exits. WEIR_TOKEN",
      "protects ingest and the admin endpoints.",
    ].join("\n"),
    flags: [runtimeFlag(place), ...serveFlags(place)],
    examples: [
      "deno task dev",
      "deno task dev examples/ingest_counts.ts --port 8000 --store ./.weir/weir.sqlite --restore latest",
      "deno task dev examples/ingest_counts.ts --parallelism 4 --error-policy fail",
    ],
  };
}

/**
 * Runs `file`'s job on the local runtime and serves it until Ctrl-C (or
 * until a failure stops it).
 *
 * @param file The job file; `undefined` for the default job.
 * @param defaultJob The job run without a job file.
 * @param options The flags.
 * @throws {Error} If the store, the job or its checkpoint cannot be used.
 */
export async function runDev(
  file: string | undefined,
  defaultJob: DefaultJob,
  options: ServeOptions,
): Promise<void> {
  const token = serviceToken(options);
  const kv = await openStore(options.store);
  const job = await openJob(file, defaultJob, kv, options.settings);
  const { name, env, clock, streams, store, settings } = job;
  console.log(`weir: job '${name}': ${describeJobSettings(settings)}`);
  const checkpoint = await findRestored(job, options.restore);
  // A LocalJob: restarts from the latest checkpoint when a record fails
  // under errorPolicy "fail"; the handle follows the runtime it runs.
  const runtime = env.createJob(checkpoint ?? undefined, {
    allowNonRestoredState: options.allowNonRestoredState,
  });
  const handle = new LocalJobHandle({
    name,
    runtime,
    graph: env.getJobGraph(),
    store,
    clock,
  });
  handle.startSampling(500);
  const server = startServer(
    options,
    (port) =>
      createApp({
        jobs: new Map([[name, handle]]),
        streams: new Map(streams.map((s) => [s.name, s])),
        token,
        allowedHosts: allowedHostsFor(options.host, port, token),
        clock,
      }),
    `weir: job '${name}'${
      checkpoint ? ` restored from checkpoint ${checkpoint.id}` : ""
    }`,
  );
  const running = runtime.run();
  const stopping = onShutdown(async () => {
    // A final checkpoint, so a restart resumes exactly here; none past a
    // record that failed as the job stopped (exit code 1).
    const code = await stopLocalJob(runtime, running, { name });
    handle.stop();
    await runtime.close();
    await server.shutdown();
    kv.close();
    return code;
  });
  try {
    await running;
  } catch (error) {
    // Stopping: the shutdown says how the job ended, and exits.
    await stopping();
    throw error;
  }
  if (runtime.finished) {
    console.log(`weir: job '${name}' finished (Ctrl-C stops the service)`);
  }
}
