// Three local processes run one job on the KV runtime, sharing a KV file.
// One is killed (SIGKILL) or paused (SIGSTOP) mid-run: the others take its
// actors over when its leases expire, a paused one is fenced when it wakes,
// and the output equals the brute-force counts with no duplicates (DESIGN
// "KV runtime", issue 8's acceptance).

import assert from "node:assert/strict";
import { KvStorage, readAppendLog } from "../../src/mod.ts";
import {
  expectedCounts,
  OUTPUT,
  seedClusterEvents,
  startClusterWorker,
} from "../../bench/kv_runtime/cluster_counts.ts";

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

type Leases = Map<string, { owner: string; epoch: number; expiresAt: number }>;

async function leases(kv: Deno.Kv): Promise<Leases> {
  const out: Leases = new Map();
  for await (
    const entry of kv.list<{ owner: string; epoch: number; expiresAt: number }>(
      { prefix: ["weir", JOB, "kvrt", "lease"] },
    )
  ) {
    out.set(String(entry.key[entry.key.length - 1]), entry.value);
  }
  return out;
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

/** Whether some of the actors has not finished yet (the job is mid-run). */
async function unfinished(kv: Deno.Kv, actors: string[]): Promise<boolean> {
  const metas = await Promise.all(
    actors.map((id) =>
      new KvStorage(kv, ["weir", JOB, "kvrt", "a", id]).get<
        { finished: boolean }
      >(["meta"])
    ),
  );
  return metas.some((m) => m === undefined || !m.finished);
}

/** The actors `owner` holds now (unexpired leases of subtasks). */
function heldBy(all: Leases, owner: string): string[] {
  const now = Date.now();
  return [...all].filter(([id, l]) =>
    !id.startsWith("$") && l.owner === owner && l.expiresAt > now
  ).map(([id]) => id);
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
      const all = await leases(kv);
      const holders = workers.filter((w) => heldBy(all, w.id).length > 0);
      if (holders.length < 2) return false;
      for (const worker of holders) {
        const actors = heldBy(all, worker.id);
        if (await unfinished(kv, actors)) {
          found = { worker, actors };
          return true;
        }
      }
      return false;
    },
  );
  return found!;
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

Deno.test("Three processes share a job on one KV file; one SIGKILLed mid-run is taken over within the lease timeout and the output has every window once", async () => {
  await withCluster(async (kv, workers) => {
    const { worker: killed, actors: victim } = await victimOf(kv, workers);
    const before = await leases(kv);
    killed.process.kill("SIGKILL");
    const killedAt = Date.now();
    await killed.process.status;
    await until(`${killed.id}'s actors to be taken over`, async () => {
      const now = await leases(kv);
      return victim.every((id) => now.get(id)!.owner !== killed.id);
    });
    const takeoverMs = Date.now() - killedAt;
    // A lease runs out LEASE_MS after its last renewal; a survivor looks
    // for free actors every LEASE_MS / 4. Generous for a loaded machine.
    assert.ok(takeoverMs < 3 * LEASE_MS, `taken over after ${takeoverMs} ms`);
    console.log(`taken over ${takeoverMs} ms after the kill`);
    const after = await leases(kv);
    for (const id of victim) {
      assert.ok(
        after.get(id)!.epoch > before.get(id)!.epoch,
        `${id}: new epoch`,
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
    // nobody can take over until it resumes: then pause one again later.
    let fenced: Worker | null = null;
    for (let attempt = 0; attempt < 8 && fenced === null; attempt++) {
      const { worker, actors } = await victimOf(kv, workers);
      worker.process.kill("SIGSTOP");
      try {
        await until(
          `${worker.id}'s actors to be taken over`,
          async () => {
            const now = await leases(kv);
            return actors.every((id) => now.get(id)!.owner !== worker.id);
          },
          4 * LEASE_MS,
        );
        fenced = worker;
      } catch {
        // Not taken over while paused (the lock): resume and try again.
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
