// ScrapeMemory: what /metrics remembers of a job between scrapes.

import assert from "node:assert/strict";
import { ScrapeMemory } from "../../src/observe/prometheus_memory.ts";
import type { SubtaskStatus } from "../../src/actors/actor_runtime.ts";

Deno.test("ScrapeMemory counts neither way the ids missing below the oldest one listed", () => {
  const memory = new ScrapeMemory();
  memory.observeCheckpoints([2, 1]);
  // 3 and 4 were pruned or failed between two scrapes: unknown.
  memory.observeCheckpoints([7, 5]);
  assert.equal(memory.checkpointsCompleted, 4);
  assert.equal(memory.checkpointsFailed, 1);
  // An empty list (a store that was emptied) changes nothing.
  memory.observeCheckpoints([]);
  assert.equal(memory.checkpointsCompleted, 4);
});

Deno.test("ScrapeMemory counts no back-pressured time for a scrape that goes back in time", () => {
  const memory = new ScrapeMemory();
  const status = (
    paused: boolean,
  ) => [{ id: "j/a/0", paused } as SubtaskStatus];
  memory.observeSubtasks(status(true), 10_000);
  memory.observeSubtasks(status(true), 9_000);
  assert.equal(memory.backPressuredSeconds("j/a/0"), 0);
  memory.observeSubtasks(status(false), 12_000);
  assert.equal(memory.backPressuredSeconds("j/a/0"), 2);
  assert.equal(memory.backPressuredSeconds("j/b/0"), 0);
});
