/**
 * weir's command line. Runs the demo job (`examples/clicks_per_page.ts`) in
 * the local runtime and prints each subtask's watermarks as they advance,
 * then the window results. The HTTP service and job files come with issue #7.
 *
 * @module
 */

import {
  formatWatermark,
  runClicksPerPage,
} from "./examples/clicks_per_page.ts";

if (import.meta.main) {
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
