// Stable operator ids on both runtimes: a job is changed between a crash and its restore (a stateless
// map added or removed before the keyBy or after the window, sometimes at
// another parallelism), and the operators with uids keep their state:
// the results are exactly those of a run without the crash. Without uids,
// ids are positional and the same changes are refused, as they were before
// uids existed.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import type { CompletedCheckpoint } from "../../src/actors/checkpoint.ts";
import { ExternalTable } from "../_support/two_phase_sink.ts";
import {
  evolvingJob,
  type EvolvingJobOptions,
  evolvingResults,
  type Extra,
} from "../_support/evolving_job.ts";
import type { RuntimeUnderTest } from "./_runtime_under_test.ts";

type Version = Omit<EvolvingJobOptions, "storage" | "clock" | "table">;

/** The windows (or keys) the checkpoint holds state for, over every subtask. */
function heldState(checkpoint: CompletedCheckpoint): number {
  let held = 0;
  for (const snapshot of Object.values(checkpoint.subtasks)) {
    const s = snapshot as { operators?: unknown[]; chain?: unknown };
    for (const state of s.operators ?? []) {
      const st = state as { slots?: unknown[]; keyedState?: unknown[] } | null;
      held += st?.slots?.length ?? st?.keyedState?.length ?? 0;
    }
  }
  return held;
}

/** `sensor@start=sum` rows as a map from `sensor@start` to the sum. */
function sums(rows: string[]): Map<string, number> {
  return new Map(rows.map((row) => {
    const [key, sum] = JSON.parse(row).split("=");
    return [key, Number(sum)];
  }));
}

/** Registers the uid cases for one runtime. */
export function uidConformance(runtime: RuntimeUnderTest): void {
  const name = (what: string) => `[${runtime.name}] ${what}`;

  /**
   * Runs `before` until two checkpoints are saved and crashes, then restores
   * the newest checkpoint into `after` and runs it to the end.
   */
  async function evolve(
    before: Version,
    after: Version,
    options: { allowNonRestoredState?: boolean } = {},
  ): Promise<{ rows: string[]; checkpoint: CompletedCheckpoint }> {
    const table = new ExternalTable<string>();
    const clock = new ManualClock(0);
    const storage = new MemoryStorage();
    await runtime.crashAfterCheckpoints(
      evolvingJob({ storage, clock, table, ...before }),
      clock,
      2,
    );
    const env = evolvingJob({ storage, clock, table, ...after });
    const checkpoint = (await env.findCheckpoint())!;
    await runtime.run(env, clock, checkpoint, options);
    return { rows: table.rows(), checkpoint };
  }

  const changes: [Extra, Extra, number, number][] = [
    ["none", "before-keyBy", 2, 2],
    ["none", "after-window", 2, 2],
    ["before-keyBy", "none", 2, 2],
    ["after-window", "none", 2, 2],
    ["none", "before-keyBy", 2, 3],
    ["after-window", "before-keyBy", 2, 1],
  ];
  for (const [from, to, p1, p2] of changes) {
    Deno.test(
      name(
        `a uid'd window keeps its state from a job with map ${from} to one with map ${to}, parallelism ${p1} -> ${p2}: every window sum exact`,
      ),
      async () => {
        const { rows, checkpoint } = await evolve(
          { uids: true, extra: from, parallelism: p1 },
          { uids: true, extra: to, parallelism: p2 },
        );
        // The restore matters: windows were open at the checkpoint.
        assert.ok(heldState(checkpoint) > 0);
        assert.deepEqual(rows, evolvingResults("window"));
      },
    );
  }

  Deno.test(
    name(
      "a uid'd keyed process function keeps its state and timers when a map is added before the keyBy",
    ),
    async () => {
      const { rows, checkpoint } = await evolve(
        {
          uids: true,
          stateful: "process",
          statefulUid: "counts",
          parallelism: 2,
        },
        {
          uids: true,
          stateful: "process",
          statefulUid: "counts",
          extra: "before-keyBy",
          parallelism: 3,
        },
      );
      assert.ok(heldState(checkpoint) > 0);
      assert.deepEqual(rows, evolvingResults("process"));
    },
  );

  Deno.test(
    name(
      "a window given a new uid starts empty with allowNonRestoredState, so sums of windows open at the checkpoint come out short",
    ),
    async () => {
      const { rows } = await evolve(
        { uids: true, parallelism: 2 },
        {
          uids: true,
          extra: "before-keyBy",
          statefulUid: "sums-v2",
          parallelism: 2,
        },
        { allowNonRestoredState: true },
      );
      const expected = evolvingResults("window");
      assert.notDeepEqual(rows, expected);
      // What is there is right but for the dropped records: no sum too large.
      const full = sums(expected);
      for (const [key, sum] of sums(rows)) {
        assert.ok(sum <= full.get(key)!, `${key}=${sum}`);
      }
    },
  );

  Deno.test(
    name(
      "a source given a new uid reads from the start with allowNonRestoredState, while the window keeps its state",
    ),
    async () => {
      const { rows } = await evolve(
        { uids: true, parallelism: 2 },
        { uids: true, sourceUid: "readings-v2", parallelism: 2 },
        { allowNonRestoredState: true },
      );
      // Records before the checkpoint are read twice: windows open at the
      // checkpoint (restored) count them again, windows already fired drop
      // them as late. Nothing is lost.
      const full = sums(evolvingResults("window"));
      const got = sums(rows);
      assert.deepEqual([...got.keys()].sort(), [...full.keys()].sort());
      let doubled = 0;
      for (const [key, sum] of got) {
        assert.ok(sum >= full.get(key)!, `${key}=${sum}`);
        if (sum > full.get(key)!) doubled++;
      }
      assert.ok(doubled > 0);
    },
  );

  Deno.test(
    name(
      "a window given a new uid is refused without allowNonRestoredState, naming the old uid",
    ),
    async () => {
      await assert.rejects(
        evolve(
          { uids: true, parallelism: 2 },
          { uids: true, statefulUid: "sums-v2", parallelism: 2 },
        ),
        {
          name: "CheckpointMismatchError",
          message:
            /: operator 'sums' \(Window\) has state in the checkpoint but is not in this job; to keep that state, give the operator its uid\(\) back; to drop it, restore with allowNonRestoredState: true \(--allow-non-restored-state\)/,
        },
      );
    },
  );

  Deno.test(
    name(
      "without uids, a map added before the keyBy moves the window's positional id and the restore is refused, as before uids",
    ),
    async () => {
      await assert.rejects(
        evolve(
          { uids: false, parallelism: 2 },
          { uids: false, extra: "before-keyBy", parallelism: 2 },
        ),
        {
          name: "CheckpointMismatchError",
          message:
            /operator 'window-1' \(Window\) has state in the checkpoint but is not in this job/,
        },
      );
    },
  );

  Deno.test(
    name(
      "without uids, a map added after the window moves the sink's positional id (sink-2 -> sink-3) and the restore is refused",
    ),
    async () => {
      await assert.rejects(
        evolve(
          { uids: false, parallelism: 2 },
          { uids: false, extra: "after-window", parallelism: 2 },
        ),
        {
          name: "CheckpointMismatchError",
          message:
            /: operator 'sink-2' \(Sink: two-phase\) has state in the checkpoint but is not in this job;/,
        },
      );
    },
  );

  Deno.test(
    name(
      "without uids, an unchanged job restores as before, at another parallelism too",
    ),
    async () => {
      const { rows } = await evolve(
        { uids: false, parallelism: 2 },
        { uids: false, parallelism: 3 },
      );
      assert.deepEqual(rows, evolvingResults("window"));
    },
  );

  Deno.test(
    name(
      "a checkpoint written before uids (no operators in its fingerprint) restores into the job with uids added, vertex by vertex",
    ),
    async () => {
      const table = new ExternalTable<string>();
      const clock = new ManualClock(0);
      const storage = new MemoryStorage();
      await runtime.crashAfterCheckpoints(
        evolvingJob({ storage, clock, table, uids: false, parallelism: 2 }),
        clock,
        2,
      );
      const env = evolvingJob({
        storage,
        clock,
        table,
        uids: true,
        parallelism: 2,
      });
      const checkpoint = (await env.findCheckpoint())!;
      // What weir recorded before operators were part of the fingerprint.
      const { operators: _, ...legacy } = checkpoint.fingerprint;
      await runtime.run(env, clock, {
        id: checkpoint.id,
        createdAt: checkpoint.createdAt,
        fingerprint: legacy,
        subtasks: checkpoint.subtasks,
      });
      assert.deepEqual(table.rows(), evolvingResults("window"));
    },
  );
}
