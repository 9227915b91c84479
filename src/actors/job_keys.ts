/**
 * Where a job keeps its state in a store: every key of job `name` starts
 * with `["weir", name]` (its checkpoints, its KV-runtime actors), next to
 * the connectors' own spaces (`["weir", "log", ...]` for logs and ingest
 * streams, `"table"`, `"append"`), so starting one job over deletes
 * nothing of another job or of a log.
 *
 * @module
 */

import { describeValue } from "../time/validate.ts";

/** The names under `["weir"]` that connectors use: no job may have them. */
export const RESERVED_JOB_NAMES: readonly string[] = ["log", "table", "append"];

/**
 * The first key parts of everything job `jobName` keeps in a store.
 *
 * @param jobName The job's name.
 * @returns `["weir", jobName]`.
 * @throws {RangeError} If the name is one the connectors use.
 *
 * @example
 * ```ts
 * import { jobKeyPrefix } from "./job_keys.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual([...jobKeyPrefix("clicks"), "checkpoints"], ["weir", "clicks", "checkpoints"]);
 * assert.throws(() => jobKeyPrefix("log"), RangeError);
 * ```
 */
export function jobKeyPrefix(jobName: string): readonly ["weir", string] {
  if (RESERVED_JOB_NAMES.includes(jobName)) {
    throw new RangeError(
      `Cannot keep job ${
        describeValue(jobName)
      } in a store as its name must not be one of ${
        RESERVED_JOB_NAMES.join(", ")
      }: current value is ${
        describeValue(jobName)
      } (the store's logs and tables live there; rename the job or its file)`,
    );
  }
  return ["weir", jobName];
}
