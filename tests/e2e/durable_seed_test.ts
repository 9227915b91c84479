// `deno task dev durable <kv-file>` killed while it seeds its log: the next
// run completes the seed and ends with the failure-free output, the same
// line and the same table. The kill lands where the test sees, in the KV
// file, that the log is partly seeded; a run that seeded everything before
// the kill landed proves nothing and is tried again on a fresh file.

import assert from "node:assert/strict";
import { readTable } from "../../src/connectors/sinks/kv_table.ts";
import {
  eventLog,
  TABLE_NAME,
  type WindowCount,
} from "../../examples/durable_counts.ts";
import { waitFor } from "../_support/wait_for.ts";
import { mainCommand } from "../_support/dev_process.ts";

const EVENTS = 300_000;
const PARTITIONS = 4;
// A safety net: a kill at the first sight of a partial log lands before
// the seeding ends on any machine not starved for the whole seeding.
const ATTEMPTS = 5;

/** The real command, as `deno task dev durable <path>` runs it. */
function durable(path: string): Deno.ChildProcess {
  return mainCommand(["durable", path]).spawn();
}

/** Runs the command to its end; its stdout lines. */
async function runToEnd(path: string): Promise<string[]> {
  const { code, stdout, stderr } = await durable(path).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout).trim().split("\n");
}

/** Each partition's head: how many events it holds. */
async function heads(kv: Deno.Kv): Promise<number[]> {
  const log = eventLog(kv);
  return await Promise.all(
    Array.from({ length: PARTITIONS }, (_, p) => log.head(p)),
  );
}

async function table(path: string): Promise<string[]> {
  const kv = await Deno.openKv(path);
  try {
    const rows = await readTable<WindowCount>(kv, TABLE_NAME);
    return [...rows.values()].map((r) => `${r.id}=${r.count}`).sort();
  } finally {
    kv.close();
  }
}

/**
 * Starts the command on a fresh file and kills it (SIGKILL) once the log
 * holds events in partition 1: partition 0 seeded, partition 1 under way.
 * Returns the heads the kill left, or `null` if the seeding was complete
 * before the kill landed.
 */
async function killWhileSeeding(path: string): Promise<number[] | null> {
  const child = durable(path);
  const kv = await Deno.openKv(path);
  try {
    await waitFor(
      "events in partition 1",
      async () => (await eventLog(kv).head(1)) > 0,
      { pollMs: 5, unless: child.status },
    );
    try {
      child.kill("SIGKILL");
    } catch {
      // It ended on its own: the status says so.
    }
    const { signal } = await child.output();
    const left = await heads(kv);
    return signal === "SIGKILL" && left.reduce((a, b) => a + b, 0) < EVENTS
      ? left
      : null;
  } finally {
    kv.close();
  }
}

Deno.test({
  name:
    "deno task dev durable killed while it seeds its log completes the seed on the next run and prints the failure-free output",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "weir-durable-seed-" });
    try {
      const reference = `${dir}/reference.sqlite`;
      const clean = await runToEnd(reference);
      assert.equal(
        clean.find((line) => line.startsWith("seeding")),
        `seeding ${EVENTS} events into ${reference}`,
      );
      assert.match(
        clean.at(-1)!,
        new RegExp(`^\\d+ window counts, ${EVENTS} events$`),
      );

      let path = "";
      let left: number[] | null = null;
      for (let attempt = 0; attempt < ATTEMPTS && left === null; attempt++) {
        path = `${dir}/killed-${attempt}.sqlite`;
        left = await killWhileSeeding(path);
      }
      assert.ok(left !== null, "a kill landed while the log was seeded");
      const seeded = left.reduce((a, b) => a + b, 0);
      assert.ok(left[1] > 0 && seeded < EVENTS, `heads ${left}`);

      const resumed = await runToEnd(path);
      assert.equal(resumed.at(-1), clean.at(-1));
      assert.deepEqual(await table(path), await table(reference));
      assert.equal(
        resumed.find((line) => line.startsWith("seeding")),
        `seeding ${EVENTS - seeded} events into ${path}`,
      );
      const kv = await Deno.openKv(path);
      try {
        assert.deepEqual(
          await heads(kv),
          Array(PARTITIONS).fill(EVENTS / PARTITIONS),
        );
      } finally {
        kv.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
