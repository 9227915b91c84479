/**
 * `deno task dev [job-file] --runtime kv --processes N`: a supervisor that
 * starts N worker processes sharing the store (`--worker w1` … `wN`),
 * starts again one that dies (up to five times), and
 * serves the app from what they commit.
 *
 * @module
 */

import { KvRuntime } from "../actors/mod.ts";
import { describeJobSettings } from "../api/mod.ts";
import type { Command } from "./flags.ts";
import {
  type DefaultJob,
  findRestored,
  kvStartOf,
  type OpenJob,
  openJob,
} from "./job_file.ts";
import { kvFlags, type KvOptions, serveKvApp } from "./kv.ts";
import { onShutdown, openStore, type Place, serviceToken } from "./serve.ts";
import { settingFlags } from "./setting_flags.ts";

/** Restarts of one worker of `--processes N` that keeps dying. */
const MAX_RESTARTS = 5;

/**
 * The `supervisor` command, as its `--help` shows it.
 *
 * @param place Where the command line runs: the defaults depend on it.
 * @returns The command.
 */
export function supervisorCommand(place: Place): Command {
  return {
    name: "supervisor",
    usage: "deno task dev [job-file] --runtime kv --processes <n> [flags]",
    summary: [
      "Runs the job file's job (without one, the demo job) on the KV runtime",
      "in <n> worker processes sharing the store (started with --worker w1",
      "to w<n>), and serves the app from what they commit. A worker that",
      `dies is started again, up to ${MAX_RESTARTS} times; its actors wait for it or`,
      "go to the others when their leases run out. Ctrl-C stops every",
      "worker; the exit code is 1 if any ended abnormally.",
    ].join("\n"),
    flags: kvFlags(place),
    examples: [
      "deno task dev examples/live_clicks.ts --runtime kv --processes 3",
    ],
  };
}

/**
 * Starts `options.processes` workers on the store and serves the app until
 * they end.
 *
 * @param file The job file; `undefined` for the default job.
 * @param defaultJob The job run without a job file.
 * @param options The flags.
 * @param entry The command line's entry (`main.ts`), which each worker runs.
 * @throws {Error} If the store, the job or its checkpoint cannot be used.
 */
export async function runSupervisor(
  file: string | undefined,
  defaultJob: DefaultJob,
  options: KvOptions,
  entry: URL,
): Promise<void> {
  const token = serviceToken(options);
  const kv = await openStore(options.store);
  const job = await openJob(file, defaultJob, kv, options.settings);
  console.log(`weir: job '${job.name}': ${describeJobSettings(job.settings)}`);
  await supervise(file, options, kv, job, token, entry);
}

async function supervise(
  file: string | undefined,
  options: KvOptions,
  kv: Deno.Kv,
  job: OpenJob,
  token: string | undefined,
  entry: URL,
): Promise<void> {
  // Refused here, once, rather than by every worker after the reset.
  const checkpoint = await findRestored(job, options.restore);
  const start = await kvStartOf(kv, job, options.restore, checkpoint);
  console.log(`weir: job '${job.name}': ${start.text}`);
  if (options.restore !== "latest") {
    // Start over (from nothing, or from the checkpoint asked for).
    await KvRuntime.reset(kv, job.name);
  }
  const spawn = (worker: string) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-net",
        "--unstable-kv",
        "--unstable-cron",
        entry.pathname,
        ...(file === undefined ? [] : [file]),
        "--runtime",
        "kv",
        "--worker",
        worker,
        "--store",
        options.store,
        "--restore",
        String(options.restore),
        "--lease-ms",
        String(options.leaseMs),
        ...settingFlags(options.settings),
        ...(options.allowNonRestoredState
          ? ["--allow-non-restored-state"]
          : []),
      ],
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
  const children: Deno.ChildProcess[] = [];
  let stopping = false;
  // A worker that dies (a crash, a kill) is started again, up to
  // MAX_RESTARTS times; its actors wait for it or go to the others when
  // their leases run out.
  const keep = async (i: number): Promise<Deno.CommandStatus> => {
    const worker = `w${i + 1}`;
    for (let restarts = 0;; restarts++) {
      children[i] = spawn(worker);
      const status = await children[i].status;
      if (status.success || stopping || restarts === MAX_RESTARTS) {
        return status;
      }
      console.error(
        `weir: worker ${worker} exited (${
          status.signal ?? `code ${status.code}`
        }); starting it again (${restarts + 1} of ${MAX_RESTARTS})`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  const running = Array.from({ length: options.processes }, (_, i) => keep(i));
  const observer = job.env.createKvRuntime({ kv, workerId: "supervisor" });
  const { server, stop } = await serveKvApp(options, job, observer, {
    banner:
      `weir: job '${job.name}' on the KV runtime, ${options.processes} worker processes sharing ${options.store}`,
    token,
    restoredFrom: start.restoredFrom,
  });
  // One ending, whether the workers end or Ctrl-C stops them: the server
  // and the store are closed once.
  const done = Promise.all(running).then(async (statuses) => {
    stop();
    await server.shutdown();
    kv.close();
    // A worker our Ctrl-C stopped before it could take the signal (still
    // starting) ended as asked: its state is in the store.
    const failed = statuses.filter((s) =>
      !s.success && !(stopping && s.signal === "SIGTERM")
    ).length;
    console.log(
      `weir: job '${job.name}': ${
        options.processes - failed
      } of ${options.processes} workers ended normally`,
    );
    return failed > 0 ? 1 : 0;
  });
  onShutdown(async () => {
    stopping = true;
    for (const child of children) {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
    }
    return await done;
  });
  if (await done > 0) Deno.exit(1);
}
