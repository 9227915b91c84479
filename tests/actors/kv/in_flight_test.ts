// Overlapped steps (a worker on a real clock: `simulate: false`), driven
// tick by tick on a ManualClock over an in-memory database: the
// bookkeeping of steps in flight (a step that threw is one outcome, handed
// on once; a settle leaves nothing behind), two actors' steps committing
// independently, a commit that throws, and a worker fenced by a take-over
// committing nothing while its steps overlap.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { InFlight } from "../../../src/actors/kv/_in_flight.ts";
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

/** Whether a write commits a step of `actor`: its meta, under its lease. */
function stepOf(write: WriteRecord, actor: string): boolean {
  const lease = JSON.stringify([...BASE, "lease", actor]);
  return write.checkedKeys.some((k) => JSON.stringify(k) === lease) &&
    write.keys.some((k) => hasPrefix(k, [...BASE, "a", actor, "v", "meta"]));
}

Deno.test("InFlight starts one step per actor, returns at the first commit and leaves the others in flight", async () => {
  const steps = new InFlight();
  let release = () => {};
  const slow = new Promise<boolean>((resolve) => {
    release = () => resolve(true);
  });
  let started = 0;
  steps.start("slow", () => {
    started++;
    return slow;
  });
  steps.start("slow", () => {
    started++;
    return Promise.resolve(true);
  });
  assert.equal(started, 1, "a step in flight is not started twice");
  steps.start("idle", () => Promise.resolve(false));
  steps.start("fast", () => Promise.resolve(true));
  assert.equal(await steps.next(), true);
  // The slow one is still in flight: it is not started again.
  steps.start("slow", () => {
    started++;
    return Promise.resolve(false);
  });
  assert.equal(started, 1);
  release();
  assert.equal(await steps.next(), true);
  assert.equal(await steps.next(), false, "none left in flight");
  steps.start("a", () => Promise.resolve(false));
  await steps.settle();
  assert.equal(await steps.next(), false);
});

Deno.test("InFlight: a step that threw is out of flight; next() throws its error once, and the actor steps again", async () => {
  const steps = new InFlight();
  steps.start("$checkpoints", () => Promise.reject(new Error("save failed")));
  await assert.rejects(steps.next(), /save failed/);
  let started = 0;
  steps.start("$checkpoints", () => {
    started++;
    return Promise.resolve(true);
  });
  assert.equal(started, 1, "started again");
  assert.equal(await steps.next(), true, "the old error is not thrown again");
  assert.equal(await steps.next(), false);
  assert.equal(await steps.settle(), false);
  // A step that throws before it returns a promise is an outcome too.
  steps.start("sync", () => {
    throw new Error("thrown at once");
  });
  await assert.rejects(steps.next(), /thrown at once/);
  assert.equal(await steps.next(), false);
});

Deno.test("InFlight: settle() waits for every step and tracked work, says whether one committed, throws the first error once and leaves nothing in flight", async () => {
  const steps = new InFlight();
  let release = () => {};
  const slow = new Promise<boolean>((resolve) => release = () => resolve(true));
  let readDone = false;
  let endRead = () => {};
  const read = new Promise<null>((resolve) =>
    endRead = () => {
      readDone = true;
      resolve(null);
    }
  );
  steps.start("slow", () => slow);
  steps.start("broken", () => Promise.reject(new Error("first")));
  steps.start("also broken", () => Promise.reject(new Error("second")));
  steps.track(read);
  steps.track(Promise.reject(new Error("a tracked read that failed")));
  const settled = steps.settle();
  await Promise.resolve();
  release();
  setTimeout(endRead, 0);
  await assert.rejects(settled, /first/);
  assert.equal(readDone, true, "it waited for the tracked read");
  assert.equal(await steps.next(), false, "nothing left in flight");
  assert.equal(await steps.settle(), false, "no error left either");
  steps.start("slow", () => Promise.resolve(true));
  steps.start("other", () => Promise.resolve(false));
  assert.equal(await steps.settle(), true);
});

Deno.test("InFlight: a long step gets one handler, however many rounds wait meanwhile", async () => {
  const steps = new InFlight();
  let handlers = 0;
  const long = new Promise<boolean>(() => {});
  const then = long.then.bind(long);
  Object.defineProperty(long, "then", {
    value: (...args: Parameters<typeof then>) => {
      handlers++;
      return then(...args);
    },
  });
  steps.start("long", () => long);
  for (let round = 0; round < 5; round++) {
    steps.start(`quick-${round}`, () => Promise.resolve(true));
    assert.equal(await steps.next(), true);
  }
  assert.equal(handlers, 1);
});

Deno.test("overlapped steps: two actors' step commits are in flight at once, each its own commit; every result exactly once", async () => {
  for (const simulate of [false, true]) {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const table = new ExternalTable<string>();
    const script = sensorReadings(120);
    // Step commits sent while another actor's was sent and not answered.
    let overlaps = 0;
    const recorded = recordingKv(kv, {
      beforeWrite(write) {
        const actor = ACTORS.find((a) => stepOf(write, a));
        if (actor === undefined) return;
        const others = recorded.writes.filter((w) =>
          w !== write && w.ok === undefined &&
          ACTORS.some((a) => a !== actor && stepOf(w, a))
        );
        if (others.length > 0) overlaps++;
      },
    });
    const runtime = sensorKvWorker(recorded.kv, "w", clock, table, script, {
      simulate,
    });
    await driveKv(runtime, clock);
    assert.equal(runtime.finished, true);
    assert.deepEqual(table.rows(), expectedSums(script));
    // A simulated clock steps actors one after another.
    if (simulate) assert.equal(overlaps, 0);
    else assert.ok(overlaps > 0, "steps of different actors overlapped");
  }
});

class Crash extends Error {
  constructor() {
    super("simulated failure of a commit");
    this.name = "Crash";
  }
}

Deno.test("overlapped steps: a step whose commit threw is redone from the last commit (its read-ahead unused); every result exactly once", async () => {
  for (const actor of ["sensors/window-1/0", "sensors/source-0/1"]) {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const table = new ExternalTable<string>();
    const script = sensorReadings(120);
    let steps = 0;
    const recorded = recordingKv(kv, {
      beforeWrite(write) {
        // The 4th step of the actor fails: it had read ahead since its 3rd.
        if (stepOf(write, actor) && ++steps === 4) throw new Crash();
      },
    });
    const runtime = sensorKvWorker(recorded.kv, "w", clock, table, script, {
      leaseMs: LEASE_MS,
      simulate: false,
    });
    const errors = console.error;
    console.error = () => {};
    try {
      await driveKv(runtime, clock);
    } finally {
      console.error = errors;
    }
    assert.ok(steps > 4, `${actor}: stepped again after the failure`);
    assert.equal(runtime.finished, true);
    assert.deepEqual(table.rows(), expectedSums(script), actor);
  }
});

Deno.test("overlapped steps: a worker whose leases were taken over commits nothing, whatever it had in flight", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const script = sensorReadings(120);
  const a = recordingKv(kv);
  const workerA = sensorKvWorker(a.kv, "a", clock, table, script, {
    leaseMs: LEASE_MS,
    simulate: false,
  });
  await driveKv(workerA, clock, () => clock.now() >= 1_200);
  assert.deepEqual(workerA.ownedActors.sort(), ACTORS);
  // a stops being called; b takes everything over once a's leases expire.
  clock.set(clock.now() + LEASE_MS + 1);
  const workerB = sensorKvWorker(kv, "b", clock, table, script, {
    leaseMs: LEASE_MS,
    simulate: false,
  });
  await driveKv(workerB, clock);
  assert.equal(workerB.finished, true);
  assert.deepEqual(table.rows(), expectedSums(script));
  // Called again, a's overlapped steps all fail their lease checks.
  const before = a.writes.length;
  const errors = console.error;
  console.error = () => {};
  try {
    assert.equal(await workerA.tick(), false);
  } finally {
    console.error = errors;
  }
  assert.deepEqual(workerA.ownedActors, []);
  for (const write of a.writes.slice(before)) {
    const heartbeat = write.keys.length === 1 &&
      hasPrefix(write.keys[0], [...BASE, "worker", "a"]);
    if (!heartbeat) assert.equal(write.ok, false, JSON.stringify(write.keys));
  }
  assert.deepEqual(table.rows(), expectedSums(script));
});
