/**
 * {@linkcode UnreadableCheckpointsError}: a job's store holds checkpoints,
 * and none of them can be restored.
 *
 * @module
 */

/** One checkpoint that could not be restored, and why. */
export interface UnreadableCheckpoint {
  /** The checkpoint id. */
  readonly id: number;
  /** What is wrong with it, e.g. "its manifest is malformed: it is 'x'". */
  readonly problem: string;
}

// How many checkpoints the message names; the rest are counted.
const NAMED = 3;

/**
 * Every complete checkpoint of a job is corrupt (a manifest that cannot be
 * read, a snapshot missing), so there is nothing to restore.
 *
 * Starting fresh here would silently drop the job's state and run it again
 * from the beginning of its input, so the restore is refused: a person
 * decides. Programs may branch on `code` to start over on purpose
 * (`execute({ restore: "none" })`, `--restore none` on the command line);
 * a job started over keeps the store's checkpoint ids growing, and its
 * first save deletes the corrupt checkpoints. A store that holds only
 * partial checkpoints (saves that crashed before their manifest) is not
 * refused: nothing complete was ever there.
 *
 * @example Refusing a store whose only checkpoint lost a snapshot
 * ```ts
 * import { CheckpointStore, MemoryStorage, UnreadableCheckpointsError } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const fingerprint = { jobName: "clicks", operatorIds: ["src-1"], maxParallelism: 128, stateFormatVersion: 1 };
 * const storage = new MemoryStorage();
 * const store = new CheckpointStore(storage, { log: () => {} });
 * await store.save({ id: 1, fingerprint, createdAt: 0, subtasks: { "clicks/src-1/0": 5 } });
 * await storage.delete(["cp", 1, "s", "clicks/src-1/0"]);
 * await assert.rejects(store.latest(fingerprint), UnreadableCheckpointsError);
 * ```
 */
export class UnreadableCheckpointsError extends Error {
  /** A stable code for programs to branch on. */
  readonly code = "CHECKPOINTS_UNREADABLE";
  /** The job whose checkpoints were read. */
  readonly jobName: string;
  /** Every checkpoint tried, newest first, with what is wrong with it. */
  readonly checkpoints: readonly UnreadableCheckpoint[];

  /**
   * Creates the error; its message names the checkpoints (the first three,
   * and how many more), what is wrong with each, and how to start over.
   *
   * @param jobName The job that tried to restore.
   * @param checkpoints The checkpoints tried, newest first: at least one.
   */
  constructor(jobName: string, checkpoints: readonly UnreadableCheckpoint[]) {
    const named = checkpoints.slice(0, NAMED).map((c) =>
      `checkpoint ${c.id} (${c.problem})`
    );
    const more = checkpoints.length > NAMED
      ? ` and ${checkpoints.length - NAMED} more`
      : "";
    super(
      `Cannot restore the latest checkpoint of job '${jobName}' as one of its complete checkpoints must be whole: current value is ${
        named.join(", ")
      }${more}; to start over from the beginning of the input, run with --restore none (execute({ restore: "none" }) in the API)`,
    );
    this.name = "UnreadableCheckpointsError";
    this.jobName = jobName;
    this.checkpoints = checkpoints.map((c) => ({ ...c }));
  }
}
