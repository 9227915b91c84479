/**
 * The options of a stream environment (the job's name, parallelism, time,
 * checkpoints and error policy) and of running its job.
 *
 * @module
 */

import type { Clock } from "../time/mod.ts";
import type { ErrorPolicy } from "../runtime/dead_letter.ts";
import type { ActorStorage } from "../actors/storage.ts";

/** Options of a `StreamEnvironment`. */
export interface StreamEnvironmentOptions {
  /** The job's name: part of actor ids, storage keys and the checkpoint fingerprint. */
  jobName: string;
  /**
   * The default parallelism of operators.
   * @default {1}
   */
  parallelism?: number;
  /**
   * The number of key groups: the largest parallelism the job can be rescaled to.
   * @default {128}
   */
  maxParallelism?: number;
  /**
   * Processing time between periodic watermarks; 0 disables them.
   * @default {200}
   */
  autoWatermarkIntervalMs?: number;
  /**
   * Processing time. A `ManualClock` makes runs a deterministic simulation.
   * @default {new SystemClock()}
   */
  clock?: Clock;
  /**
   * Elements a subtask's mailbox holds before its producers pause.
   * @default {64}
   */
  mailboxCapacity?: number;
  /**
   * Processing time between checkpoints; 0 disables them.
   * @default {0}
   */
  checkpointIntervalMs?: number;
  /**
   * Whether event-time progress (generators, valves, watermarks) is part of
   * checkpoints (`"persist"`: a restored job continues with the same event
   * time and the same late-data decisions) or rebuilt from the replayed
   * records (`"replay"`, Flink's behaviour: event time restarts at
   * `-Infinity`).
   * @default {"replay"}
   */
  watermarkRecovery?: "persist" | "replay";
  /**
   * Where checkpoints are stored, e.g. `new KvStorage(kv, ["weir", jobName,
   * "checkpoints"])`; without it checkpoints live only in memory.
   * @default {null}
   */
  checkpointStorage?: ActorStorage | null;
  /**
   * How many completed checkpoints to keep.
   * @default {3}
   */
  retainedCheckpoints?: number;
  /**
   * What happens to a record whose processing throws (a key selector, a
   * map, a window function, a sink that refuses it), on either runtime:
   * - `"dead-letter"`: the record, the operator, the error and the input
   *   position go to the dead-letter log (`deadLetterStorage`), a line is
   *   logged, and the job goes on without the record.
   * - `"fail"` (Flink's behaviour): the job restarts from its latest
   *   checkpoint; if the same record (by its content) fails again after
   *   the restore, it is quarantined (written to the dead-letter log as
   *   `"quarantined"`) instead of replayed forever; if the record cannot
   *   be recognised (its content changed), the next failure at the same
   *   operator subtask before the job makes progress is. The local runtime
   *   restarts the whole job in the process (`execute()`, `createJob()`);
   *   the KV runtime reloads the failing actor from its last committed
   *   step, its unit of recovery.
   * @default {"dead-letter"}
   */
  errorPolicy?: ErrorPolicy;
  /**
   * Where the dead-letter log is kept, e.g. `new KvStorage(kv, ["weir",
   * jobName, "dead-letters"])`; without it, in memory (the KV runtime then
   * keeps it in its database, under that key).
   * @default {null}
   */
  deadLetterStorage?: ActorStorage | null;
  /**
   * Where the records that failed once under `"fail"` are remembered, e.g.
   * `new KvStorage(kv, ["weir", jobName, "strikes"])`, so that after a
   * process restart too they are quarantined if they fail again; without
   * it, in memory (the KV runtime then keeps them in its database, under
   * that key).
   * @default {null}
   */
  strikeStorage?: ActorStorage | null;
}

/** Options of `StreamEnvironment.execute`. */
export interface ExecuteOptions {
  /**
   * Which checkpoint to start from: `"latest"` restores the newest complete
   * checkpoint of this job if there is one, a number restores that
   * checkpoint, `"none"` starts fresh. Whichever it is, the job numbers
   * its checkpoints above every id the store ever held, so ids only grow.
   * @default {"latest"}
   */
  restore?: "latest" | "none" | number;
  /**
   * Whether the restored checkpoint may hold state of operators this job
   * no longer has, which is then dropped (Flink's
   * `--allowNonRestoredState`). Otherwise such a restore is refused with a
   * `CheckpointMismatchError` naming those operators. Operators are
   * matched by `uid()`, or by positional id without one.
   * @default {false}
   */
  allowNonRestoredState?: boolean;
}
