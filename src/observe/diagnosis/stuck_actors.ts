/**
 * The diagnosis `stuck-actor`: actors that keep failing. The KV runtime
 * stops an actor whose step fails (its code threw, Deno KV kept failing)
 * and tries it again after a delay that doubles, up to a minute, without
 * ever ending the job; meanwhile its status says what it is stuck on
 * (`SubtaskStatus.stuck`), and health names it.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import type { Diagnosis } from "./diagnosis.ts";

/**
 * One finding per stuck actor: what it failed on (the record's position
 * and operator when a record failed), how many times in a row, and when
 * it is tried again.
 *
 * @param statuses Every subtask's status.
 * @param now Processing time, epoch ms.
 * @returns The findings, in status order.
 */
export function stuckActors(
  statuses: Iterable<SubtaskStatus>,
  now: number,
): Diagnosis[] {
  const found: Diagnosis[] = [];
  for (const status of statuses) {
    const stuck = status.stuck;
    if (stuck === undefined) continue;
    const on = stuck.record === undefined
      ? ""
      : ` on record ${stuck.record.position} of ${stuck.record.operator}`;
    const next = Math.max(0, stuck.retryAt - now);
    found.push({
      cause: "stuck-actor",
      operator: status.operator,
      subtask: status.subtask,
      evidence:
        `actor ${status.id} is stuck${on}: ${stuck.error.name}: ${stuck.error.message}, failed ${stuck.failures} ${
          stuck.failures === 1 ? "time" : "times"
        } in a row, next try in ${next} ms`,
      fix: stuck.record === undefined
        ? "fix what the error names (the code, a sink's target, the database): the actor is tried again after a delay that doubles up to a minute, and goes on from its last committed step"
        : 'the retry quarantines the record (errorPolicy "fail"): it goes to the dead-letter log; fix the code or the data for records like it',
    });
  }
  return found;
}
