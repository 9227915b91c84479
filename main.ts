/**
 * weir's command line. Until the runtime lands (issue #4) it runs the
 * idle-partitions demo: watermarks of three source partitions, one of which
 * falls silent, merged downstream with and without idleness detection.
 *
 * @module
 */

import { formatTicks, runIdlePartitions } from "./examples/idle_partitions.ts";

if (import.meta.main) {
  console.log(
    "weir demo: three partitions, partition 2 falls silent at t=1000 ms",
  );
  console.log(
    "watermarks are in ms of event time since the start of the run\n",
  );
  console.log("without withIdleness():");
  for (const line of formatTicks(runIdlePartitions({ idleTimeoutMs: null }))) {
    console.log(`  ${line}`);
  }
  console.log("\nwith withIdleness(2000):");
  for (const line of formatTicks(runIdlePartitions({ idleTimeoutMs: 2_000 }))) {
    console.log(`  ${line}`);
  }
}
