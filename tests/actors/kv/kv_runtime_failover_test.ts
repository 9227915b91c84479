// Fail-over of the KV runtime, in process and deterministic (one ManualClock,
// one in-memory database shared by the workers): a dead worker's actors are
// taken over once its leases expire, a crash before any write of a run
// loses and duplicates nothing, and a worker that wakes after its leases
// were taken over is fenced (it commits nothing for those actors). Output
// goes to an idempotent two-phase sink and must equal the brute-force sums.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import type { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import { isTransient } from "../../../src/kv/retry.ts";
import { ExternalTable } from "../../_support/two_phase_sink.ts";
import {
  expectedSums,
  SENSOR_ACTORS,
  SENSOR_KV_BASE,
  sensorKvWorker,
  sensorReadings,
} from "../../_support/sensor_job.ts";
import {
  hasPrefix,
  recordingKv,
  type WriteRecord,
} from "../../_support/recording_kv.ts";
import { driveKv } from "../../_support/drive_kv.ts";

const LEASE_MS = 1_000;
const BASE = SENSOR_KV_BASE;
const ACTORS = SENSOR_ACTORS;

const readings = sensorReadings;

/**
 * Ticks every worker each round (moving the clock to the earliest wake-up
 * when none committed) until all have finished; `check` sees the actors
 * each worker owns after every round.
 */
async function driveAll(
  workers: readonly KvRuntime[],
  clock: ManualClock,
  check: (owned: string[][]) => void,
): Promise<void> {
  for (let round = 0;; round++) {
    assert.ok(
      round < 10_000 && clock.now() < 60_000,
      "the workers must finish",
    );
    let progressed = false;
    for (const w of workers) progressed = (await w.tick()) || progressed;
    check(workers.map((w) => w.ownedActors));
    if (progressed) continue;
    const running = workers.filter((w) => !w.finished);
    if (running.length === 0) return;
    clock.set(
      Math.max(
        Math.min(...running.map((w) => w.nextWakeup())),
        clock.now() + 1,
      ),
    );
  }
}

/** Every entry of the job's runtime state but the workers' heartbeats. */
async function runtimeState(kv: Deno.Kv): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  for await (const entry of kv.list({ prefix: BASE })) {
    if (hasPrefix(entry.key, [...BASE, "worker"])) continue;
    state.set(JSON.stringify(entry.key), entry.versionstamp);
  }
  return state;
}

/** Runs `call` with the runtime's log lines (console.error) captured. */
async function captureLog<T>(
  call: () => Promise<T>,
): Promise<[T, string[]]> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    return [await call(), lines];
  } finally {
    console.error = original;
  }
}

/** The actor whose step `write` commits, or `null` for other writes. */
function stepOf(write: WriteRecord): string | null {
  if (write.kind !== "atomic") return null;
  for (const key of write.keys) {
    if (
      hasPrefix(key, [...BASE, "a"]) && key.length === BASE.length + 4 &&
      key.at(-2) === "v" && key.at(-1) === "meta" &&
      ACTORS.includes(key[BASE.length + 1] as string)
    ) return key[BASE.length + 1] as string;
  }
  return null;
}

/**
 * Asserts that the writes a worker made in a fenced round changed nothing
 * but its own heartbeat: every other write failed its check.
 */
function assertFencedWrites(writes: readonly WriteRecord[], id: string): void {
  for (const write of writes) {
    const heartbeat = write.keys.length === 1 &&
      JSON.stringify(write.keys[0]) ===
        JSON.stringify([...BASE, "worker", id]);
    if (heartbeat) continue;
    assert.equal(
      write.ok,
      false,
      `a fenced write must fail its check: ${JSON.stringify(write.keys)}`,
    );
  }
}

Deno.test("a dead worker's actors are taken over after its leases expire; every result is committed once", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const script = readings(120);
  const a = recordingKv(kv);
  const workerA = sensorKvWorker(a.kv, "a", clock, table, script, {
    leaseMs: LEASE_MS,
  });
  const workerB = sensorKvWorker(kv, "b", clock, table, script, {
    leaseMs: LEASE_MS,
  });

  // Worker a alone takes every actor and runs half the script.
  await driveKv(workerA, clock, () => clock.now() >= 1_200);
  assert.deepEqual(workerA.ownedActors.sort(), ACTORS);
  const committedByA = table.rows().length;
  assert.ok(
    committedByA > 0 && committedByA < expectedSums(script).length,
    `a committed part of the output: ${committedByA} rows`,
  );

  // Worker a dies (it is never called again). While its leases hold, b
  // takes nothing.
  const diedAt = clock.now();
  assert.equal(await workerB.tick(), false);
  assert.deepEqual(workerB.ownedActors, []);

  // Past a's leases (renewed at the latest when it died), b takes all:
  // a's heartbeat expired too, so b's share is every actor.
  clock.set(diedAt + LEASE_MS + 1);
  await workerB.tick();
  assert.deepEqual(workerB.ownedActors.sort(), ACTORS);
  const leases = await Array.fromAsync(
    kv.list<{ owner: string; epoch: number }>({ prefix: [...BASE, "lease"] }),
  );
  for (const id of ACTORS) {
    const lease = leases.find((e) => e.key.at(-1) === id)?.value;
    assert.equal(lease?.owner, "b", `lease of ${id}`);
    assert.ok(lease.epoch >= 2, `the take-over bumped the epoch of ${id}`);
  }
  await driveKv(workerB, clock);
  assert.equal(workerB.finished, true);
  assert.deepEqual(table.rows(), expectedSums(script));

  // Called again, a finds its leases taken over: it drops every actor and
  // writes nothing but its heartbeat.
  const state = await runtimeState(kv);
  const before = a.writes.length;
  const [progressed, log] = await captureLog(() => workerA.tick());
  assert.equal(progressed, false);
  assert.deepEqual(workerA.ownedActors, []);
  assertFencedWrites(a.writes.slice(before), "a");
  assert.deepEqual(await runtimeState(kv), state);
  assert.deepEqual(table.rows(), expectedSums(script));
  assert.ok(
    log.some((line) => line.includes("its lease was taken over")),
    log.join("\n"),
  );
});

class SimulatedCrash extends Error {
  constructor(readonly write: number) {
    super(`simulated process crash before write ${write}`);
    this.name = "SimulatedCrash";
  }
}

Deno.test("a crash before any write of a run loses and duplicates nothing once a new worker takes over", async () => {
  assert.equal(isTransient(new SimulatedCrash(1)), false);
  // A short job (every write of it is a crash point), long enough in event
  // time that windows fire, and their results commit, before the end.
  const script = readings(30, 40);
  const expected = expectedSums(script);

  // A run without failures, to number its writes.
  const reference = await (async () => {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const table = new ExternalTable<string>();
    const recorded = recordingKv(kv);
    let midway = false;
    await driveKv(
      sensorKvWorker(recorded.kv, "w0", clock, table, script, {
        leaseMs: LEASE_MS,
      }),
      clock,
      () => {
        const rows = table.rows().length;
        midway ||= rows > 0 && rows < expected.length;
        return false;
      },
    );
    assert.ok(midway, "results were committed before the end");
    assert.deepEqual(table.rows(), expected);
    return recorded.writes;
  })();
  assert.ok(reference.length > 100, `${reference.length} writes`);
  assert.ok(reference.filter((w) => stepOf(w) !== null).length > 50);

  async function crashBefore(n: number): Promise<void> {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const table = new ExternalTable<string>();
    // From write n on, nothing the process does reaches the database (some
    // failures, such as giving a lease up, the runtime swallows; a dead
    // process would not go on, so neither do its later writes).
    let crashed = false;
    const crashing = recordingKv(kv, {
      beforeWrite(write) {
        if (write.n >= n) {
          crashed = true;
          throw new SimulatedCrash(n);
        }
      },
    });
    const dead = sensorKvWorker(crashing.kv, "w0", clock, table, script, {
      leaseMs: LEASE_MS,
    });
    try {
      await driveKv(dead, clock, () => crashed);
    } catch (error) {
      if (!(error instanceof SimulatedCrash)) throw error;
    }
    assert.ok(crashed, `the run reached write ${n}`);
    // The same run up to the crash: the crash hit the write it aimed at.
    assert.deepEqual(crashing.writes[n - 1].keys, reference[n - 1].keys);
    // The process is gone; its leases expire; a new one runs the job out.
    clock.set(clock.now() + LEASE_MS + 1);
    const heir = sensorKvWorker(kv, "w1", clock, table, script, {
      leaseMs: LEASE_MS,
    });
    await driveKv(heir, clock, undefined, ` after a crash before write ${n}`);
    assert.equal(heir.finished, true, `crash before write ${n}`);
    assert.deepEqual(table.rows(), expected, `crash before write ${n}`);
  }

  // Every write, a few runs at a time (each with its own database and
  // clock, so they do not interact).
  const all = reference.map((w) => w.n);
  for (let i = 0; i < all.length; i += 8) {
    const runs = await Promise.allSettled(all.slice(i, i + 8).map(crashBefore));
    for (const run of runs) if (run.status === "rejected") throw run.reason;
  }
});

Deno.test("a paused worker that wakes after a take-over is fenced: it commits nothing for the actors it lost", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const script = readings(120);
  const a = recordingKv(kv);
  const workerA = sensorKvWorker(a.kv, "a", clock, table, script, {
    leaseMs: LEASE_MS,
  });
  const workerB = sensorKvWorker(kv, "b", clock, table, script, {
    leaseMs: LEASE_MS,
  });

  await driveKv(workerA, clock, () => clock.now() >= 800);
  assert.deepEqual(workerA.ownedActors.sort(), ACTORS);
  // a pauses (a GC pause, a stopped process) past its leases; b takes over
  // and commits steps of every actor.
  clock.set(clock.now() + LEASE_MS + 1);
  const progressedB = await driveKv(workerB, clock, () => clock.now() >= 2_100);
  assert.ok(progressedB > 0);
  assert.deepEqual(workerB.ownedActors.sort(), ACTORS);
  const rows = table.rows();
  const state = await runtimeState(kv);

  // a wakes: it still holds every actor in memory, and its round commits
  // nothing of them.
  assert.deepEqual(workerA.ownedActors.sort(), ACTORS);
  const before = a.writes.length;
  const [progressed, log] = await captureLog(() => workerA.tick());
  assert.equal(progressed, false);
  assert.deepEqual(workerA.ownedActors, []);
  assertFencedWrites(a.writes.slice(before), "a");
  assert.equal(a.writes.slice(before).filter((w) => stepOf(w)).length, 0);
  assert.deepEqual(await runtimeState(kv), state);
  assert.deepEqual(table.rows(), rows);
  assert.ok(log.length > 0);

  await driveKv(workerB, clock);
  assert.deepEqual(table.rows(), expectedSums(script));
});

Deno.test("a worker paused just before a step's commit is fenced by the lease check of that commit", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const script = readings(120);
  const workerB = sensorKvWorker(kv, "b", clock, table, script, {
    leaseMs: LEASE_MS,
  });
  let paused: { write: WriteRecord; actor: string } | null = null;
  let progressedB = 0;
  const a = recordingKv(kv, {
    async beforeWrite(write) {
      const actor = stepOf(write);
      if (
        paused !== null || actor === null || clock.now() < 1_000 ||
        !actor.startsWith("sensors/window-1/")
      ) return;
      // a stops right before sending the commit, past its leases; b takes
      // the actors over and commits before a's commit goes out.
      paused = { write, actor };
      clock.set(clock.now() + LEASE_MS + 1);
      const until = clock.now() + 300;
      progressedB = await driveKv(workerB, clock, () => clock.now() >= until);
    },
  });
  const workerA = sensorKvWorker(a.kv, "a", clock, table, script, {
    leaseMs: LEASE_MS,
  });

  const [, log] = await captureLog(() =>
    driveKv(workerA, clock, () => paused !== null)
  );
  const pause = paused as { write: WriteRecord; actor: string } | null;
  assert.ok(pause !== null, "a paused before a commit of a window actor");
  assert.ok(progressedB > 0);
  assert.ok(workerB.ownedActors.includes(pause.actor));
  // The paused commit reached the database after b's take-over and was
  // refused by its lease check; a dropped that actor.
  assert.equal(pause.write.ok, false);
  assert.ok(!workerA.ownedActors.includes(pause.actor));
  assert.ok(
    log.some((line) =>
      line.includes(pause.actor) &&
      line.includes("a commit failed its lease check")
    ),
    log.join("\n"),
  );

  // Its next round drops the rest, committing nothing.
  const state = await runtimeState(kv);
  const rows = table.rows();
  const before = a.writes.length;
  await captureLog(() => workerA.tick());
  assert.deepEqual(workerA.ownedActors, []);
  assertFencedWrites(a.writes.slice(before), "a");
  assert.deepEqual(await runtimeState(kv), state);
  assert.deepEqual(table.rows(), rows);

  await driveKv(workerB, clock);
  assert.deepEqual(table.rows(), expectedSums(script));
});

Deno.test("live workers split a dead worker's actors, at most ceil(actors / live workers) each, and commit every result once", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const script = readings(120);
  const a = sensorKvWorker(kv, "a", clock, table, script, {
    leaseMs: LEASE_MS,
  });
  await driveKv(a, clock, () => clock.now() >= 800);
  assert.deepEqual(a.ownedActors.sort(), ACTORS);

  // a dies; b and c run on, and take a's actors as its leases expire.
  const live = [
    sensorKvWorker(kv, "b", clock, table, script, { leaseMs: LEASE_MS }),
    sensorKvWorker(kv, "c", clock, table, script, { leaseMs: LEASE_MS }),
  ];
  let split = false;
  await driveAll(live, clock, ([b, c]) => {
    assert.deepEqual(b.filter((id) => c.includes(id)), [], "owned twice");
    assert.ok(b.length <= 2 && c.length <= 2, `shares: ${b} | ${c}`);
    if (b.length === 2 && c.length === 2) split = true;
  });
  assert.ok(split, "b and c each owned half of the actors");
  assert.deepEqual(table.rows(), expectedSums(script));
});

Deno.test("two live workers share the actors, at most ceil(actors / workers) each, and commit every result once", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const script = readings(120);
  // a starts alone and takes every actor; b joins at once, and a gives
  // back what is above its share.
  const workers = [
    sensorKvWorker(kv, "a", clock, table, script, { leaseMs: LEASE_MS }),
    sensorKvWorker(kv, "b", clock, table, script, { leaseMs: LEASE_MS }),
  ];
  let shared = false;
  await driveAll(workers, clock, ([a, b]) => {
    assert.deepEqual(a.filter((id) => b.includes(id)), [], "owned twice");
    if (a.length === 2 && b.length === 2) shared = true;
    if (shared) assert.ok(a.length <= 2 && b.length <= 2, `${a} | ${b}`);
  });
  assert.ok(shared, "each worker owned half of the actors");
  assert.deepEqual(table.rows(), expectedSums(script));
});
