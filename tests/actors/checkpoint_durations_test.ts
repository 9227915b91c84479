import assert from "node:assert/strict";
import { CheckpointDurations } from "../../src/actors/checkpoint_durations.ts";

Deno.test("CheckpointDurations knows how long a saved checkpoint took, not a dropped one, and keeps the last 64", () => {
  const durations = new CheckpointDurations();
  durations.triggered(1, 100);
  durations.triggered(2, 150);
  durations.saved(1, 130);
  durations.dropped(2);
  durations.saved(2, 400);
  assert.equal(durations.durationMs(1), 30);
  assert.equal(durations.durationMs(2), undefined);
  for (let id = 3; id <= 66; id++) {
    durations.triggered(id, id);
    durations.saved(id, id + 1);
  }
  assert.equal(durations.durationMs(1), undefined);
  assert.equal(durations.durationMs(3), 1);
  assert.equal(durations.durationMs(66), 1);
});
