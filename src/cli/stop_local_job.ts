/**
 * What Ctrl-C does to a job on the local runtime (`deno task dev`): stops
 * it with a final checkpoint (Flink's stop-with-savepoint), unless it
 * failed. A runtime whose run failed, or in which a record failed under
 * `"fail"` (as it stopped, or while the final checkpoint drained it), is
 * never checkpointed: a checkpoint past a record that was neither written
 * nor set aside would lose it. The service then says what happened and
 * where the next start resumes, and exits non-zero.
 *
 * @module
 */

import type { LocalJob } from "../actors/local/local_job.ts";
import type { RecordFailedError } from "../runtime/dead_letter.ts";

/** Where {@linkcode stopLocalJob} reports. */
export interface StopLocalJobOptions {
  /** The job's name, for its lines. */
  readonly name: string;
  /**
   * Where the lines of a clean stop go.
   * @default {console.log}
   */
  readonly log?: (line: string) => void;
  /**
   * Where the lines of a failed stop go.
   * @default {console.error}
   */
  readonly warn?: (line: string) => void;
}

/**
 * Stops a running job: with a final checkpoint, or none if it failed.
 *
 * @param job The job.
 * @param running What its `run()` returned.
 * @param options The job's name and where lines go.
 * @returns The service's exit code: 0 when the job stopped cleanly (at a
 * final checkpoint, or after its input ended), 1 when it failed.
 * @throws {Error} What the final checkpoint threw, other than a record's
 * failure (a store that cannot be written).
 */
export async function stopLocalJob(
  job: LocalJob,
  running: Promise<unknown>,
  options: StopLocalJobOptions,
): Promise<number> {
  const { name, log = console.log, warn = console.error } = options;
  job.stop();
  const ended = await running.then(() => null, (error: unknown) => error);
  if (ended !== null && job.failedRecord === null) {
    // Its state is half a step: a checkpoint of it could be past a record.
    warn(
      `weir: job '${name}' stopped as it failed: ${
        ended instanceof Error ? ended.message : String(ended)
      }; no final checkpoint was taken: the next start ${
        resumes(job.latestCheckpoint?.id)
      }`,
    );
    return 1;
  }
  let final: number | null = null;
  if (job.failedRecord === null) {
    const pending = job.checkpointInProgress;
    if (pending !== null) {
      log(
        `weir: stopping: checkpoint ${pending} is in progress; waiting for it, then taking a final one`,
      );
    }
    final = await job.finalCheckpoint();
  }
  const failed = job.failedRecord;
  if (failed !== null) {
    warn(failedLine(name, failed, job.latestCheckpoint?.id));
    return 1;
  }
  log(
    final === null
      ? `weir: job '${name}' stopped (its input has ended: no final checkpoint)`
      : `weir: job '${name}' stopped at final checkpoint ${final}`,
  );
  return 0;
}

function resumes(checkpoint: number | undefined): string {
  return checkpoint === undefined
    ? "(--restore latest) starts from the beginning"
    : `(--restore latest) restores checkpoint ${checkpoint}`;
}

function failedLine(
  name: string,
  failed: RecordFailedError,
  checkpoint: number | undefined,
): string {
  const { letter } = failed;
  return `weir: job '${name}' stopped after a record of ${letter.operator} subtask ${letter.subtask} at ${letter.position} failed (errorPolicy "fail"): ${letter.error.name}: ${letter.error.message}; no final checkpoint was taken past it: the next start ${
    resumes(checkpoint)
  } and quarantines the record if it fails again (dead-letter log: GET /jobs/${name}/dead-letters)`;
}
