// `--restore none` starts one job over: on a store that also holds another
// job's checkpoints and KV-runtime state, and an ingest stream's log, it
// deletes only the restarted job's own runtime state.

import assert from "node:assert/strict";
import { KvLog } from "../../src/connectors/sources/kv_log.ts";
import { readAppendLog } from "../../src/connectors/mod.ts";
import {
  expectedCounts,
  OUTPUT,
  seedClusterEvents,
} from "../../bench/kv_runtime/cluster_counts.ts";
import { freePort } from "../_support/free_port.ts";
import { Dev } from "../_support/dev_process.ts";

const EVENTS = 5_000;
const JOB_FILE = "bench/kv_runtime/cluster_counts.ts";

/** Every entry of the store but those of the cluster job and its output. */
async function others(store: string): Promise<Map<string, string>> {
  const kv = await Deno.openKv(store);
  const entries = new Map<string, string>();
  try {
    for await (const entry of kv.list({ prefix: [] })) {
      const [weir, space, name] = entry.key;
      if (weir === "weir" && space === "cluster_counts") continue;
      if (weir === "weir" && space === "append" && name === OUTPUT) continue;
      entries.set(JSON.stringify(entry.key), entry.versionstamp);
    }
  } finally {
    kv.close();
  }
  return entries;
}

/** The versionstamp of the cluster job's KV-runtime record. */
async function jobRecord(store: string): Promise<string | null> {
  const kv = await Deno.openKv(store);
  try {
    return (await kv.get(["weir", "cluster_counts", "kvrt", "job"]))
      .versionstamp;
  } finally {
    kv.close();
  }
}

async function run(store: string, restore: string): Promise<string> {
  const dev = new Dev([
    JOB_FILE,
    "--runtime",
    "kv",
    "--processes",
    "2",
    "--store",
    store,
    "--port",
    String(freePort()),
    "--restore",
    restore,
  ]);
  const code = await dev.exit();
  assert.equal(code, 0, dev.lines.join("\n"));
  return dev.lines.join("\n");
}

Deno.test("deno task dev --runtime kv --restore none leaves other jobs and ingest logs in the store as they were", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weir-isolation-" });
  const store = `${dir}/weir.sqlite`;
  const kv = await Deno.openKv(store);
  await seedClusterEvents(kv, EVENTS);
  // Another job's checkpoints and runtime state, and an ingest stream.
  await kv.set(["weir", "other", "checkpoints", "latest"], 3);
  await kv.set(["weir", "other", "kvrt", "job"], { plan: "x" });
  await new KvLog(kv, "events", { partitions: 2 }).append(0, [
    { value: { key: "a", ts: 1 }, timestamp: 1 },
  ]);
  kv.close();

  await run(store, "latest");
  const recorded = await jobRecord(store);
  const before = await others(store);
  assert.ok(
    [...before.keys()].some((k) => k.startsWith('["weir","other"')),
    "the other job is in the store",
  );
  const out = await run(store, "none");
  assert.match(out, /2 of 2 workers ended normally/);
  assert.deepEqual(await others(store), before);
  // Started over: the job's own runtime state was recorded anew.
  assert.notEqual(await jobRecord(store), recorded);
  const kv2 = await Deno.openKv(store);
  const counts = (await readAppendLog<string>(kv2, OUTPUT)).map((r) => r.value);
  kv2.close();
  assert.deepEqual([...new Set(counts)].sort(), expectedCounts(EVENTS));
  await Deno.remove(dir, { recursive: true });
});
