// How KV-runtime workers share a job's actors: each takes free or expired
// actors up to its share (the actors divided by the live workers, rounded
// up), and gives back what is above it while another worker has room, down
// to the rounded-down share while a worker has less than that.

/** A lease as the sharing sees it. */
export interface LeaseView {
  readonly owner: string;
  readonly expiresAt: number;
}

/** What {@linkcode planShare} needs to know. */
export interface ShareInput {
  /** Every actor of the job, in order. */
  readonly actors: readonly string[];
  /** The actors this worker works on. */
  readonly live: ReadonlySet<string>;
  /** Actors this worker may not take before a time (after a failure). */
  readonly retryAt: ReadonlyMap<string, number>;
  /** The lease entries by actor id. */
  readonly leases: ReadonlyMap<string, LeaseView>;
  /** Workers whose heartbeat has not expired (this one included). */
  readonly workers: number;
  /** Processing time. */
  readonly now: number;
}

/**
 * Which actors to try to take, and how many to give back.
 *
 * @param input The job's actors, this worker's, the leases and the workers.
 * @returns Actors to take (in order, at most up to the share), and the
 * number of this worker's actors to give back.
 *
 * @example
 * ```ts
 * import { planShare } from "./_sharing.ts";
 * import assert from "node:assert/strict";
 *
 * const plan = planShare({
 *   actors: ["a", "b", "c", "d"],
 *   live: new Set(),
 *   retryAt: new Map(),
 *   leases: new Map([["a", { owner: "w2", expiresAt: 100 }]]),
 *   workers: 2,
 *   now: 50,
 * });
 * assert.deepEqual(plan, { take: ["b", "c"], giveBack: 0 });
 * ```
 */
export function planShare(
  input: ShareInput,
): { take: string[]; giveBack: number } {
  const { actors, live, retryAt, leases, workers, now } = input;
  const share = Math.ceil(actors.length / Math.max(1, workers));
  const floor = Math.floor(actors.length / Math.max(1, workers));
  const owners = new Map<string, number>();
  for (const lease of leases.values()) {
    if (lease.expiresAt > now) {
      owners.set(lease.owner, (owners.get(lease.owner) ?? 0) + 1);
    }
  }
  const counts = [...owners.values()];
  const idle = owners.size < workers;
  // Nobody is above the share, yet a worker has less than the floor (4
  // actors on 3 workers held 2, 2, 0): everyone keeps to the floor until
  // it has caught up, then the rest goes to whoever takes it first.
  const toFloor = workers > 1 && floor > 0 &&
    counts.every((count) => count <= share) &&
    (idle || counts.some((count) => count < floor));
  const limit = toFloor ? floor : share;
  const take: string[] = [];
  for (const id of actors) {
    if (live.size + take.length >= limit) break;
    if (live.has(id) || (retryAt.get(id) ?? -Infinity) > now) continue;
    const lease = leases.get(id);
    if (lease !== undefined && lease.expiresAt > now) continue;
    take.push(id);
  }
  const room = workers > 1 &&
    (idle || toFloor || counts.some((count) => count < share - 1));
  return { take, giveBack: room ? Math.max(0, live.size - limit) : 0 };
}
