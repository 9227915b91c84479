// An actor step of the KV runtime is one atomic batch, but the database
// limits each commit (Deno KV: 1000 mutations, 800 KiB of keys and values,
// 80 KiB of written keys, 64 KiB per value; KV Connect: 10 checks). These
// jobs step with megabytes of state in one actor, and with megabytes of
// output in one step, through a wrapper that measures every commit.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import {
  hasPrefix,
  recordingKv,
  type WriteRecord,
} from "../../_support/recording_kv.ts";
import { driveKv } from "../../_support/drive_kv.ts";

const KIB = 1024;
const LIMITS = {
  checks: 10,
  mutations: 1000,
  mutationBytes: 800 * KIB,
  writtenKeyBytes: 80 * KIB,
  valueBytes: 64 * KIB,
  keyBytes: 2 * KIB,
};

/** A seeded PRNG (mulberry32): the same bytes for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `length` random one-byte characters (codes 0 to 255): stored as that many
 * bytes, and incompressible, so deflate cannot shrink the state.
 */
function noise(seed: number, length: number): string {
  const next = prng(seed);
  const codes = new Uint16Array(length);
  for (let i = 0; i < length; i++) codes[i] = Math.floor(next() * 256);
  let out = "";
  for (let i = 0; i < length; i += 8_192) {
    out += String.fromCharCode(...codes.subarray(i, i + 8_192));
  }
  return out;
}

/** FNV-1a over the characters, as hex. */
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  return (hash >>> 0).toString(16);
}

interface Maxima {
  checks: number;
  mutations: number;
  mutationBytes: number;
  payloadBytes: number;
  writtenKeyBytes: number;
  maxValueBytes: number;
  maxKeyBytes: number;
}

/** Asserts every commit within the limits; returns the largest of each measure. */
function assertWithinLimits(writes: readonly WriteRecord[]): Maxima {
  const max: Maxima = {
    checks: 0,
    mutations: 0,
    mutationBytes: 0,
    payloadBytes: 0,
    writtenKeyBytes: 0,
    maxValueBytes: 0,
    maxKeyBytes: 0,
  };
  for (const write of writes) {
    const where = `write ${write.n} (${write.kind}, ${write.mutations} ` +
      `mutations, first key ${JSON.stringify(write.keys[0])})`;
    assert.ok(
      write.checks <= LIMITS.checks,
      `${where}: ${write.checks} checks`,
    );
    assert.ok(
      write.mutations <= LIMITS.mutations,
      `${where}: ${write.mutations} mutations`,
    );
    assert.ok(
      write.mutationBytes <= LIMITS.mutationBytes,
      `${where}: ${write.mutationBytes} bytes of keys and values`,
    );
    // Deno KV's own count: checked keys too, and written keys twice.
    assert.ok(
      write.payloadBytes <= LIMITS.mutationBytes,
      `${where}: ${write.payloadBytes} bytes of payload`,
    );
    assert.ok(
      write.writtenKeyBytes <= LIMITS.writtenKeyBytes,
      `${where}: ${write.writtenKeyBytes} bytes of written keys`,
    );
    assert.ok(
      write.maxValueBytes <= LIMITS.valueBytes,
      `${where}: a value of ${write.maxValueBytes} bytes`,
    );
    assert.ok(
      write.maxKeyBytes <= LIMITS.keyBytes,
      `${where}: a key of ${write.maxKeyBytes} bytes`,
    );
    for (const measure of Object.keys(max) as (keyof Maxima)[]) {
      max[measure] = Math.max(max[measure], write[measure]);
    }
    // Every write of the job went through and committed.
    assert.equal(typeof write.ok, "boolean", `${where} was sent`);
  }
  return max;
}

/**
 * The bytes of the largest value stored in parts under an actor: the parts
 * of one version (`[...prefix, "a", actor, "p", version, i]`) summed.
 */
function largestChunkedValue(
  writes: readonly WriteRecord[],
  job: string,
  actor: string,
): number {
  const prefix = ["weir", job, "kvrt", "a", actor, "p"];
  const versions = new Map<string, number>();
  for (const write of writes) {
    if (write.ok !== true) continue;
    for (const [key, bytes] of write.values) {
      if (!hasPrefix(key, prefix)) continue;
      const version = String(key[prefix.length]);
      versions.set(version, (versions.get(version) ?? 0) + bytes);
    }
  }
  return Math.max(0, ...versions.values());
}

function total(writes: readonly WriteRecord[]): number {
  return writes.reduce((sum, w) => sum + w.mutationBytes, 0);
}

type Keyed = { key: number; ts: number };

Deno.test("an actor step stays within Deno KV's commit limits with megabytes of keyed state in one actor", async () => {
  const KEYS = 100;
  const STATE_CHARS = 50 * KIB;
  using kv = await Deno.openKv(":memory:");
  const recorded = recordingKv(kv);
  const clock = new ManualClock(0);
  const sink = new CollectSink<string>();
  // Five polls of 20 new keys; each key keeps 50 KiB of noise, so the one
  // process actor holds 5 MB; its timers at the end of input (at 2 s) read
  // the state back.
  const script: ScriptStep<Keyed>[] = [];
  for (let key = 0; key < KEYS; key++) {
    const at = Math.floor(key / 20) * 100;
    script.push({ at, value: { key, ts: at } });
  }
  script.push({ at: 2_000, end: true });
  const job = () => {
    const env = new StreamEnvironment({
      jobName: "big-state",
      parallelism: 1,
      clock,
      checkpointIntervalMs: 150,
      checkpointStorage: new MemoryStorage(),
    });
    env.fromSource(
      new ScriptedSource(script),
      WatermarkStrategy.forMonotonousTimestamps<Keyed>()
        .withTimestampAssigner((r) => r.ts),
      "keys",
    ).keyBy((r) => r.key).process<string, string>({
      processElement(r, ctx, out) {
        ctx.setState(noise(r.key, STATE_CHARS));
        ctx.registerEventTimeTimer(1_000_000);
        out(`in ${r.key}`);
      },
      onTimer(_at, ctx, out) {
        out(`state ${ctx.key} ${ctx.state?.length} ${digest(ctx.state ?? "")}`);
      },
    }).sinkTo(sink);
    return env;
  };

  // A first worker takes every key in; a second one takes over before the
  // timers fire, so it loads the 5 MB state from the database.
  const first = job().createKvRuntime({
    kv: recorded.kv,
    workerId: "first",
    leaseMs: 1_000,
  });
  const processActor = "big-state/process-1/0";
  await driveKv(first, clock, () => clock.now() >= 600);
  assert.equal(sink.values.filter((v) => v.startsWith("in ")).length, KEYS);
  assert.ok(first.latestCheckpoint !== null, "a checkpoint completed");
  assert.ok(first.ownedActors.includes(processActor));
  clock.set(clock.now() + 1_001);
  const second = job().createKvRuntime({
    kv: recorded.kv,
    workerId: "second",
    leaseMs: 1_000,
  });
  await second.tick();
  assert.ok(second.ownedActors.includes(processActor));
  assert.ok(clock.now() < 2_000, "taken over before the timers fire");
  await driveKv(second, clock);
  assert.equal(second.finished, true);

  const expected: string[] = [];
  for (let key = 0; key < KEYS; key++) {
    expected.push(`in ${key}`);
    expected.push(
      `state ${key} ${STATE_CHARS} ${digest(noise(key, STATE_CHARS))}`,
    );
  }
  assert.deepEqual(sink.values.sort(), expected.sort());

  const max = assertWithinLimits(recorded.writes);
  // The big values went out in parts, packed close to the commit limit.
  assert.ok(max.payloadBytes > 512 * KIB, `${max.payloadBytes} bytes`);
  assert.ok(max.maxValueBytes > 32 * KIB, `${max.maxValueBytes} bytes`);
  // Not vacuous: the whole state was stored as one value, in parts.
  assert.ok(
    largestChunkedValue(recorded.writes, "big-state", processActor) >=
      KEYS * STATE_CHARS,
    "the actor's state was stored whole",
  );
  assert.ok(total(recorded.writes) > 4 * KIB * KIB);
});

Deno.test("an actor step stays within Deno KV's commit limits with megabytes of output in one step", async () => {
  const RECORDS = 600;
  const PAD = 20 * KIB;
  using kv = await Deno.openKv(":memory:");
  const recorded = recordingKv(kv);
  const clock = new ManualClock(0);
  const sink = new CollectSink<string>();
  const env = new StreamEnvironment({
    jobName: "big-batches",
    parallelism: 1,
    clock,
  });
  // Every record at once: the source's first step polls all 600 and, with
  // the chained map, sends 12 MB to the keyed process actor.
  const script: ScriptStep<number>[] = [];
  for (let i = 0; i < RECORDS; i++) script.push({ at: 0, value: i });
  env.fromSource(
    new ScriptedSource(script),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((i) => i),
    "numbers",
  ).map((i) => ({ i, pad: noise(i, PAD) }))
    .keyBy((r) => r.i % 10)
    .process<string>({
      processElement(r, _ctx, out) {
        out(`${r.i} ${r.pad.length} ${digest(r.pad)}`);
      },
    }).sinkTo(sink);

  const runtime = env.createKvRuntime({ kv: recorded.kv, workerId: "w" });
  await driveKv(runtime, clock);
  assert.equal(runtime.finished, true);
  assert.equal(sink.values.length, RECORDS);
  const expected = Array.from(
    { length: RECORDS },
    (_, i) => `${i} ${PAD} ${digest(noise(i, PAD))}`,
  );
  assert.deepEqual(sink.values.sort(), expected.sort());

  const max = assertWithinLimits(recorded.writes);
  // The big values went out in parts, packed close to the commit limit.
  assert.ok(max.payloadBytes > 512 * KIB, `${max.payloadBytes} bytes`);
  assert.ok(max.maxValueBytes > 32 * KIB, `${max.maxValueBytes} bytes`);
  // Not vacuous: one step's output was one log entry of megabytes.
  assert.ok(
    largestChunkedValue(
      recorded.writes,
      "big-batches",
      "big-batches/source-0/0",
    ) >
      RECORDS * PAD / 2,
    "a step sent megabytes at once",
  );
  assert.ok(total(recorded.writes) > RECORDS * PAD);
});
