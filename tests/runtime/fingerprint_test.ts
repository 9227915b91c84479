import assert from "node:assert/strict";
import {
  CheckpointMismatchError,
  fingerprintOf,
  type JobFingerprint,
  requireMatchingFingerprint,
  STATE_FORMAT_VERSION,
} from "../../src/runtime/fingerprint.ts";
import type { JobGraph, JobVertex } from "../../src/runtime/job_graph.ts";

function vertex(id: string, parallelism: number): JobVertex {
  return { id, name: id, parallelism, createOperators: () => [] };
}

function graph(parallelism: number): JobGraph {
  return {
    jobName: "clicks",
    vertices: [
      vertex("src-1", parallelism),
      vertex("window-3", parallelism),
      vertex("sink-4", 1),
    ],
    edges: [],
    maxParallelism: 128,
    autoWatermarkIntervalMs: 200,
  };
}

const CLICKS: JobFingerprint = {
  jobName: "clicks",
  operatorIds: ["src-1", "window-3", "sink-4"],
  maxParallelism: 128,
  stateFormatVersion: STATE_FORMAT_VERSION,
};

/** The error thrown when restoring a checkpoint with `found` into CLICKS. */
function mismatch(found: Partial<JobFingerprint>): CheckpointMismatchError {
  try {
    requireMatchingFingerprint(CLICKS, { ...CLICKS, ...found }, 7);
  } catch (error) {
    assert.ok(error instanceof CheckpointMismatchError);
    return error;
  }
  assert.fail("requireMatchingFingerprint() did not throw");
}

Deno.test("STATE_FORMAT_VERSION is 1", () => {
  assert.equal(STATE_FORMAT_VERSION, 1);
});

Deno.test("fingerprintOf() takes the job name, the vertex ids in order, maxParallelism and the state format version", () => {
  assert.deepEqual(fingerprintOf(graph(2)), CLICKS);
});

Deno.test("fingerprintOf() leaves out the parallelism, so a checkpoint can be restored at another one", () => {
  assert.deepEqual(fingerprintOf(graph(2)), fingerprintOf(graph(16)));
});

Deno.test("fingerprintOf() returns a fresh array of operator ids", () => {
  const plan = graph(1);
  const ids = fingerprintOf(plan).operatorIds as string[];
  ids.push("extra");
  assert.deepEqual(fingerprintOf(plan).operatorIds, CLICKS.operatorIds);
});

Deno.test("requireMatchingFingerprint() accepts an equal fingerprint, with operator ids in any order", () => {
  requireMatchingFingerprint(CLICKS, { ...CLICKS }, 1);
  requireMatchingFingerprint(CLICKS, {
    ...CLICKS,
    operatorIds: ["sink-4", "src-1", "window-3"],
  }, 1);
});

Deno.test("requireMatchingFingerprint() names both job names when they differ (seed 004 §4.3)", () => {
  const error = mismatch({ jobName: "orders" });
  assert.equal(
    error.message,
    "Cannot restore checkpoint 7 of job 'clicks' as its fingerprint differs: jobName is 'orders' in the checkpoint, 'clicks' in this job; to start over without its state, run with --restore none or execute({ restore: \"none\" })",
  );
});

Deno.test("requireMatchingFingerprint() names an operator of the checkpoint that this job lacks", () => {
  const error = mismatch({
    operatorIds: ["src-1", "window-3", "sink-4", "dedup-5"],
  });
  assert.match(
    error.message,
    /: operator 'dedup-5' is missing in this job; to start over/,
  );
});

Deno.test("requireMatchingFingerprint() names an operator of this job that the checkpoint lacks", () => {
  const error = mismatch({ operatorIds: ["src-1", "sink-4"] });
  assert.match(
    error.message,
    /: operator 'window-3' is missing in the checkpoint; to start over/,
  );
});

Deno.test("requireMatchingFingerprint() lists several missing operators in one phrase", () => {
  const error = mismatch({ operatorIds: ["src-1"] });
  assert.match(
    error.message,
    /: operators 'window-3', 'sink-4' are missing in the checkpoint; to start over/,
  );
});

Deno.test("requireMatchingFingerprint() names both maxParallelism values when they differ", () => {
  const error = mismatch({ maxParallelism: 256 });
  assert.match(
    error.message,
    /: maxParallelism is 256 in the checkpoint, 128 in this job; to start over/,
  );
});

Deno.test("requireMatchingFingerprint() names both state format versions when they differ", () => {
  const error = mismatch({ stateFormatVersion: 2 });
  assert.match(
    error.message,
    /: stateFormatVersion is 2 in the checkpoint, 1 in this job; to start over/,
  );
});

Deno.test("requireMatchingFingerprint() lists every difference, separated by semicolons", () => {
  const error = mismatch({
    jobName: "orders",
    operatorIds: ["src-1", "window-9", "sink-4"],
    maxParallelism: 64,
  });
  assert.equal(
    error.message,
    "Cannot restore checkpoint 7 of job 'clicks' as its fingerprint differs: jobName is 'orders' in the checkpoint, 'clicks' in this job; operator 'window-9' is missing in this job; operator 'window-3' is missing in the checkpoint; maxParallelism is 64 in the checkpoint, 128 in this job; to start over without its state, run with --restore none or execute({ restore: \"none\" })",
  );
  assert.equal(error.differences.length, 4);
});

Deno.test("CheckpointMismatchError carries a stable code, its name and the checkpoint id", () => {
  const error = mismatch({ jobName: "orders" });
  assert.ok(error instanceof Error);
  assert.equal(error.code, "CHECKPOINT_MISMATCH");
  assert.equal(error.name, "CheckpointMismatchError");
  assert.equal(error.checkpointId, 7);
  assert.deepEqual(error.differences, [
    "jobName is 'orders' in the checkpoint, 'clicks' in this job",
  ]);
});
