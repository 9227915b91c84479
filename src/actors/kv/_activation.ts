// How a KV-runtime worker takes an actor up: it takes the lease, loads the
// actor's last committed step, copies the dead letters a crash left in its
// outbox, builds the subtask in memory and, in replay mode, rebuilds its
// event time by reading its input again (see `_replay.ts`).

import type { SourceSubtaskSnapshot } from "../../runtime/source_subtask.ts";
import type { SubtaskSnapshot } from "../../runtime/subtask.ts";
import { encodeSnapshot } from "../snapshot_encoding.ts";
import { buildSubtask } from "../_subtask_factory.ts";
import { actorRecord } from "../actor_record.ts";
import type { ActorWiring } from "./_wiring.ts";
import { moveOutbox } from "./_dead_letter_outbox.ts";
import { replayEventTime } from "./_replay.ts";
import { freshMeta, type Meta } from "./_step_commit.ts";
import type { LiveActor } from "./_live_actor.ts";
import type { KvWorker } from "./_worker.ts";

/**
 * Takes the lease of an actor and loads its committed state; adds it to
 * the worker's live actors (nothing, if another worker holds the lease).
 */
export async function activate(
  worker: KvWorker,
  wiring: ActorWiring,
): Promise<void> {
  const lease = worker.leaseOf(wiring.id);
  if (!(await worker.retry("take a lease", () => lease.acquire()))) return;
  // A new instance per activation: it knows only what it wrote under the
  // lease it holds now.
  const storage = worker.storageOf(wiring.id, { soleWriter: true });
  const [meta, state] = await worker.retry(
    `load actor '${wiring.id}'`,
    () => storage.getMany<unknown>([["meta"], ["state"]]),
  );
  // Its failures in a row and the strikes (the reload quarantines
  // them), and the letters a crash left in its outbox.
  await worker.failures.takenUp(wiring.id);
  await worker.retry(
    `copy the dead letters of actor '${wiring.id}'`,
    () => moveOutbox(storage, worker.letters, [lease.check]),
  );
  const { graph, clock } = worker;
  // Assigned once below; the subtask's callbacks need the binding first.
  // deno-lint-ignore prefer-const
  let live: LiveActor;
  const vertex = graph.vertices.find((v) => v.id === wiring.vertex)!;
  const built = buildSubtask(graph, vertex, wiring.index, {
    clock,
    persistWatermarks: worker.persist,
    errorPolicy: worker.errorPolicy,
    quarantine: worker.failures.quarantine,
    stepSnapshots: true,
    startMs: worker.startedAt,
    send: (edge, channel, element) => {
      live.out[wiring.edgeBase[edge] + channel].push(element);
    },
    requestMail: () => {
      live.mail = true;
      live.wake?.();
    },
    onSnapshot: (checkpointId, snapshot) => {
      live.acks.push([checkpointId, encodeSnapshot(wiring.id, snapshot)]);
    },
  });
  const committed = (meta as Meta | undefined) ?? freshMeta(wiring);
  live = {
    ...actorRecord(built),
    wiring,
    lease,
    storage,
    meta: committed,
    out: wiring.outputs.map(() => []),
    acks: [],
    consumed: [...committed.trimmed],
    released: [...committed.trimmed],
    readBase: built.source?.recordsRead.map(() => 0) ?? [],
    recordsInBase: committed.status.recordsIn,
    recordsOutBase: committed.status.recordsOut,
    wake: null,
    dirty: true,
    readAhead: null,
    notified: 0,
  };
  if (state !== undefined) {
    if (built.source !== null) {
      built.source.restore(state as SourceSubtaskSnapshot);
    } else built.subtask!.restore(state as SubtaskSnapshot);
  }
  if (!worker.persist && meta !== undefined && !committed.finished) {
    await replayEventTime({
      actor: wiring.id,
      meta: committed,
      source: built.source,
      subtask: built.subtask,
      createReader: () =>
        vertex.source!.source.createReader(wiring.index, vertex.parallelism),
      readEntries: (c, applied) =>
        worker.readEntries(
          wiring.inputs[c].producer,
          wiring.inputs[c].out,
          applied,
        ),
      now: clock.now(),
      log: worker.log,
    });
  }
  worker.live.set(wiring.id, live);
}
