// CheckpointTracker: counts from observations of a runtime's latest and
// in-progress checkpoints and the durations it knows.

import assert from "node:assert/strict";
import { CheckpointTracker } from "../../src/observe/checkpoint_tracker.ts";

Deno.test("CheckpointTracker counts completed checkpoints, and one dropped once a later one completes", () => {
  const durations = new Map<number, number>();
  const durationMs = (id: number) => durations.get(id);
  const tracker = new CheckpointTracker(null, null);
  tracker.observe({ at: 1, latestId: null, inProgress: 1, durationMs });
  durations.set(1, 20);
  tracker.observe({ at: 2, latestId: 1, inProgress: null, durationMs });
  // Checkpoint 2 is dropped (no duration); 3 completes; 4 completes and is
  // superseded by 5 between two observations.
  tracker.observe({ at: 3, latestId: 1, inProgress: 2, durationMs });
  tracker.observe({ at: 4, latestId: 1, inProgress: null, durationMs });
  assert.equal(tracker.stats().failed, 0, "not before a later one completes");
  durations.set(3, 10).set(4, 10).set(5, 10);
  tracker.observe({ at: 5, latestId: 5, inProgress: null, durationMs });
  assert.deepEqual(tracker.stats(), {
    completed: 4,
    failed: 1,
    inProgress: null,
    failures: [{ id: 2, at: 5 }],
    restoredFrom: null,
    restoredFromKnown: true,
  });
});

Deno.test("CheckpointTracker does not count the restored checkpoint, and says when the restore is not known", () => {
  const durationMs = () => undefined;
  const restored = new CheckpointTracker({ id: 7, createdAt: 100 }, 7);
  restored.observe({ at: 1, latestId: 7, inProgress: undefined, durationMs });
  assert.equal(restored.stats().completed, 0);
  assert.deepEqual(restored.stats().restoredFrom, { id: 7, createdAt: 100 });
  const unknown = new CheckpointTracker(undefined, null);
  assert.equal(unknown.stats().restoredFrom, null);
  assert.equal(unknown.stats().restoredFromKnown, false);
});
