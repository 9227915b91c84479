// The whole-process test: the durable job runs in a subprocess that is
// killed with SIGKILL at random moments; after the last run reaches the end
// of its input, the KV table equals a failure-free run's, with nothing lost
// and nothing counted twice.

import assert from "node:assert/strict";
import { readTable } from "../../src/connectors/sinks/kv_table.ts";
import {
  runDurableCounts,
  seedEvents,
  TABLE_NAME,
  type WindowCount,
} from "../../examples/durable_counts.ts";

const EVENTS = 300_000;
const WORKER =
  new URL("../../examples/durable_counts.ts", import.meta.url).pathname;

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

// A seeded pseudo-random sequence of kill delays, so the test is repeatable.
function* delays(seed: number): Generator<number> {
  for (;;) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    yield 80 + (seed % 220);
  }
}

Deno.test({
  name:
    "A job killed with SIGKILL at random moments and restarted ends with exactly the failure-free table",
  async fn() {
    const reference = await seeded();
    const kv = await Deno.openKv(reference);
    await runDurableCounts(kv);
    kv.close();
    const expected = await table(reference);
    assert.ok(expected.length >= 100, `${expected.length} rows`);

    const path = await seeded();
    let kills = 0;
    const wait = delays(42);
    for (let attempt = 0; kills < 12 && attempt < 40; attempt++) {
      const child = worker(path);
      const timer = new Promise<"kill">((resolve) =>
        setTimeout(() => resolve("kill"), wait.next().value)
      );
      const outcome = await Promise.race([
        child.status.then(() => "done" as const),
        timer,
      ]);
      if (outcome === "kill") {
        try {
          child.kill("SIGKILL");
          kills++;
        } catch {
          // It finished just now.
        }
      }
      const status = await child.status;
      const stderr = new TextDecoder().decode(
        (await child.output().catch(() => ({ stderr: new Uint8Array() })))
          .stderr,
      );
      if (outcome === "done") {
        assert.equal(status.code, 0, stderr);
        break;
      }
    }
    // The last run goes to the end of the input.
    const final = worker(path);
    const { code, stderr } = await final.output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    assert.ok(kills >= 10, `${kills} kills`);
    assert.deepEqual(await table(path), expected);
    await Deno.remove(reference);
    await Deno.remove(path);
  },
});
