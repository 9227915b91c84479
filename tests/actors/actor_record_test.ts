import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import {
  actorRecord,
  gaugeValues,
  setPaused,
} from "../../src/actors/actor_record.ts";
import type { BuiltSubtask } from "../../src/actors/_subtask_factory.ts";

function built(clock: ManualClock): BuiltSubtask {
  return {
    id: "j/v/0",
    vertex: { id: "v" },
    index: 0,
    activityClock: new PausableClock(clock),
    gauges: new Map([["depth", () => 3]]),
    subtask: null,
    source: null,
  } as unknown as BuiltSubtask;
}

Deno.test("setPaused() stops the activity clock once however often it is paused, and resumes it (FLINK-35886)", () => {
  const clock = new ManualClock(0);
  const actor = actorRecord(built(clock));
  assert.equal(actor.paused, false);
  assert.equal(actor.mail, false);
  setPaused(actor, true);
  setPaused(actor, true);
  clock.set(100);
  assert.equal(actor.activityClock.now(), 0);
  setPaused(actor, false);
  assert.equal(actor.paused, false);
  clock.set(150);
  assert.equal(actor.activityClock.now(), 50);
});

Deno.test("gaugeValues() reads every gauge of an actor", () => {
  assert.deepEqual(gaugeValues(built(new ManualClock(0))), { depth: 3 });
});
