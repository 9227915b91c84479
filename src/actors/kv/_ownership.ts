// Which actors a KV-runtime worker runs: each round it renews its
// heartbeat, takes free or expired actors up to its share and gives extras
// back (see `_sharing.ts`); it stops working on an actor whose lease it
// lost, or that failed, dropping what it held in memory.

import { type LeaseView, planShare } from "./_sharing.ts";
import { activate } from "./_activation.ts";
import type { LiveActor } from "./_live_actor.ts";
import type { KvWorker } from "./_worker.ts";
import type { ActorWiring } from "./_wiring.ts";

/** Takes free or expired actors up to this worker's share; gives extras back. */
export async function rebalance(worker: KvWorker, now: number): Promise<void> {
  const { kv } = worker;
  const workersKey = [...worker.base, "worker"];
  await worker.retry(
    "renew the worker's heartbeat",
    () =>
      kv.set([...workersKey, worker.id], {
        expiresAt: now + worker.leaseMs,
      }),
  );
  let workers = 0;
  for await (
    const entry of kv.list<{ expiresAt: number }>({ prefix: workersKey })
  ) {
    if (entry.value.expiresAt > now) workers++;
  }
  const [leases, retryAt] = await Promise.all([
    readLeases(worker),
    // Any worker's failures: the backoff holds across workers.
    worker.failures.retryAts(),
  ]);
  const plan = planShare({
    actors: worker.wirings.map((w) => w.id),
    live: new Set(worker.live.keys()),
    retryAt,
    leases,
    workers,
    now,
  });
  const wiringOf = (id: string) => worker.wirings.find((w) => w.id === id)!;
  if (worker.overlapSteps) await activateAll(worker, plan.take.map(wiringOf));
  else for (const id of plan.take) await activate(worker, wiringOf(id));
  const extra = [...worker.live.values()].slice(
    worker.live.size - plan.giveBack,
  );
  for (const live of extra) {
    worker.live.delete(live.wiring.id);
    await live.source?.close();
    await worker.retry("give a lease up", () => live.lease.release());
  }
}

/**
 * Activates actors at once (their round trips to KV overlap: a worker far
 * from KV starts in the time of one), keeping the live actors upstream
 * first; throws the first failure once all are done.
 */
async function activateAll(
  worker: KvWorker,
  wirings: readonly ActorWiring[],
): Promise<void> {
  const results = await Promise.allSettled(
    wirings.map((w) => activate(worker, w)),
  );
  const live = [...worker.live.values()];
  worker.live.clear();
  for (const w of worker.wirings) {
    const actor = live.find((l) => l.wiring.id === w.id);
    if (actor !== undefined) worker.live.set(w.id, actor);
  }
  const failed = results.find((r) => r.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}

/** Every lease entry of the job, by actor id. */
export async function readLeases(
  worker: KvWorker,
): Promise<Map<string, LeaseView>> {
  const leases = new Map<string, LeaseView>();
  for await (
    const entry of worker.kv.list<LeaseView>({
      prefix: [...worker.base, "lease"],
    })
  ) {
    leases.set(String(entry.key[entry.key.length - 1]), entry.value);
  }
  return leases;
}

/** Stops working on an actor whose lease this worker lost. */
export function drop(worker: KvWorker, live: LiveActor, why: string): void {
  if (!worker.live.delete(live.wiring.id)) return;
  live.lease.lost();
  void live.source?.close();
  worker.log(
    `weir: worker ${worker.id} stops working on actor '${live.wiring.id}' as ${why}; its in-memory state is dropped`,
  );
}

/**
 * Stops working on an actor that failed: its in-memory state (half a
 * step) is dropped, its failures in a row are recorded, and its lease is
 * given up; it is taken up again after the delay.
 */
export async function fail(
  worker: KvWorker,
  live: LiveActor,
  error: unknown,
): Promise<void> {
  const id = live.wiring.id;
  worker.live.delete(id);
  void live.source?.close();
  const failure = await worker.failures.failed(id, error);
  worker.log(
    `weir: worker ${worker.id} stopped actor '${id}' (its in-memory state is dropped; failure ${failure.failures} in a row, tried again in ${failure.delayMs} ms): ${failure.error.message}`,
  );
  // Best effort: a lease left behind just expires.
  await worker.retry("give a lease up", () => live.lease.release())
    .catch(() => {});
}

/**
 * Gives up every lease this worker holds, the coordinator's and its
 * heartbeat, so that others take over at once; best effort (a lease left
 * behind just expires).
 */
export async function releaseAll(worker: KvWorker): Promise<void> {
  const best = (what: string, call: () => Promise<unknown>) =>
    worker.retry(what, call).catch(() => {});
  for (const live of worker.live.values()) {
    await live.source?.close();
    await best("give a lease up", () => live.lease.release());
  }
  worker.live.clear();
  await best(
    "give the coordinator's lease up",
    () => worker.coordinator.release(),
  );
  await best(
    "end the worker's heartbeat",
    () => worker.kv.delete([...worker.base, "worker", worker.id]),
  );
}
