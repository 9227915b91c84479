// What the whole-process tests of the KV runtime read from the shared KV
// file to kill or pause a worker at a chosen point: which worker holds which
// actor's lease, and whether those actors have finished.

import { KvStorage } from "../../src/actors/kv/kv_storage.ts";

/** A lease entry as the KV runtime stores it. */
export interface LeaseEntry {
  /** The worker holding it. */
  readonly owner: string;
  /** Its epoch: a take-over increments it. */
  readonly epoch: number;
  /** When it runs out unless renewed, epoch milliseconds. */
  readonly expiresAt: number;
}

/** The lease entries of job `job`'s actors (and the runtime's own, `$…`), by actor id. */
export async function leases(
  kv: Deno.Kv,
  job: string,
): Promise<Map<string, LeaseEntry>> {
  const out = new Map<string, LeaseEntry>();
  for await (
    const entry of kv.list<LeaseEntry>({
      prefix: ["weir", job, "kvrt", "lease"],
    })
  ) {
    out.set(String(entry.key[entry.key.length - 1]), entry.value);
  }
  return out;
}

/** The actors `owner` holds now: subtasks whose lease has not run out. */
export function heldBy(
  all: ReadonlyMap<string, LeaseEntry>,
  owner: string,
): string[] {
  const now = Date.now();
  return [...all].filter(([id, l]) =>
    !id.startsWith("$") && l.owner === owner && l.expiresAt > now
  ).map(([id]) => id);
}

/** Whether some of `actors` of job `job` has not finished yet (the job is mid-run). */
export async function unfinished(
  kv: Deno.Kv,
  job: string,
  actors: readonly string[],
): Promise<boolean> {
  const metas = await Promise.all(
    actors.map((id) =>
      new KvStorage(kv, ["weir", job, "kvrt", "a", id]).get<
        { finished: boolean }
      >(["meta"])
    ),
  );
  return metas.some((m) => m === undefined || !m.finished);
}
