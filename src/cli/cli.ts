/**
 * weir's command line: reads the arguments, picks the command they ask for
 * (`dev` on the local runtime, `kv`, or `supervisor` with `--processes N`),
 * prints its `--help`, refuses a flag it does not take, and runs it.
 *
 * @module
 */

import { devCommand, runDev } from "./dev.ts";
import {
  type Command,
  type Flag,
  formatHelp,
  type ParsedArgs,
  parseFlags,
  refuseOtherFlags,
} from "./flags.ts";
import type { DefaultJob } from "./job_file.ts";
import { kvCommand, kvOptions, runKv } from "./kv.ts";
import { type Place, serveOptions } from "./serve.ts";
import { refuseSettingFlags } from "./setting_flags.ts";
import { runSupervisor, supervisorCommand } from "./supervisor.ts";

/** What the entry (`main.ts`) gives the command line. */
export interface CliSetup {
  /** Where the command line runs. */
  readonly place: Place;
  /** The job run without a job file. */
  readonly defaultJob: DefaultJob;
  /** The entry's own URL: what a supervisor's workers run. */
  readonly entry: URL;
  /**
   * Example entry points run by a word (`demo`, `durable`): `deno task dev
   * demo` runs the module's `main(args)` with the arguments after the word.
   */
  readonly examples: Readonly<Record<string, URL>>;
  /** Given what ticks the KV runtime, for Deploy's cron. */
  readonly onTick: (tick: () => Promise<boolean>) => void;
}

/** An example entry point: what `deno task <example>` runs. */
interface ExampleModule {
  main(args: string[]): Promise<void>;
}

function topHelp(setup: CliSetup): string {
  const words = Object.keys(setup.examples);
  return [
    "Usage: deno task dev [job-file] [--runtime local|kv] [--processes <n>] [flags]",
    "",
    "weir's command line: runs a job file's job (without one, the demo job of",
    "examples/live_clicks.ts) over a Deno KV file and serves the HTTP app.",
    "",
    "Commands (each with its own --help):",
    "  dev          deno task dev [job-file]                 the local runtime (default)",
    "  kv           deno task dev [job-file] --runtime kv    the KV runtime, one process",
    "  supervisor   deno task dev [job-file] --runtime kv --processes <n>",
    "                                                        <n> worker processes on one store",
    ...words.map((word) =>
      `  ${
        word.padEnd(12)
      } deno task ${word} (or deno task dev ${word}), an example`
    ),
    "",
    "Environment: WEIR_TOKEN (protects ingest and admin endpoints), PORT",
    "(default of --port), DENO_DEPLOY (Deno Deploy: --runtime kv on its KV),",
    "WEIR_JOB (the job file run when none is given, e.g. on Deno Deploy).",
    "",
    "Examples:",
    "  deno task dev",
    "  deno task dev examples/ingest_counts.ts --help",
    "  deno task dev --runtime kv --processes 3 --help",
  ].join("\n");
}

/** Every flag of every command: what the arguments are first read against. */
function allFlags(commands: readonly Command[]): Flag[] {
  const byName = new Map<string, Flag>();
  for (const command of commands) {
    for (const flag of command.flags) byName.set(flag.name, flag);
  }
  return [...byName.values()];
}

/** The command the arguments ask for, from `--runtime` and `--processes`. */
function pick(parsed: ParsedArgs, commands: Record<string, Command>): Command {
  const { runtime, processes, worker } = parsed.values;
  if (runtime === "local") {
    if (processes !== "1") {
      throw new RangeError(
        `Cannot start as '--processes' needs '--runtime kv': current value is ${processes} with --runtime local`,
      );
    }
    return commands.dev;
  }
  if (runtime !== "kv") {
    throw new RangeError(
      `Cannot start as '--runtime' must be local or kv: current value is ${runtime}`,
    );
  }
  return worker === undefined && Number(processes) > 1
    ? commands.supervisor
    : commands.kv;
}

/**
 * Runs the command line: the command `args` ask for, or its help.
 *
 * @param args The arguments, e.g. `Deno.args`.
 * @param setup What the entry gives it.
 * @throws {Error} What the command throws: a wrong flag names it.
 */
export async function runCli(
  args: readonly string[],
  setup: CliSetup,
): Promise<void> {
  const { place, defaultJob } = setup;
  const commands = {
    dev: devCommand(place),
    kv: kvCommand(place),
    supervisor: supervisorCommand(place),
  };
  const parsed = parseFlags(args, allFlags(Object.values(commands)));
  const help = parsed.given.includes("help");
  const [first] = parsed.positionals;
  const example = first !== undefined && Object.hasOwn(setup.examples, first)
    ? setup.examples[first]
    : undefined;
  if (example !== undefined) {
    // Its job has settings of its own: a settings flag would be ignored.
    if (!help) refuseSettingFlags(parsed.values, first!);
    const rest = args.filter((_, i) => i !== parsed.positionalIndexes[0]);
    const module: ExampleModule = await import(example.href);
    return await module.main(rest);
  }
  if (
    help && parsed.positionals.length === 0 &&
    !["runtime", "processes", "worker"].some((f) => parsed.given.includes(f))
  ) {
    console.log(topHelp(setup));
    return;
  }
  const command = pick(parsed, commands);
  if (help) {
    console.log(formatHelp(command));
    return;
  }
  refuseOtherFlags(parsed, command, ["runtime", "processes"]);
  if (parsed.positionals.length > 1) {
    throw new RangeError(
      `Cannot start as the command takes one job file: current arguments are ${
        parsed.positionals.join(" ")
      }`,
    );
  }
  const serve = serveOptions(parsed);
  if (command === commands.dev) {
    return await runDev(first, defaultJob, serve);
  }
  const options = kvOptions(parsed, serve);
  if (command === commands.supervisor) {
    if (place.onDeploy) {
      // Deno Deploy starts no processes: its instances share the job.
      throw new RangeError(
        `Cannot start as '--processes' cannot be used on Deno Deploy (it starts no processes; its instances share the job's actors): current value is ${options.processes}`,
      );
    }
    return await runSupervisor(first, defaultJob, options, setup.entry);
  }
  await runKv(first, defaultJob, options, place, setup.onTick);
}
