// The whole-process test: the durable job runs in a subprocess that is
// killed with SIGKILL again and again; after the last run reaches the end of
// its input, the KV table equals a failure-free run's, with nothing lost and
// nothing counted twice.
//
// Where each run is killed depends on the job's progress, not on the
// machine's speed: the test watches the job's checkpoint store in the KV
// file and kills a run right after it saved its first (or second) new
// checkpoint. So every killed run has moved the restore point forward, and
// the kills land at a different place in the input each time.

import assert from "node:assert/strict";
import { readTable } from "../../src/connectors/sinks/kv_table.ts";
import { KvStorage } from "../../src/actors/kv/kv_storage.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import {
  runDurableCounts,
  seedEvents,
  TABLE_NAME,
  type WindowCount,
} from "../../examples/durable_counts.ts";

const EVENTS = 300_000;
const KILLS = 12;
// `deno task durable`: finds the log seeded, and runs the job to its end.
const WORKER = new URL("../../examples/durable.ts", import.meta.url).pathname;
// Where examples/durable_counts.ts keeps its checkpoints.
const CHECKPOINTS = ["weir", "durable-counts", "checkpoints"];
// How many new checkpoints each run saves before it is killed, in turn.
const NEW_CHECKPOINTS = [1, 2, 1, 1];
// A safety net only: a run is killed as soon as its checkpoint shows up.
const DEADLINE_MS = 60_000;

async function table(path: string): Promise<string[]> {
  const kv = await Deno.openKv(path);
  try {
    const rows = await readTable<WindowCount>(kv, TABLE_NAME);
    return [...rows.values()].map((r) => `${r.id}=${r.count}`).sort();
  } finally {
    kv.close();
  }
}

async function seeded(): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".sqlite" });
  const kv = await Deno.openKv(path);
  await seedEvents(kv, EVENTS);
  kv.close();
  return path;
}

function worker(path: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", WORKER, path],
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/** The newest complete checkpoint in the job's store, 0 if none. */
async function newestCheckpoint(store: CheckpointStore): Promise<number> {
  return (await store.list()).at(-1)?.id ?? 0;
}

/**
 * Resolves `true` once the store holds checkpoint `id`, or `false` once
 * `exited` is set (the run ended by itself first).
 */
async function checkpointSaved(
  store: CheckpointStore,
  id: number,
  exited: { value: boolean },
): Promise<boolean> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!exited.value) {
    if (await newestCheckpoint(store) >= id) return true;
    assert.ok(Date.now() < deadline, `checkpoint ${id} never came`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

Deno.test({
  name:
    "A job killed with SIGKILL right after it saves a new checkpoint, again and again, ends with exactly the failure-free table",
  async fn() {
    const reference = await seeded();
    const kv = await Deno.openKv(reference);
    await runDurableCounts(kv);
    kv.close();
    const expected = await table(reference);
    assert.ok(expected.length >= 100, `${expected.length} rows`);

    const path = await seeded();
    const watcher = await Deno.openKv(path);
    const store = new CheckpointStore(new KvStorage(watcher, CHECKPOINTS));
    let kills = 0;
    const restorePoints: number[] = [];
    try {
      for (let run = 0; kills < KILLS; run++) {
        const from = await newestCheckpoint(store);
        restorePoints.push(from);
        const target = from + NEW_CHECKPOINTS[run % NEW_CHECKPOINTS.length];
        const child = worker(path);
        const exited = { value: false };
        const done = child.status.then(() => exited.value = true);
        if (await checkpointSaved(store, target, exited)) {
          try {
            child.kill("SIGKILL");
          } catch {
            // It finished on its own just now: the status says so.
          }
        }
        await done;
        const { code, signal, stderr } = await child.output();
        if (signal === "SIGKILL") {
          kills++;
          continue;
        }
        // The job reached the end of its input before it could be killed
        // often enough: the assertion on `kills` below reports it.
        assert.equal(code, 0, new TextDecoder().decode(stderr));
        break;
      }
    } finally {
      watcher.close();
    }
    assert.ok(
      kills >= 10,
      `${kills} kills; restore points ${restorePoints.join(", ")}`,
    );
    // Every killed run saved a checkpoint past the one it started from.
    for (let i = 1; i < restorePoints.length; i++) {
      assert.ok(restorePoints[i] > restorePoints[i - 1], `${restorePoints}`);
    }
    // The last run goes to the end of the input.
    const { code, stderr } = await worker(path).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    assert.deepEqual(await table(path), expected);
    await Deno.remove(reference);
    await Deno.remove(path);
  },
});
