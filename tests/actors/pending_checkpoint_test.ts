import assert from "node:assert/strict";
import { PendingCheckpoint } from "../../src/actors/pending_checkpoint.ts";
import { encodeStructured } from "../../src/actors/_codec.ts";
import type { JobFingerprint } from "../../src/runtime/fingerprint.ts";

Deno.test("PendingCheckpoint completes once every actor acknowledged, a repeated ack counting once", () => {
  const pending = new PendingCheckpoint(3, 2);
  assert.equal(pending.ack("j/a/0", encodeStructured({ n: 1 })), false);
  assert.equal(pending.ack("j/a/0", encodeStructured({ n: 2 })), false);
  assert.equal(pending.ack("j/b/0", encodeStructured({ n: 3 })), true);
  const fingerprint = { vertices: [] } as unknown as JobFingerprint;
  const checkpoint = pending.complete(fingerprint, 1_000);
  assert.equal(checkpoint.id, 3);
  assert.equal(checkpoint.createdAt, 1_000);
  assert.equal(checkpoint.fingerprint, fingerprint);
  assert.deepEqual(checkpoint.subtasks, {
    "j/a/0": { n: 2 },
    "j/b/0": { n: 3 },
  });
});
