// How a KV-runtime job starts in a database: its record is written once,
// under a start lease, after the actors' first state is seeded from the
// checkpoint it restores (redistributed on a rescale); a job already
// recorded with another plan or watermarkRecovery is refused. A reset
// deletes it all again, so that the next start begins afresh.

import type { Clock } from "../../time/mod.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import type { SourceSubtaskSnapshot } from "../../runtime/source_subtask.ts";
import { fingerprintOf } from "../../runtime/fingerprint.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import { encodeStructured } from "../_codec.ts";
import { snapshotsToUse } from "../_encoded_checkpoint.ts";
import { snapshotsToRestore } from "../../runtime/rescale/mod.ts";
import type { ActorStorage } from "../storage.ts";
import { DeadLetterLog } from "../dead_letter_log.ts";
import { checkpointRestored } from "../checkpoint_telemetry.ts";
import { jobKeyPrefix } from "../job_keys.ts";
import { AtomicConflictError, KvStorage } from "./kv_storage.ts";
import { copyOutboxes } from "./_dead_letter_outbox.ts";
import type { Lease } from "./lease.ts";
import type { ActorWiring } from "./_wiring.ts";
import { freshMeta } from "./_step_commit.ts";

/** What {@linkcode startJob} needs of the worker. */
export interface JobStart {
  readonly kv: Deno.Kv;
  readonly graph: JobGraph;
  /** The job record's key. */
  readonly key: Deno.KvKey;
  readonly wirings: readonly ActorWiring[];
  /** Whether the job persists event time (`watermarkRecovery`). */
  readonly persist: boolean;
  readonly restoreFrom: CompletedCheckpoint | undefined;
  readonly allowNonRestoredState: boolean;
  readonly clock: Clock;
  /** The start lease (a new handle per try). */
  lease(): Lease;
  storageOf(actorId: string): KvStorage;
  retry<T>(what: string, call: () => Promise<T>): Promise<T>;
  /** Waits a little while another worker starts the job. */
  wait(): Promise<void>;
}

interface JobRecord {
  plan: string;
  watermarkRecovery?: string;
  createdAt?: number;
}

/**
 * Starts the job in its database if no worker has: the first worker to
 * take the start lease seeds the actors and writes the record; the others
 * wait for it.
 *
 * @returns When the job first ran in this database (the record's
 * creation), from which actors activated with no state count their
 * schedules; `undefined` for records written before it was kept.
 * @throws {RangeError} If the job recorded runs another plan or
 * `watermarkRecovery`.
 */
export async function startJob(start: JobStart): Promise<number | undefined> {
  const { kv, key, retry } = start;
  // The checkpoint fingerprint allows another parallelism (a restore
  // redistributes state); running actors and channels do not. Its
  // operators (names, uids, state meanings) are left out, as before they
  // were in it: databases of running jobs keep their record, and renaming
  // an operator or adding a uid does not stop a job from resuming.
  const { operators: _, ...fingerprint } = fingerprintOf(start.graph);
  const plan = JSON.stringify({
    fingerprint,
    parallelism: start.graph.vertices.map((v) => [v.id, v.parallelism]),
  });
  const recovery = start.persist ? "persist" : "replay";
  for (;;) {
    const entry = await retry(
      "read the job record",
      () => kv.get<JobRecord>(key),
    );
    if (entry.value !== null) {
      checkRecord(start.graph.jobName, entry.value, plan, recovery);
      return entry.value.createdAt;
    }
    const lease = start.lease();
    if (!(await retry("take the start lease", () => lease.acquire()))) {
      await start.wait();
      continue;
    }
    if (start.restoreFrom !== undefined) {
      const restoring = Date.now();
      try {
        await seed(start, start.restoreFrom, lease);
      } catch (error) {
        // Another worker took the start lease: it seeds; wait for it.
        if (!(error instanceof AtomicConflictError)) throw error;
        continue;
      }
      checkpointRestored(start.restoreFrom, restoring);
    }
    const startedAt = start.clock.now();
    const record: JobRecord = {
      plan,
      watermarkRecovery: recovery,
      createdAt: startedAt,
    };
    const result = await retry(
      "record the job",
      () =>
        kv.atomic().check({ key, versionstamp: null }).check(lease.check)
          .set(key, record).commit(),
    );
    await retry("give the start lease up", () => lease.release())
      .catch(() => {});
    if (result.ok) return startedAt;
  }
}

/** Refuses a job recorded with another plan or watermarkRecovery. */
function checkRecord(
  jobName: string,
  record: JobRecord,
  plan: string,
  recovery: string,
): void {
  if (record.plan !== plan) {
    throw new RangeError(
      `Cannot run job '${jobName}' in the KV runtime as its plan must match the one already running in this database: current value differs (start over with --restore none or KvRuntime.reset())`,
    );
  }
  // Jobs recorded before replay existed always persisted event time.
  const running = record.watermarkRecovery ?? "persist";
  if (running !== recovery) {
    throw new RangeError(
      `Cannot run job '${jobName}' in the KV runtime as 'watermarkRecovery' must match the job already running in this database ("${running}"): current value is "${recovery}" (keep it, or start over with --restore none or --restore <checkpoint id>)`,
    );
  }
}

/** Writes every actor's first state from a checkpoint (redistributed on a rescale). */
async function seed(
  start: JobStart,
  checkpoint: CompletedCheckpoint,
  lease: Lease,
): Promise<void> {
  const { graph, retry } = start;
  const partitions = new Map<string, string[][]>();
  for (const vertex of graph.vertices) {
    if (vertex.source === undefined) continue;
    const list: string[][] = [];
    for (let i = 0; i < vertex.parallelism; i++) {
      list.push([
        ...vertex.source.source.createReader(i, vertex.parallelism).partitions,
      ]);
    }
    partitions.set(vertex.id, list);
  }
  const snapshots = snapshotsToRestore(
    graph,
    {
      id: checkpoint.id,
      fingerprint: checkpoint.fingerprint,
      createdAt: checkpoint.createdAt,
      subtasks: snapshotsToUse(checkpoint),
    },
    (vertexId) => partitions.get(vertexId)!,
    { allowNonRestoredState: start.allowNonRestoredState },
  );
  // Every write checks the start lease: a worker whose seeding outlived it
  // (another took over) writes nothing more.
  for (const wiring of start.wirings) {
    const renewed = !lease.due() ||
      await retry("renew the start lease", () => lease.renew());
    if (!renewed) {
      throw new AtomicConflictError("the start lease was taken over");
    }
    const meta = freshMeta(wiring);
    const snapshot = snapshots.get(wiring.id);
    // A replay starts at the restored positions.
    if (!start.persist && wiring.inputs.length === 0) {
      meta.replayReader = (snapshot as SourceSubtaskSnapshot).reader;
    }
    await retry(
      `seed actor '${wiring.id}'`,
      () =>
        start.storageOf(wiring.id).atomic([
          { type: "put", key: ["meta"], value: meta },
          { type: "put", key: ["state"], value: encodeStructured(snapshot) },
        ], { checks: [lease.check] }),
    );
  }
}

/** Whether job `jobName` has been recorded in `kv` (see `KvRuntime.started`). */
export async function jobStarted(
  kv: Deno.Kv,
  jobName: string,
): Promise<boolean> {
  const key = [...jobKeyPrefix(jobName), "kvrt", "job"];
  return (await kv.get(key)).versionstamp !== null;
}

/**
 * Deletes the job's KV-runtime state after copying the letters left in
 * the actors' outboxes to its dead-letter log (see `KvRuntime.reset`).
 *
 * @returns How many keys were deleted.
 */
export async function resetJob(
  kv: Deno.Kv,
  jobName: string,
  deadLetterStorage: ActorStorage | undefined,
): Promise<number> {
  let deleted = 0;
  let op = kv.atomic();
  let n = 0;
  const prefix = [...jobKeyPrefix(jobName), "kvrt"];
  await copyOutboxes(
    kv,
    prefix,
    new DeadLetterLog(
      deadLetterStorage ??
        new KvStorage(kv, [...jobKeyPrefix(jobName), "dead-letters"]),
    ),
  );
  for await (const entry of kv.list({ prefix })) {
    op.delete(entry.key);
    deleted++;
    if (++n === 500) {
      await op.commit();
      op = kv.atomic();
      n = 0;
    }
  }
  if (n > 0) await op.commit();
  return deleted;
}
