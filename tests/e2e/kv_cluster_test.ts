// Three local processes run one job on the KV runtime, sharing a KV file.
// One is killed (SIGKILL) or paused (SIGSTOP) mid-run: the others take its
// actors over when its leases expire, a paused one is fenced when it wakes,
// and the output equals the brute-force counts with no duplicates.

import assert from "node:assert/strict";
import { readAppendLog } from "../../src/connectors/mod.ts";
import {
  expectedCounts,
  OUTPUT,
  seedClusterEvents,
  startClusterWorker,
} from "../../bench/kv_runtime/cluster_counts.ts";
import {
  heldBy,
  type LeaseEntry,
  leases,
  unfinished,
} from "../_support/kv_leases.ts";

const JOB = "cluster_counts";
const EVENTS = 300_000;
const LEASE_MS = 1_000;

interface Worker {
  readonly id: string;
  readonly process: Deno.ChildProcess;
  readonly stderr: Promise<string>;
}

function startWorker(store: string, id: string): Worker {
  const process = startClusterWorker(store, id, {
    leaseMs: LEASE_MS,
    stderr: "piped",
  });
  return { id, process, stderr: new Response(process.stderr).text() };
}

/** Polls `check` every 10 ms (of real time: other processes run) until it holds. */
async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Waits until the job is shared (at least two workers hold actors) and some
 * worker holds an actor that has not finished: that worker, and its actors.
 */
async function victimOf(
  kv: Deno.Kv,
  workers: Worker[],
): Promise<{ worker: Worker; actors: string[] }> {
  let found: { worker: Worker; actors: string[] } | null = null;
  await until(
    "a worker holding unfinished actors of a shared job",
    async () => {
      const all = await leases(kv, JOB);
      const holders = workers.filter((w) => heldBy(all, w.id).length > 0);
      if (holders.length < 2) return false;
      for (const worker of holders) {
        const actors = heldBy(all, worker.id);
        if (await unfinished(kv, JOB, actors)) {
          found = { worker, actors };
          return true;
        }
      }
      return false;
    },
  );
  return found!;
}

/** Whether process `pid` is stopped (state T: the SIGSTOP landed). */
async function stopped(pid: number): Promise<boolean> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(stdout).trim().startsWith("T");
}

/**
 * Whether the KV file takes a write: not while a stopped process holds its
 * lock (Deno KV gives up after waiting 5 s with "database is locked").
 */
async function writable(kv: Deno.Kv): Promise<boolean> {
  try {
    await kv.set(["test", "probe"], Date.now());
    return true;
  } catch (error) {
    if (String(error).includes("database is locked")) return false;
    throw error;
  }
}

async function withCluster(
  test: (kv: Deno.Kv, workers: Worker[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "weir-cluster-" });
  const store = `${dir}/weir.sqlite`;
  const kv = await Deno.openKv(store);
  const workers: Worker[] = [];
  try {
    await seedClusterEvents(kv, EVENTS);
    for (const id of ["w1", "w2", "w3"]) workers.push(startWorker(store, id));
    await test(kv, workers);
    const rows = (await readAppendLog<string>(kv, OUTPUT)).map((r) => r.value);
    const expected = expectedCounts(EVENTS);
    assert.equal(
      rows.length,
      expected.length,
      "one row per window: no duplicates",
    );
    assert.deepEqual(rows.sort(), expected);
  } finally {
    for (const w of workers) {
      try {
        w.process.kill("SIGKILL");
      } catch {
        // Already exited.
      }
      await w.process.status;
      await w.stderr;
    }
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("Three processes share a job on one KV file; one SIGKILLed mid-run is taken over once its leases run out and the output has every window once", async () => {
  await withCluster(async (kv, workers) => {
    const { worker: killed } = await victimOf(kv, workers);
    const before = await leases(kv, JOB);
    // What it holds at the kill.
    const victim = heldBy(before, killed.id);
    assert.ok(victim.length > 0, `${killed.id} holds actors`);
    killed.process.kill("SIGKILL");
    await killed.process.status;
    // Each victim actor's lease as first seen under a new owner.
    const taken = new Map<string, LeaseEntry>();
    await until(`${killed.id}'s actors to be taken over`, async () => {
      for (const [id, lease] of await leases(kv, JOB)) {
        if (victim.includes(id) && lease.owner !== killed.id) {
          if (!taken.has(id)) taken.set(id, lease);
        }
      }
      return taken.size === victim.length;
    });
    for (const id of victim) {
      const [old, now] = [before.get(id)!, taken.get(id)!];
      assert.ok(now.epoch > old.epoch, `${id}: new epoch`);
      // Taken only once the dead worker's lease ran out: a lease is taken
      // at a time past the old expiry and runs LEASE_MS from then (unless
      // it was given up again at once, which leaves 0).
      assert.ok(
        now.expiresAt === 0 || now.expiresAt >= old.expiresAt + LEASE_MS,
        `${id}: taken at ${
          now.expiresAt - LEASE_MS
        }, the lease ran to ${old.expiresAt}`,
      );
    }
    const survivors = workers.filter((w) => w !== killed);
    const statuses = await Promise.all(survivors.map((w) => w.process.status));
    assert.ok(
      statuses.every((s) => s.success),
      (await Promise.all(survivors.map((w) => w.stderr))).join(""),
    );
  });
});

Deno.test("A process paused (SIGSTOP) past its leases is fenced when it resumes: its commits fail the epoch check, and the output has every window once", async () => {
  await withCluster(async (kv, workers) => {
    // A process stopped inside an SQLite write holds the file's lock, so
    // nobody can take over until it resumes: then resume it and pause it
    // again later. Otherwise the others take over; the deadline of `until`
    // is only a safety net.
    let fenced: Worker | null = null;
    for (let attempt = 0; attempt < 8 && fenced === null; attempt++) {
      const { worker, actors } = await victimOf(kv, workers);
      worker.process.kill("SIGSTOP");
      try {
        await until(`${worker.id} to stop`, () => stopped(worker.process.pid));
        if (!(await writable(kv))) continue;
        await until(`${worker.id}'s actors to be taken over`, async () => {
          const now = await leases(kv, JOB);
          return actors.every((id) => now.get(id)!.owner !== worker.id);
        });
        fenced = worker;
      } finally {
        worker.process.kill("SIGCONT");
      }
    }
    assert.ok(
      fenced !== null,
      "a worker's actors were taken over while it was paused",
    );
    const statuses = await Promise.all(workers.map((w) => w.process.status));
    assert.ok(statuses.every((s) => s.success));
    const log = await fenced.stderr;
    assert.match(
      log,
      new RegExp(`worker ${fenced.id} stops working on actor '[^']+' as`),
    );
    console.log(log.split("\n").filter((l) => l.includes("stops working"))[0]);
  });
});
