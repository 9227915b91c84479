import assert from "node:assert/strict";
import {
  CheckpointMismatchError,
  fingerprintOf,
  type JobFingerprint,
  type OperatorFingerprint,
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

Deno.test("requireMatchingFingerprint() names both job names when they differ", () => {
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

// ---- operators: matched by uid or positional id, with their state's meaning

const TUMBLING_MINUTE = {
  operator: "window",
  keyed: true,
  assigner: "TumblingEventTimeWindows",
  sizeMs: 60_000,
  offsetMs: 0,
  function: "aggregate",
  trigger: "default",
};

function op(
  id: string,
  state: Record<string, string | number | boolean>,
  where: { vertexId?: string; index?: number; uid?: string } = {},
): OperatorFingerprint {
  return {
    id,
    ...(where.uid === undefined ? {} : { uid: where.uid }),
    name: state.operator === "window" ? "Window" : id,
    vertexId: where.vertexId ?? id,
    index: where.index ?? 0,
    state,
  };
}

/** A fingerprint of CLICKS's job with these operators and vertex ids. */
function withOperators(
  operators: OperatorFingerprint[],
): JobFingerprint {
  return {
    ...CLICKS,
    operatorIds: [...new Set(operators.map((o) => o.vertexId))],
    operators,
  };
}

const SOURCE = op("src-1", { operator: "source" }, { index: -1 });

Deno.test("fingerprintOf() lists each operator of graphs that describe their chains: a source first (index -1), its chain from index 1", () => {
  const described: JobGraph = {
    ...graph(2),
    vertices: [
      {
        ...vertex("src-1", 2),
        source: {} as JobVertex["source"],
        operators: [
          { id: "src-1", uid: "in", name: "in", state: { operator: "source" } },
          { id: "map-2", name: "Map", state: { operator: "map" } },
        ],
      },
      {
        ...vertex("window-3", 2),
        operators: [{ id: "window-3", name: "Window", state: TUMBLING_MINUTE }],
      },
    ],
  };
  assert.deepEqual(fingerprintOf(described).operators, [
    {
      id: "src-1",
      uid: "in",
      name: "in",
      vertexId: "src-1",
      index: -1,
      state: { operator: "source" },
    },
    {
      id: "map-2",
      name: "Map",
      vertexId: "src-1",
      index: 1,
      state: { operator: "map" },
    },
    {
      id: "window-3",
      name: "Window",
      vertexId: "window-3",
      index: 0,
      state: TUMBLING_MINUTE,
    },
  ]);
});

Deno.test("requireMatchingFingerprint() accepts other vertex ids when both list their operators: operators were added or removed around uids", () => {
  const before = withOperators([
    SOURCE,
    op("window-2", TUMBLING_MINUTE, { uid: "counts" }),
  ]);
  const after = withOperators([
    SOURCE,
    op("map-2", { operator: "map" }, { vertexId: "src-1", index: 1 }),
    op("window-3", TUMBLING_MINUTE, { uid: "counts" }),
    op("dedup-4", { operator: "keyedProcess", keyed: true }),
  ]);
  requireMatchingFingerprint(after, before, 3);
  requireMatchingFingerprint(before, after, 3);
});

Deno.test("requireMatchingFingerprint() refuses a uid'd window whose size changed, naming its uid, both sizes and how to start over", () => {
  const before = withOperators([
    SOURCE,
    op("window-2", TUMBLING_MINUTE, { uid: "counts" }),
  ]);
  const after = withOperators([
    SOURCE,
    op("window-3", { ...TUMBLING_MINUTE, sizeMs: 30_000 }, { uid: "counts" }),
  ]);
  assert.throws(() => requireMatchingFingerprint(after, before, 3), {
    name: "CheckpointMismatchError",
    message:
      "Cannot restore checkpoint 3 of job 'clicks' as its fingerprint differs: the state of operator 'counts' (Window) means something else: sizeMs is 60000 in the checkpoint, 30000 in this job; to start over without its state, run with --restore none or execute({ restore: \"none\" })",
  });
});

Deno.test("requireMatchingFingerprint() refuses a window of another kind, and a window turned into a keyed process function, listing each field", () => {
  const before = withOperators([
    SOURCE,
    op("window-2", TUMBLING_MINUTE, { uid: "counts" }),
  ]);
  const sliding = withOperators([
    SOURCE,
    op("window-2", {
      ...TUMBLING_MINUTE,
      assigner: "SlidingEventTimeWindows",
      slideMs: 10_000,
    }, { uid: "counts" }),
  ]);
  assert.throws(() => requireMatchingFingerprint(sliding, before, 3), {
    message:
      /: the state of operator 'counts' \(Window\) means something else: assigner is 'TumblingEventTimeWindows' in the checkpoint, 'SlidingEventTimeWindows' in this job; the state of operator 'counts' \(Window\) means something else: slideMs is not set in the checkpoint, 10000 in this job; to start over/,
  });
  const process = withOperators([
    SOURCE,
    op("process-2", { operator: "keyedProcess", keyed: true }, {
      uid: "counts",
    }),
  ]);
  const error = (() => {
    try {
      requireMatchingFingerprint(process, before, 3);
    } catch (error) {
      return error as CheckpointMismatchError;
    }
    assert.fail("the keyed process function was accepted");
  })();
  assert.match(
    error.differences[0],
    /^the state of operator 'counts' \(process-2\) means something else: operator is 'window' in the checkpoint, 'keyedProcess' in this job$/,
  );
  assert.equal(error.differences.length, 6);
});

Deno.test("requireMatchingFingerprint() matches operators without uids by positional id and refuses a changed meaning, naming the positional id", () => {
  const before = withOperators([SOURCE, op("window-2", TUMBLING_MINUTE)]);
  const after = withOperators([
    SOURCE,
    op("window-2", { ...TUMBLING_MINUTE, offsetMs: 1_000 }),
  ]);
  assert.throws(() => requireMatchingFingerprint(after, before, 3), {
    message:
      /operator 'window-2' \(Window\) means something else: offsetMs is 0 in the checkpoint, 1000 in this job/,
  });
});

Deno.test("requireMatchingFingerprint() compares vertex ids, as before uids, when the checkpoint does not list operators (written before uids)", () => {
  const job = withOperators([
    SOURCE,
    op("window-3", TUMBLING_MINUTE, { uid: "counts" }),
  ]);
  requireMatchingFingerprint(job, {
    ...CLICKS,
    operatorIds: ["src-1", "window-3"],
  }, 3);
  assert.throws(
    () =>
      requireMatchingFingerprint(job, {
        ...CLICKS,
        operatorIds: ["src-1", "window-2"],
      }, 3),
    {
      message:
        /: operator 'window-2' is missing in this job; operator 'window-3' is missing in the checkpoint; to start over/,
    },
  );
});

Deno.test("requireMatchingFingerprint() refuses a checkpoint whose operator list is damaged", () => {
  const job = withOperators([SOURCE]);
  assert.throws(
    () =>
      requireMatchingFingerprint(job, {
        ...job,
        operators: [{ id: 5 }] as unknown as OperatorFingerprint[],
      }, 3),
    {
      name: "CheckpointMismatchError",
      message: /its operators are not a list of operator fingerprints/,
    },
  );
});
