/**
 * `deno task durable [kv-file] [--restore latest|none|<id>]`: seeds the
 * durable example's log (`durable_counts.ts`), completing a seeding a kill
 * cut short, then runs its job to the end of the log, from the latest
 * checkpoint (or the one asked for), and prints the table's totals.
 *
 * ```sh
 * deno task durable ./.weir/durable.sqlite            # seed, then run or resume
 * deno task durable ./.weir/durable.sqlite --restore 7 # from checkpoint 7
 * ```
 *
 * @module
 */

import { readTable } from "../src/connectors/mod.ts";
import { type Command, formatHelp, parseFlags } from "../src/cli/flags.ts";
import { parseRestore, restoreFlagError } from "../src/cli/restore_flag.ts";
import { openStore } from "../src/cli/serve.ts";
import {
  eventsToSeed,
  runDurableCounts,
  seedEvents,
  TABLE_NAME,
  type WindowCount,
} from "./durable_counts.ts";

const EVENTS = 300_000;

/** The command, as its `--help` shows it. */
export const durableCommand: Command = {
  name: "durable",
  usage: "deno task durable [kv-file] [--restore latest|none|<id>]",
  summary: [
    `Seeds ${EVENTS} events into a partitioned log in the KV file (completing`,
    "a seeding a kill cut short), counts them per key in 10 s event-time",
    "windows into a KV table, checkpointing every 20 ms, and prints the",
    "totals. Killed and run again, it resumes from its latest checkpoint and",
    "ends with the same table. The kv-file defaults to ./.weir/durable.sqlite.",
  ].join("\n"),
  flags: [{
    name: "restore",
    value: "latest|none|<id>",
    default: "latest",
    about: "where the job restarts from",
  }],
  examples: [
    "deno task durable ./.weir/durable.sqlite",
    "deno task durable ./.weir/durable.sqlite --restore 7",
  ],
};

/**
 * Runs the command.
 *
 * @param args Its arguments.
 * @throws {Error} If a flag is wrong, or the store or checkpoint cannot be used.
 */
export async function main(args: string[]): Promise<void> {
  const parsed = parseFlags(args, durableCommand.flags, "the durable example");
  if (parsed.given.includes("help")) {
    console.log(formatHelp(durableCommand));
    return;
  }
  const restore = parseRestore(parsed.values.restore!);
  const path = parsed.positionals[0] ?? "./.weir/durable.sqlite";
  const kv = await openStore(path);
  try {
    // Also completes a seeding that a kill cut short.
    const missing = await eventsToSeed(kv, EVENTS);
    if (missing > 0) {
      console.log(`seeding ${missing} events into ${path}`);
      await seedEvents(kv, EVENTS);
    }
    await runDurableCounts(kv, restore).catch((error) => {
      throw restoreFlagError(error, restore);
    });
    const rows = [...(await readTable<WindowCount>(kv, TABLE_NAME)).values()];
    console.log(
      `${rows.length} window counts, ${
        rows.reduce((n, r) => n + r.count, 0)
      } events`,
    );
  } finally {
    kv.close();
  }
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
