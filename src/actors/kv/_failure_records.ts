// Where the KV runtime keeps each failing actor's failures in a row: in KV,
// so that whichever worker takes the actor up next continues its backoff
// (the delay doubles across workers, not per worker), and any process
// serving the job (a supervisor of `--processes N`, another Deploy
// instance) reports the actor as stuck.

import type { ActorFailure } from "../actor_failure.ts";

/** The key of an actor's failures in a row. */
export function failureKey(
  base: readonly string[],
  actor: string,
): Deno.KvKey {
  return [...base, "failure", actor];
}

/**
 * Every actor's failures in a row, by actor id.
 *
 * @param kv The database.
 * @param base The job's KV-runtime prefix.
 */
export async function readFailures(
  kv: Deno.Kv,
  base: readonly string[],
): Promise<Map<string, ActorFailure>> {
  const failures = new Map<string, ActorFailure>();
  for await (
    const entry of kv.list<ActorFailure>({ prefix: [...base, "failure"] })
  ) {
    failures.set(String(entry.key[entry.key.length - 1]), entry.value);
  }
  return failures;
}
