import assert from "node:assert/strict";
import { encodeStructured } from "../../src/actors/_codec.ts";
import {
  encodedCheckpoint,
  encodedSnapshots,
  snapshotsToUse,
} from "../../src/actors/_encoded_checkpoint.ts";
import { STATE_FORMAT_VERSION } from "../../src/runtime/fingerprint.ts";

Deno.test("encodedCheckpoint decodes its subtasks once, on first read, and restores from fresh copies", () => {
  const fingerprint = {
    jobName: "clicks",
    operatorIds: ["src-1"],
    maxParallelism: 128,
    stateFormatVersion: STATE_FORMAT_VERSION,
  };
  const snapshots = { "clicks/src-1/0": encodeStructured({ offset: 4 }) };
  const checkpoint = encodedCheckpoint(
    { id: 3, fingerprint, createdAt: 10 },
    snapshots,
  );
  assert.equal(encodedSnapshots(checkpoint), snapshots);
  assert.deepStrictEqual(checkpoint, {
    id: 3,
    fingerprint,
    createdAt: 10,
    subtasks: { "clicks/src-1/0": { offset: 4 } },
  });
  const restored = snapshotsToUse(checkpoint);
  assert.deepStrictEqual(restored, checkpoint.subtasks);
  assert.notEqual(
    restored["clicks/src-1/0"],
    checkpoint.subtasks["clicks/src-1/0"],
  );

  const plain = { ...checkpoint };
  assert.equal(encodedSnapshots(plain), undefined);
  assert.equal(snapshotsToUse(plain), plain.subtasks);
});
