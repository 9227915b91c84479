// The loop of a KV-runtime worker (`_worker_loop.ts`), with its steps one
// after another (`simulate: true`) and overlapped (`simulate: false`), on
// a ManualClock over an in-memory database: an error a step throws fails
// one round and is not thrown again; `run()` ended by one still gives its
// leases up; a `tick()` returns only once everything it started has
// ended; and `nextWakeup()` is now while an actor has input it has not
// read.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import type { StorageKey, StorageOp } from "../../../src/actors/storage.ts";
import type { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import { ExternalTable } from "../../_support/two_phase_sink.ts";
import {
  expectedSums,
  READING_PARTITIONS,
  SENSOR_KV_BASE,
  SENSOR_SOURCES,
  sensorJob,
  sensorReadings,
} from "../../_support/sensor_job.ts";
import { hasPrefix, recordingKv } from "../../_support/recording_kv.ts";

const BASE = SENSOR_KV_BASE;
const SOURCES = SENSOR_SOURCES;

/** A checkpoint store whose disk is full once, when armed. */
class FullOnce extends MemoryStorage {
  armed = false;
  failed = 0;

  #fail(): Promise<never> | null {
    if (!this.armed || this.failed > 0) return null;
    this.failed++;
    return Promise.reject(new Error("ENOSPC: no space left on device"));
  }
  override get<V>(key: StorageKey): Promise<V | undefined> {
    return this.#fail() ?? super.get<V>(key);
  }
  override getMany<V>(keys: readonly StorageKey[]) {
    return this.#fail() ?? super.getMany<V>(keys);
  }
  override list<V>(prefix: StorageKey, options?: { limit?: number }) {
    return this.#fail() ?? super.list<V>(prefix, options);
  }
  override put(key: StorageKey, value: unknown): Promise<void> {
    return this.#fail() ?? super.put(key, value);
  }
  override atomic(ops: readonly StorageOp[]): Promise<void> {
    return this.#fail() ?? super.atomic(ops);
  }
}

function sensors(
  kv: Deno.Kv,
  clock: ManualClock,
  simulate: boolean,
  options: {
    store?: MemoryStorage;
    table?: ExternalTable<string>;
    leaseMs?: number;
  } = {},
): KvRuntime {
  return sensorJob({
    storage: options.store ?? new MemoryStorage(),
    clock,
    mode: "persist",
    table: options.table ?? new ExternalTable<string>(),
    script: sensorReadings(120),
    partitions: READING_PARTITIONS,
    parallelism: 2,
  }).createKvRuntime({
    kv,
    workerId: "w",
    leaseMs: options.leaseMs ?? 1_000,
    simulate,
  });
}

/** Runs `fn` with the worker's log lines dropped. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const errors = console.error;
  console.error = () => {};
  try {
    return await fn();
  } finally {
    console.error = errors;
  }
}

for (const simulate of [true, false]) {
  Deno.test(`a coordinator that throws once (a checkpoint store whose disk was full) fails one tick; the job then finishes, every result once (simulate: ${simulate})`, async () => {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const table = new ExternalTable<string>();
    const store = new FullOnce();
    store.armed = true;
    const runtime = sensors(kv, clock, simulate, { store, table });
    let rejected = 0;
    await quietly(async () => {
      for (let round = 0; !runtime.finished; round++) {
        assert.ok(round < 3_000 && clock.now() < 60_000, "the job must finish");
        try {
          if (await runtime.tick()) continue;
        } catch (error) {
          assert.match((error as Error).message, /ENOSPC/);
          rejected++;
          continue;
        }
        if (runtime.finished) break;
        clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
      }
    });
    assert.equal(store.failed, 1);
    assert.equal(rejected, 1, "one tick failed with it, once");
    assert.deepEqual(table.rows(), expectedSums(sensorReadings(120)));
  });

  Deno.test(`run() that a coordinator's error ended gives every lease up and ends the heartbeat (simulate: ${simulate})`, async () => {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const store = new FullOnce();
    const runtime = sensors(kv, clock, simulate, { store, leaseMs: 60_000 });
    await runtime.tick();
    assert.ok(runtime.ownedActors.length > 0);
    // A checkpoint is due: the coordinator reads the store, which fails,
    // while the actors' steps are in flight.
    clock.set(1_000);
    store.armed = true;
    await quietly(() => assert.rejects(runtime.run(), /ENOSPC/));
    assert.equal(store.failed, 1);
    const held: string[] = [];
    for await (
      const e of kv.list<{ expiresAt: number }>({
        prefix: [...BASE, "lease"],
      })
    ) {
      if (e.value.expiresAt > clock.now()) held.push(String(e.key.at(-1)));
    }
    assert.deepEqual(held, []);
    assert.equal((await kv.get([...BASE, "worker", "w"])).value, null);
    assert.deepEqual(runtime.ownedActors, []);
  });
}

Deno.test("tick() with steps overlapped returns once every step it started, and every read ahead, has ended", async () => {
  using db = await Deno.openKv(":memory:");
  // KV calls sent and not answered yet.
  let pending = 0;
  const counted = <T>(call: Promise<T>): Promise<T> => {
    pending++;
    return call.finally(() => pending--);
  };
  const kv = new Proxy(db, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      if (name === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => counted(commit());
          return op;
        };
      }
      if (["get", "getMany", "set", "delete"].includes(String(name))) {
        return (...args: unknown[]) => counted(value.apply(target, args));
      }
      return value.bind(target);
    },
  });
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  const runtime = sensors(kv, clock, false, { table });
  let left = 0;
  for (let round = 0; !runtime.finished; round++) {
    assert.ok(round < 3_000 && clock.now() < 60_000, "the job must finish");
    const progressed = await runtime.tick();
    left += pending;
    if (progressed || runtime.finished) continue;
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
  assert.equal(left, 0, "KV calls in flight when a tick returned");
  assert.deepEqual(table.rows(), expectedSums(sensorReadings(120)));
});

for (const simulate of [true, false]) {
  Deno.test(`after a tick in which a source wrote entries, nextWakeup() is now: its consumers have not read them (simulate: ${simulate})`, async () => {
    using db = await Deno.openKv(":memory:");
    const recorded = recordingKv(db);
    const clock = new ManualClock(0);
    const runtime = sensors(recorded.kv, clock, simulate);
    let checked = 0;
    for (let round = 0; !runtime.finished; round++) {
      assert.ok(round < 3_000 && clock.now() < 60_000, "the job must finish");
      const before = recorded.writes.length;
      const progressed = await runtime.tick();
      const wrote = recorded.writes.slice(before).some((w) =>
        w.ok === true &&
        SOURCES.some((s) =>
          w.written.some(([k]) => hasPrefix(k, [...BASE, "a", s, "v", "out"]))
        )
      );
      if (wrote) {
        checked++;
        assert.equal(runtime.nextWakeup(), clock.now(), `round ${round}`);
      }
      if (progressed || runtime.finished) continue;
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
    assert.ok(checked > 0);
  });
}
