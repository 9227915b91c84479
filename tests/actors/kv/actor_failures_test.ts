// The KV runtime's failing actors under "fail": an actor that
// fails twice in a row at the same operator subtask, on records its
// strikes did not recognise, has that site quarantined for its retry, by
// whichever worker takes it up; a committed step releases it.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import {
  type DeadLetter,
  RecordFailedError,
} from "../../../src/runtime/dead_letter.ts";
import { ActorFailures } from "../../../src/actors/kv/_actor_failures.ts";
import { StrikeLog } from "../../../src/actors/_strike_log.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";

function failures(kv: Deno.Kv, worker: string): ActorFailures {
  return new ActorFailures({
    kv,
    base: ["weir", "job", "kvrt"],
    worker,
    clock: new ManualClock(0),
    firstDelayMs: 1_000,
    policy: "fail",
    strikes: new StrikeLog(new MemoryStorage()),
    retry: (_what, call) => call(),
    log: () => {},
  });
}

/** A failure of record `n` (another strike each) at operator `key`. */
function failure(n: number, key = "map-1"): RecordFailedError {
  const letter: DeadLetter = {
    id: `letter-${n}`,
    operator: "Map",
    subtask: 0,
    value: n,
    timestamp: n,
    error: { name: "Error", message: `Cannot map ${n}` },
    position: `partition p, offset ${n}`,
    reason: "quarantined",
    at: 0,
  };
  return new RecordFailedError(letter, `strike-${n}`, {
    site: `site:${key}|0`,
  });
}

Deno.test("ActorFailures quarantines the site of an actor that failed twice in a row there, also for another worker taking it up, and releases it after a committed step", async () => {
  using kv = await Deno.openKv(":memory:");
  const a = failures(kv, "a");
  await a.struck(failure(1));
  const first = await a.failed("job/source-0/0", failure(1));
  assert.equal(first.record?.atSite, 1);
  assert.deepEqual([...a.quarantine], ["strike-1"]);
  // The same site again, with another strike: the record changed.
  await a.struck(failure(2));
  const second = await a.failed("job/source-0/0", failure(2));
  assert.equal(second.record?.atSite, 2);
  assert.ok(a.quarantine.has("site:map-1|0"));
  // Another worker takes the actor up from what KV holds.
  const b = failures(kv, "b");
  await b.takenUp("job/source-0/0");
  assert.ok(b.quarantine.has("site:map-1|0"));
  await b.succeeded("job/source-0/0");
  assert.ok(!b.quarantine.has("site:map-1|0"), "released by progress");
  // Taken up again once it ran: not quarantined any more.
  const c = failures(kv, "c");
  await c.takenUp("job/source-0/0");
  assert.ok(!c.quarantine.has("site:map-1|0"));
});

Deno.test("ActorFailures counts failures at a site anew when the actor fails at another one", async () => {
  using kv = await Deno.openKv(":memory:");
  const a = failures(kv, "a");
  await a.failed("job/source-0/0", failure(1, "map-1"));
  const other = await a.failed("job/source-0/0", failure(2, "map-2"));
  assert.equal(other.failures, 2);
  assert.equal(other.record?.atSite, 1);
  assert.ok(!a.quarantine.has("site:map-1|0"));
  assert.ok(!a.quarantine.has("site:map-2|0"));
});
