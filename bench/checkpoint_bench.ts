// Checkpoints on the local Deno KV file: how long a checkpoint of ~1 MB and
// ~10 MB of window state takes (trigger to saved), how long a restore takes
// (find the latest checkpoint, then build the runtime from it), and the
// throughput of the keyed tumbling count job of runtime_bench.ts with a
// checkpoint every second against none.
//
//   deno bench --allow-read --allow-write --allow-env bench/checkpoint_bench.ts
//   deno run --allow-read --allow-write --allow-env bench/checkpoint_bench.ts
//
// `deno bench` times single checkpoints, restores and job runs. `deno run`
// prints the report: checkpoint p50/p99 over CHECKPOINTS checkpoints per
// size and share of keys changed between checkpoints (incremental
// checkpoints re-encode and rewrite only the changed key groups), with the time split into snapshot (barrier, operator snapshots and
// their encoding: V8 serialisation, then deflate when it pays) and save (KV
// reads and writes), restore times, and the throughput ratio. Issue
// targets: p99 checkpoint under 100 ms at 10 MB, restore under 1 s,
// throughput with checkpoints at least 80% of without.

import superjson from "superjson";
import { encodedSnapshots } from "../src/actors/_encoded_checkpoint.ts";
import {
  countingSink,
  type Event,
  EVENTS,
  events,
  results,
  strategy,
  WINDOW_MS,
} from "./_keyed_count.ts";
import {
  type AggregateFunction,
  KvStorage,
  ManualClock,
  type Sink,
  type Source,
  type SourceBatch,
  type SourceReader,
  StreamEnvironment,
  SystemClock,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../src/mod.ts";
import type { ActorStorage, LocalRuntime } from "../src/actors/mod.ts";

// ---------------------------------------------------------------------------
// State size: records of many keys buffered by a process window so long that
// it never fires while we measure; the source stays open so that the job
// never finishes and checkpoints can still be taken.

type StateRecord = { key: number; ts: number; payload: string };

/** A name, and how many records make that much superjson snapshot. */
interface StateSize {
  readonly label: string;
  readonly records: number;
}

const STATE_SIZES: readonly StateSize[] = [
  { label: "1 MB", records: 11_000 },
  { label: "10 MB", records: 110_000 },
];
const STATE_KEYS = 1_000;
const STATE_WINDOW_MS = 86_400_000;
const STATE_BASE_TS = 1_700_006_400_000; // a day boundary: one window per key
const CHECKPOINTS = 30;
const WARMUP_CHECKPOINTS = 3;
const RESTORES = 5;

function stateRecords(count: number): StateRecord[] {
  const records: StateRecord[] = [];
  let seed = 11;
  for (let i = 0; i < count; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    records.push({
      key: i % STATE_KEYS,
      ts: STATE_BASE_TS + i,
      // 48 characters that differ per record, like an id or a short text.
      payload: `${seed.toString(36)}-${i}-`.padEnd(48, "abcdefghij"),
    });
  }
  return records;
}

/**
 * Serves its records once, and those appended later, and stays open: the
 * job never finishes.
 */
class HeldOpenSource<T> implements Source<T> {
  readonly name = "held-open";
  readonly #records: T[];

  constructor(records: readonly T[]) {
    this.#records = [...records];
  }

  /** Serves `records` after the others. */
  append(records: readonly T[]): void {
    this.#records.push(...records);
  }

  createReader(): SourceReader<T> {
    const records = this.#records;
    let position = 0;
    return {
      partitions: ["held-open-0"],
      finished: false,
      poll(_now: number, maxRecords: number): SourceBatch<T> | null {
        if (position >= records.length) return null;
        const values = records.slice(position, position + maxRecords);
        position += values.length;
        return {
          partition: 0,
          values,
          timestamps: new Array<number>(values.length).fill(-Infinity),
        };
      },
      nextAvailableAt(now: number): number {
        return position < records.length ? now : Infinity;
      },
      snapshotState(): unknown {
        return { position };
      },
      restoreState(state: unknown): void {
        position = (state as { position: number }).position;
      },
    };
  }
}

const discard: Sink<unknown> = {
  name: "discard",
  createWriter() {
    return { write() {} };
  },
};

/**
 * Keeps the newest `cap` records of each window: a record for a key changes
 * its state without growing it, so every checkpoint of a run sees the same
 * amount of state.
 */
function newestRecords(
  cap: number,
): AggregateFunction<StateRecord, StateRecord[], number> {
  return {
    createAccumulator: () => [],
    add(record, kept) {
      kept.push(record);
      if (kept.length > cap) kept.shift();
      return kept;
    },
    getResult: (kept) => kept.length,
    merge: (a, b) => [...a, ...b].slice(-cap),
  };
}

/** The job whose window state is `records`, checkpointing to `storage`. */
function stateJob(
  jobName: string,
  records: number,
  source: HeldOpenSource<StateRecord>,
  storage: ActorStorage,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName,
    clock: new ManualClock(),
    autoWatermarkIntervalMs: 0,
    checkpointStorage: storage,
  });
  env.fromSource(
    source,
    WatermarkStrategy.noWatermarks<StateRecord>().withTimestampAssigner((r) =>
      r.ts
    ),
    "records",
  )
    .keyBy((r) => r.key)
    .window(TumblingEventTimeWindows.of(STATE_WINDOW_MS))
    .aggregate(newestRecords(Math.ceil(records / STATE_KEYS)))
    .sinkTo(discard);
  return env;
}

/** A running state job, its window state read in, and its storage. */
interface StateFixture {
  readonly size: StateSize;
  readonly jobName: string;
  readonly records: readonly StateRecord[];
  readonly source: HeldOpenSource<StateRecord>;
  readonly runtime: LocalRuntime;
  /** The superjson length of one checkpoint's subtask snapshots, in bytes. */
  readonly snapshotBytes: number;
  /** The bytes stored for them (after compression, if any). */
  readonly storedBytes: number;
}

async function stateFixture(
  kv: Deno.Kv,
  size: StateSize,
): Promise<StateFixture> {
  const jobName = `state-${size.records}`;
  const records = stateRecords(size.records);
  const source = new HeldOpenSource(records);
  const env = stateJob(
    jobName,
    size.records,
    source,
    checkpointStorage(kv, jobName),
  );
  const runtime = env.createRuntime();
  runtime.runUntilIdle();
  // The first checkpoint also measures the state.
  await checkpointOnce(runtime);
  const checkpoint = runtime.latestCheckpoint!;
  // The first checkpoint is a full one: every part is new.
  const storedBytes = Object.values(encodedSnapshots(checkpoint) ?? {})
    .flatMap((encoded) => [encoded, ...encoded.parts])
    .reduce((sum, encoded) => sum + encoded.bytes.length, 0);
  const snapshotBytes = new TextEncoder().encode(
    superjson.stringify(checkpoint.subtasks),
  ).length;
  return {
    size,
    jobName,
    records,
    source,
    runtime,
    snapshotBytes,
    storedBytes,
  };
}

function checkpointStorage(kv: Deno.Kv, jobName: string): KvStorage {
  return new KvStorage(kv, ["weir", jobName, "checkpoints"]);
}

/** One checkpoint's time, split at the end of the snapshots. */
interface CheckpointTiming {
  readonly totalMs: number;
  readonly snapshotMs: number;
  readonly saveMs: number;
}

/**
 * Takes one checkpoint: trigger, run until the barrier has passed every
 * subtask (each snapshots and the runtime copies it), then save it.
 */
async function checkpointOnce(
  runtime: LocalRuntime,
): Promise<CheckpointTiming> {
  const start = performance.now();
  const id = runtime.triggerCheckpoint();
  runtime.runUntilIdle();
  const snapshotted = performance.now();
  await runtime.flushCheckpoints();
  const end = performance.now();
  if (id === null || runtime.latestCheckpoint?.id !== id) {
    throw new Error(
      `Cannot measure a checkpoint as it must complete: triggered ${id}, latest saved is ${runtime.latestCheckpoint?.id}`,
    );
  }
  return {
    totalMs: end - start,
    snapshotMs: snapshotted - start,
    saveMs: end - snapshotted,
  };
}

/** One restore's time: reading the checkpoint, then building the runtime. */
interface RestoreTiming {
  readonly totalMs: number;
  readonly readMs: number;
  readonly createMs: number;
}

/** Restores the fixture's job from its latest checkpoint, as a restart would. */
async function restoreOnce(
  kv: Deno.Kv,
  fixture: StateFixture,
): Promise<RestoreTiming> {
  const env = stateJob(
    fixture.jobName,
    fixture.size.records,
    new HeldOpenSource(fixture.records),
    checkpointStorage(kv, fixture.jobName),
  );
  const start = performance.now();
  const checkpoint = await env.findCheckpoint();
  const read = performance.now();
  if (checkpoint === null) {
    throw new Error(
      `Cannot measure a restore as job '${fixture.jobName}' must have a checkpoint: current value is null`,
    );
  }
  env.createRuntime(checkpoint);
  const end = performance.now();
  return { totalMs: end - start, readMs: read - start, createMs: end - read };
}

// ---------------------------------------------------------------------------
// Throughput: runtime_bench.ts's keyed tumbling count job (its 1M events,
// generator and aggregate), replayed PASSES times with event time shifted by
// one pass per replay, because one pass runs in well under a second: a
// checkpoint every second would never happen. Both arms store checkpoints in
// the KV file; only the interval differs. The report also prints when each
// checkpoint became visible: `run()` saves completed checkpoints only when
// `runUntilIdle()` returns, which for a source that always has input is the
// end of the input.

const PASS_SPAN_MS = EVENTS / 10; // 10 events per millisecond of event time
const PASSES = 15;
const CHECKPOINT_INTERVAL_MS = 1_000;
const THROUGHPUT_RUNS = 5;

/** The events, PASSES times, each pass PASS_SPAN_MS later in event time. */
class ReplaySource implements Source<Event> {
  readonly name = "replay";

  createReader(): SourceReader<Event> {
    const total = EVENTS * PASSES;
    let position = 0;
    return {
      partitions: ["replay-0"],
      get finished() {
        return position >= total;
      },
      poll(_now: number, maxRecords: number): SourceBatch<Event> | null {
        if (position >= total) return null;
        const from = position % EVENTS;
        const shift = Math.floor(position / EVENTS) * PASS_SPAN_MS;
        const count = Math.min(maxRecords, EVENTS - from);
        const values = new Array<Event>(count);
        for (let i = 0; i < count; i++) {
          const e = events[from + i];
          values[i] = { key: e.key, ts: e.ts + shift };
        }
        position += count;
        return {
          partition: 0,
          values,
          timestamps: new Array<number>(count).fill(-Infinity),
        };
      },
      nextAvailableAt(now: number): number {
        return position < total ? now : Infinity;
      },
      snapshotState(): unknown {
        return { position };
      },
      restoreState(state: unknown): void {
        position = (state as { position: number }).position;
      },
    };
  }
}

/**
 * Forwards to a storage and records when each checkpoint became visible and
 * how long the calls took in all (the store makes them one at a time).
 */
class TimedStorage implements ActorStorage {
  readonly #inner: ActorStorage;
  readonly #start = performance.now();
  /** Milliseconds since creation at which each checkpoint commit ended. */
  readonly saves: number[] = [];
  /** Milliseconds spent in calls, in all. */
  busyMs = 0;

  constructor(inner: ActorStorage) {
    this.#inner = inner;
  }

  get: ActorStorage["get"] = (key) => this.#timed(this.#inner.get(key));
  getMany: ActorStorage["getMany"] = (keys) =>
    this.#timed(this.#inner.getMany(keys));
  put: ActorStorage["put"] = (key, value) =>
    this.#timed(this.#inner.put(key, value));
  delete: ActorStorage["delete"] = (key) =>
    this.#timed(this.#inner.delete(key));
  list: ActorStorage["list"] = (prefix, options) =>
    this.#timed(this.#inner.list(prefix, options));

  async atomic(...args: Parameters<ActorStorage["atomic"]>): Promise<void> {
    await this.#timed(this.#inner.atomic(...args));
    // The commit that makes a checkpoint visible writes the "latest" pointer.
    if (args[0].some((op) => op.type === "put" && op.key[0] === "latest")) {
      this.saves.push(performance.now() - this.#start);
    }
  }

  async #timed<T>(call: Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await call;
    } finally {
      this.busyMs += performance.now() - start;
    }
  }
}

/** One run of the throughput job. */
interface ThroughputRun {
  readonly totalMs: number;
  /** When each checkpoint became visible, in ms after the job was built. */
  readonly saves: readonly number[];
  /** Time spent saving checkpoints, in ms. */
  readonly storageMs: number;
}

let throughputRun = 0;

/** Runs the job once to the end. */
async function runThroughputJob(
  kv: Deno.Kv,
  checkpointIntervalMs: number,
): Promise<ThroughputRun> {
  // A fresh prefix per run: checkpoint ids start at 1 again.
  const jobName = `throughput-${++throughputRun}`;
  const start = performance.now();
  const storage = new TimedStorage(checkpointStorage(kv, jobName));
  const env = new StreamEnvironment({
    jobName,
    clock: new SystemClock(),
    autoWatermarkIntervalMs: 0,
    checkpointIntervalMs,
    checkpointStorage: storage,
  });
  env.fromSource(new ReplaySource(), strategy(), "events")
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(WINDOW_MS))
    .aggregate({
      createAccumulator: () => 0,
      add: (_e, n) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    })
    .sinkTo(countingSink);
  await env.execute({ restore: "none" });
  return {
    totalMs: performance.now() - start,
    saves: storage.saves,
    storageMs: storage.busyMs,
  };
}

// ---------------------------------------------------------------------------
// One KV file for everything, removed at exit.

let kvFile: { path: string; kv: Deno.Kv } | null = null;

async function openKvFile(): Promise<Deno.Kv> {
  if (kvFile === null) {
    const path = await Deno.makeTempFile({ suffix: ".sqlite" });
    kvFile = { path, kv: await Deno.openKv(path) };
  }
  return kvFile.kv;
}

function removeKvFile(): void {
  if (kvFile === null) return;
  kvFile.kv.close();
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    try {
      Deno.removeSync(kvFile.path + suffix);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  kvFile = null;
}

addEventListener("unload", () => {
  removeKvFile();
  if (results.sum === 42) console.log(results.sum);
});

// ---------------------------------------------------------------------------
// `deno bench`: each fixture is built once, outside the timed part.

const fixtures = new Map<string, Promise<StateFixture>>();

function fixture(size: StateSize): Promise<StateFixture> {
  let found = fixtures.get(size.label);
  if (found === undefined) {
    found = openKvFile().then((kv) => stateFixture(kv, size));
    fixtures.set(size.label, found);
  }
  return found;
}

let benchChanges = 0;
for (const size of STATE_SIZES) {
  Deno.bench(`checkpoint ${size.label} state, 1% of keys changed`, {
    group: "checkpoint to the KV file",
    n: 20,
    warmup: 2,
  }, async (b) => {
    const { runtime, source } = await fixture(size);
    source.append(changeRecords(0.01, size.records + ++benchChanges));
    runtime.runUntilIdle();
    b.start();
    await checkpointOnce(runtime);
    b.end();
  });
  Deno.bench(`restore ${size.label} state from the KV file`, {
    group: "restore from the KV file",
    n: 5,
    warmup: 1,
  }, async (b) => {
    const kv = await openKvFile();
    const found = await fixture(size);
    b.start();
    await restoreOnce(kv, found);
    b.end();
  });
}

Deno.bench(`keyed tumbling count, ${PASSES}M events, no checkpoints`, {
  group: "keyed tumbling count job with KV checkpoints",
  baseline: true,
  n: 3,
  warmup: 1,
}, async () => {
  await runThroughputJob(await openKvFile(), 0);
});

Deno.bench(
  `keyed tumbling count, ${PASSES}M events, checkpoint every ${CHECKPOINT_INTERVAL_MS} ms`,
  {
    group: "keyed tumbling count job with KV checkpoints",
    n: 3,
    warmup: 1,
  },
  async () => {
    await runThroughputJob(await openKvFile(), CHECKPOINT_INTERVAL_MS);
  },
);

// ---------------------------------------------------------------------------
// `deno run`: the report.

/**
 * How much of the state changes between two checkpoints: records for this
 * share of the keys (none, some, all). Checkpoints are incremental: only the
 * key groups (128) holding a changed key are encoded and written again, so
 * with every key changed each checkpoint is a full one.
 */
const CHANGED_KEY_SHARES = [0, 0.01, 0.1, 1];
let changeOffset = 0;

/** One record for each of `share` of the keys, different keys each time. */
function changeRecords(share: number, at: number): StateRecord[] {
  const count = Math.round(share * STATE_KEYS);
  changeOffset = (changeOffset + 389) % STATE_KEYS;
  const records: StateRecord[] = [];
  for (let i = 0; i < count; i++) {
    // 7919 is prime, so coprime with the key count: `count` distinct keys.
    const key = (changeOffset + i * 7_919) % STATE_KEYS;
    records.push({
      key,
      ts: STATE_BASE_TS + at,
      payload: `changed-${at}-${key}`.padEnd(48, "klmnopqrst"),
    });
  }
  return records;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function ms(value: number): string {
  return value.toFixed(1);
}

async function report(): Promise<void> {
  const kv = await openKvFile();
  const checkpointRows: Record<string, Record<string, string>> = {};
  const restoreRows: Record<string, Record<string, string>> = {};
  for (const size of STATE_SIZES) {
    const found = await fixture(size);
    for (const share of CHANGED_KEY_SHARES) {
      const timings: CheckpointTiming[] = [];
      for (let i = 0; i < WARMUP_CHECKPOINTS + CHECKPOINTS; i++) {
        found.source.append(changeRecords(share, size.records + i));
        found.runtime.runUntilIdle();
        const timing = await checkpointOnce(found.runtime);
        if (i >= WARMUP_CHECKPOINTS) timings.push(timing);
      }
      const sorted = (pick: (t: CheckpointTiming) => number) =>
        timings.map(pick).sort((a, b) => a - b);
      const total = sorted((t) => t.totalMs);
      const snapshot = sorted((t) => t.snapshotMs);
      const save = sorted((t) => t.saveMs);
      checkpointRows[`${size.label}, ${share * 100}% of keys changed`] = {
        "records": String(size.records),
        "snapshot MB": (found.snapshotBytes / 1e6).toFixed(2),
        "stored MB": (found.storedBytes / 1e6).toFixed(2),
        "p50 ms": ms(percentile(total, 0.5)),
        "p99 ms": ms(percentile(total, 0.99)),
        "max ms": ms(total.at(-1)!),
        "snapshot p50 ms": ms(percentile(snapshot, 0.5)),
        "save p50 ms": ms(percentile(save, 0.5)),
      };
    }
    const restores: RestoreTiming[] = [];
    for (let i = 0; i < RESTORES; i++) {
      restores.push(await restoreOnce(kv, found));
    }
    const restoreTotal = restores.map((r) => r.totalMs).sort((a, b) => a - b);
    restoreRows[size.label] = {
      "p50 ms": ms(percentile(restoreTotal, 0.5)),
      "max ms": ms(restoreTotal.at(-1)!),
      "read p50 ms": ms(
        percentile(restores.map((r) => r.readMs).sort((a, b) => a - b), 0.5),
      ),
      "create p50 ms": ms(
        percentile(restores.map((r) => r.createMs).sort((a, b) => a - b), 0.5),
      ),
    };
  }
  console.log(
    `Checkpoint: trigger to saved on the KV file, ${CHECKPOINTS} checkpoints per row; between two, records for the share of the ${STATE_KEYS} keys shown (incremental: only changed key groups are written again)`,
  );
  console.table(checkpointRows);
  console.log(
    `Restore: findCheckpoint() + createRuntime(), ${RESTORES} restores per size`,
  );
  console.table(restoreRows);

  // Alternate the arms so that drift in the machine's load hits both.
  const without: ThroughputRun[] = [];
  const withCheckpoints: ThroughputRun[] = [];
  await runThroughputJob(kv, 0); // warm-up
  for (let i = 0; i < THROUGHPUT_RUNS; i++) {
    without.push(await runThroughputJob(kv, 0));
    withCheckpoints.push(await runThroughputJob(kv, CHECKPOINT_INTERVAL_MS));
  }
  const rates = (runs: ThroughputRun[]) =>
    runs.map((r) => EVENTS * PASSES / (r.totalMs / 1_000)).sort((a, b) =>
      b - a
    );
  const row = (runs: ThroughputRun[]) => ({
    "best events/s": Math.round(rates(runs)[0]),
    "median events/s": Math.round(percentile(rates(runs), 0.5)),
    "runs ms": runs.map((r) => ms(r.totalMs)).join(" "),
    "checkpoints/run": runs.map((r) => r.saves.length).join(" "),
    "saving ms/run": runs.map((r) => ms(r.storageMs)).join(" "),
  });
  console.log(
    `Throughput: keyed tumbling count job, ${PASSES}M events, SystemClock, ${THROUGHPUT_RUNS} runs per arm`,
  );
  console.table({
    "no checkpoints": row(without),
    [`every ${CHECKPOINT_INTERVAL_MS} ms`]: row(withCheckpoints),
  });
  const best = rates(withCheckpoints)[0] / rates(without)[0];
  const median = percentile(rates(withCheckpoints), 0.5) /
    percentile(rates(without), 0.5);
  console.log(
    `ratio with/without: best ${(best * 100).toFixed(1)}%, median ${
      (median * 100).toFixed(1)
    }%`,
  );
  console.log(
    `checkpoints visible at (ms after start / run ms): ${
      withCheckpoints.map((r) =>
        `[${r.saves.map((t) => t.toFixed(0)).join(", ")} / ${
          r.totalMs.toFixed(0)
        }]`
      ).join(" ")
    }`,
  );
}

if (import.meta.main) {
  try {
    await report();
  } finally {
    removeKvFile();
  }
}
