/**
 * `deno task demo`: the simulated clicks demo (`clicks_per_page.ts`) on a
 * manual clock, printing each subtask's watermark every 5 s of event time
 * and each window result, with one partition falling silent.
 *
 * ```sh
 * deno task demo
 * ```
 *
 * @module
 */

import { type Command, formatHelp, parseFlags } from "../src/cli/flags.ts";
import { formatWatermark, runClicksPerPage } from "./clicks_per_page.ts";

/** The command, as its `--help` shows it. */
export const demoCommand: Command = {
  name: "demo",
  usage: "deno task demo",
  summary: [
    "Counts simulated clicks per page per 10 s, parallelism 2, from 4 source",
    "partitions; partition 3 falls silent at 12 s and withIdleness(3 s) keeps",
    "event time moving. Prints the watermarks every 5 s and each window.",
  ].join("\n"),
  flags: [],
  examples: ["deno task demo"],
};

/**
 * Runs the command.
 *
 * @param args Its arguments: only `--help`.
 * @throws {RangeError} If a flag or an argument is given.
 */
export async function main(args: string[]): Promise<void> {
  const parsed = parseFlags(args, demoCommand.flags, "the demo example");
  if (parsed.given.includes("help")) {
    console.log(formatHelp(demoCommand));
    return;
  }
  console.log(
    "weir demo: clicks per page per 10 s, parallelism 2, 4 source partitions",
  );
  console.log(
    "partition 3 falls silent at 12 s; withIdleness(3 s) keeps event time moving\n",
  );
  const results = await runClicksPerPage({
    onTick(atMs, status) {
      if (atMs % 5_000 !== 0) return;
      const line = status.map((s) =>
        `${s.operator}/${s.subtask}=${formatWatermark(s.outputWatermark)}${
          s.idle ? " (idle)" : ""
        }`
      ).join("  ");
      console.log(`t=${String(atMs / 1_000).padStart(2)}s  ${line}`);
    },
    onResult(atMs, result) {
      console.log(
        `          window ${formatWatermark(result.windowStart)} ${
          result.page.padEnd(8)
        } ${result.clicks} clicks (emitted at t=${atMs / 1_000}s)`,
      );
    },
  });
  console.log(`\n${results.length} window results`);
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (error) {
    console.error(
      `error: ${error instanceof Error ? error.message : String(error)}`,
    );
    Deno.exit(1);
  }
}
