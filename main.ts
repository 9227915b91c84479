/**
 * weir's command line.
 *
 * - `deno task dev` runs the demo job (`examples/clicks_per_page.ts`) in the
 *   local runtime and prints each subtask's watermarks as they advance, then
 *   the window results.
 * - `deno task dev durable [kv-file] [--restore latest|none|<id>]` runs the
 *   durable job (`examples/durable_counts.ts`) on a Deno KV file (default
 *   `./.weir/durable.sqlite`): it seeds the event log on first use, resumes
 *   from the latest checkpoint (or the one given) and prints the table.
 *
 * The HTTP service and arbitrary job files come with issue #7.
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  formatWatermark,
  runClicksPerPage,
} from "./examples/clicks_per_page.ts";
import {
  eventLog,
  runDurableCounts,
  seedEvents,
  TABLE_NAME,
  type WindowCount,
} from "./examples/durable_counts.ts";
import { readTable } from "./src/mod.ts";

async function demo(): Promise<void> {
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

async function durable(path: string, restore: string): Promise<void> {
  const restoreFrom = restore === "latest" || restore === "none"
    ? restore
    : Number(restore);
  if (typeof restoreFrom === "number" && !Number.isSafeInteger(restoreFrom)) {
    throw new RangeError(
      `Cannot run the durable job as '--restore' must be latest, none or a checkpoint id: current value is ${restore}`,
    );
  }
  await Deno.mkdir(path.split("/").slice(0, -1).join("/") || ".", {
    recursive: true,
  });
  const kv = await Deno.openKv(path);
  try {
    if (await eventLog(kv).head(0) === 0) {
      console.log(`seeding 300000 events into ${path}`);
      await seedEvents(kv, 300_000);
    }
    await runDurableCounts(kv, restoreFrom);
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
  const { positionals, values } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { restore: { type: "string", default: "latest" } },
  });
  try {
    if (positionals[0] === "durable") {
      await durable(positionals[1] ?? "./.weir/durable.sqlite", values.restore);
    } else {
      await demo();
    }
  } catch (error) {
    console.error(
      `error: ${error instanceof Error ? error.message : String(error)}`,
    );
    Deno.exit(1);
  }
}
