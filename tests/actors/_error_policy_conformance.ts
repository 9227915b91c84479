// One suite, two runtimes: no record can kill a job. For each poison record — a
// key its key selector cannot give (null, {}, []), a map that throws on
// it, a key too long for a KV table, a timestamp at either end of the safe
// range — the job runs to its end on the local and on the KV runtime,
// every other record is counted exactly once, and under "dead-letter" the
// record is in the dead-letter log as "dead-letter"; under "fail" the job
// restarted once (the local runtime: the whole job from its latest
// checkpoint; the KV runtime: the failing actor from its last committed
// step) and the record, failing again, is in the log as "quarantined".

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { KvTableSink, readTable } from "../../src/connectors/sinks/kv_table.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { DataStream } from "../../src/api/data_stream.ts";
import type { DeadLetter, ErrorPolicy } from "../../src/runtime/dead_letter.ts";
import type { ActorRuntime } from "../../src/actors/actor_runtime.ts";
import { ExternalTable, twoPhaseSink } from "../_support/two_phase_sink.ts";

/** What a run of a job left behind. */
export interface PolicyRun {
  /** Restarts after a record failed under "fail". */
  readonly restarts: number;
  /** The job's dead-letter log, oldest first. */
  readonly letters: DeadLetter[];
}

/**
 * A runtime as the suite reads it after a run: the contract both runtimes
 * implement (a `LocalJob`, restarts included, or a `KvRuntime`), with the
 * restarts both count.
 */
export type PolicyRuntime = ActorRuntime & { readonly restarts: number };

/** What `runtime` left behind, read through the contract. */
export async function policyRun(runtime: PolicyRuntime): Promise<PolicyRun> {
  return {
    restarts: runtime.restarts,
    letters: await runtime.deadLetters.list(),
  };
}

/** A runtime as the suite drives it. */
export interface PolicyRuntimeUnderTest {
  /** Its name, in test names. */
  readonly name: string;
  /**
   * Runs the job to its end (restarting it as the runtime does under
   * "fail") on `kv` (the job's KV tables live there too), and reads its
   * dead-letter log. Fails, rather than hangs, if the job does not end.
   */
  run(
    env: StreamEnvironment,
    clock: ManualClock,
    kv: Deno.Kv,
  ): Promise<PolicyRun>;
}

/** A record of the suite's jobs. */
interface Rec {
  readonly id: number;
  readonly key: unknown;
  readonly ts: number;
}

const COUNT = 40;
const POISON = 17;
const MAX = Number.MAX_SAFE_INTEGER;
const MIN = Number.MIN_SAFE_INTEGER;

/** 40 records over 2 partitions, 10 ms apart, three keys; one changed. */
function records(poison: Partial<Rec>, index: number): Rec[] {
  return Array.from({ length: COUNT }, (_, i) => ({
    id: i,
    key: `k${i % 3}`,
    ts: 1_000 + i * 10,
    ...(i === index ? poison : {}),
  }));
}

/** What one poison case builds and expects. */
interface PoisonCase {
  readonly name: string;
  /** Builds the job on `env`, reading `source`; returns how to read what it counted. */
  build(
    source: DataStream<Rec>,
    kv: Deno.Kv,
  ): () => Promise<string[]>;
  readonly poison: Partial<Rec>;
  /**
   * Which record is changed.
   * @default {POISON}
   */
  readonly index?: number;
  /** Whether the record is set aside (not: processed like the others). */
  readonly setAside: boolean;
  /** Why the case may fail before another helper's branch is merged. */
  readonly pending?: string;
}

/** Each record's id, once per committed transaction (exactly once). */
function idsTo(stream: DataStream<Rec>): () => Promise<string[]> {
  const table = new ExternalTable<number>();
  stream.map((r) => r.id).sinkTo(twoPhaseSink(table));
  return () => Promise.resolve(table.rows());
}

function keyedIds(key: unknown): PoisonCase {
  return {
    name: `a key selector returning ${JSON.stringify(key)}`,
    poison: { key },
    setAside: true,
    build: (source) =>
      idsTo(
        source.keyBy((r) => r.key as string).process<Rec, undefined>({
          processElement(r, _ctx, out) {
            out(r);
          },
        }),
      ),
  };
}

const CASES: readonly PoisonCase[] = [
  keyedIds(null),
  keyedIds({}),
  keyedIds([]),
  {
    name: "a map that throws on one record",
    poison: {},
    setAside: true,
    build: (source) =>
      idsTo(
        source.map((r) => {
          if (r.id === POISON) throw new TypeError(`cannot map ${r.id}`);
          return r;
        }).keyBy((r) => r.key as string).process<Rec, undefined>({
          processElement(r, _ctx, out) {
            out(r);
          },
        }),
      ),
  },
  {
    name: "a 2,100-character key reaching a KvTableSink",
    poison: { key: "x".repeat(2_100) },
    setAside: true,
    build(source, kv) {
      source.sinkTo(
        new KvTableSink<Rec>(kv, "poison-rows", {
          key: (r) => `${r.key}/${r.id}`,
        }),
      );
      return async () =>
        [...(await readTable<Rec>(kv, "poison-rows")).values()]
          .map((r) => JSON.stringify(r.id)).sort();
    },
  },
  ...[MAX, MIN].map((ts): PoisonCase => ({
    // With the saturating event-time arithmetic an extreme timestamp is a
    // valid one: the record is counted in its window, nothing is set aside.
    // At MAX it comes last (every record after it would be late, as event
    // time says); at MIN before the first watermark (else it is late).
    name: `a timestamp of ${ts}`,
    poison: { ts },
    index: ts === MAX ? COUNT - 1 : POISON,
    setAside: false,
    ...(ts === MAX
      ? { pending: "saturating event-time arithmetic (i16-saturate)" }
      : {}),
    build(source) {
      const table = new ExternalTable<number>();
      source.keyBy((r) => r.key as string)
        .window(TumblingEventTimeWindows.of(1_000))
        .process<number>((_key, _ctx, elements, out) => {
          for (const r of elements) out(r.id);
        })
        .sinkTo(twoPhaseSink(table));
      return () => Promise.resolve(table.rows());
    },
  })),
];

function job(
  clock: ManualClock,
  policy: ErrorPolicy,
  poison: PoisonCase,
  kv: Deno.Kv,
): { env: StreamEnvironment; counted: () => Promise<string[]> } {
  const env = new StreamEnvironment({
    jobName: "poison",
    parallelism: 2,
    clock,
    checkpointIntervalMs: 100,
    errorPolicy: policy,
  });
  const script = records(poison.poison, poison.index ?? POISON).map((
    value,
    i,
  ) => ({
    at: i * 10,
    partition: i % 2,
    value,
  }));
  const source = env.fromSource(
    new ScriptedSource(script, { partitions: 2 }),
    WatermarkStrategy.forBoundedOutOfOrderness<Rec>(50)
      .withTimestampAssigner((r) => r.ts),
    "records",
  );
  return { env, counted: poison.build(source, kv) };
}

/**
 * Registers the suite for one runtime.
 *
 * @param runtime The runtime under test.
 */
export function errorPolicyConformance(runtime: PolicyRuntimeUnderTest): void {
  for (const policy of ["dead-letter", "fail"] as const) {
    Deno.test(`${runtime.name} runtime, errorPolicy "${policy}": a record that storage cannot encode (a getter that throws) is set aside with a description of it, and the job ends`, async () => {
      using kv = await Deno.openKv(":memory:");
      const clock = new ManualClock(0);
      const poison: PoisonCase = {
        name: "a record whose getter throws",
        poison: {},
        setAside: true,
        build: (source) =>
          idsTo(
            source.map((r): Rec =>
              r.id === POISON
                ? {
                  id: r.id,
                  ts: r.ts,
                  get key(): never {
                    throw new TypeError(`Cannot read the key of ${r.id}`);
                  },
                }
                : r
            ).keyBy((r) => r.key as string).process<Rec, undefined>({
              processElement(r, _ctx, out) {
                out(r);
              },
            }),
          ),
      };
      const { env, counted } = job(clock, policy, poison, kv);
      const error = console.error;
      console.error = () => {};
      let run: PolicyRun;
      try {
        run = await runtime.run(env, clock, kv);
      } finally {
        console.error = error;
      }
      const others = Array.from({ length: COUNT }, (_, i) => i)
        .filter((i) => i !== POISON).map((i) => JSON.stringify(i)).sort();
      assert.deepEqual(await counted(), others);
      assert.deepEqual(run.letters.map((l) => [l.value, l.error.message]), [[
        `<unencodable: TypeError: Cannot read the key of ${POISON}> [object Object]`,
        `Cannot read the key of ${POISON}`,
      ]]);
    });
  }

  Deno.test(`${runtime.name} runtime, errorPolicy "fail": a record whose value changes from run to run (a map adding a nonce) is quarantined when it fails twice at the same operator subtask, and the job ends`, async () => {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    // Each run gives the record another value: its strike never matches.
    let nonce = 0;
    const poison: PoisonCase = {
      name: "a record stamped with a nonce",
      poison: {},
      setAside: true,
      build: (source) =>
        idsTo(
          source.map((r) => ({ ...r, nonce: nonce++ }))
            .keyBy((r) => (r.id === POISON ? null : r.key) as string)
            .process<Rec, undefined>({
              processElement(r, _ctx, out) {
                out(r);
              },
            }),
        ),
    };
    const { env, counted } = job(clock, "fail", poison, kv);
    const error = console.error;
    console.error = () => {};
    let run: PolicyRun;
    try {
      run = await runtime.run(env, clock, kv);
    } finally {
      console.error = error;
    }
    const others = Array.from({ length: COUNT }, (_, i) => i)
      .filter((i) => i !== POISON).map((i) => JSON.stringify(i)).sort();
    assert.deepEqual(await counted(), others);
    // Failed, failed again unrecognised (its site is quarantined), set aside.
    assert.equal(run.restarts, 2);
    assert.deepEqual(
      run.letters.map((l) => [(l.value as Rec).id, l.reason]),
      [[POISON, "quarantined"]],
    );
  });

  for (const poison of CASES) {
    for (const policy of ["dead-letter", "fail"] as const) {
      const pending = poison.pending === undefined
        ? ""
        : ` [passes once ${poison.pending} is merged]`;
      Deno.test(`${runtime.name} runtime, errorPolicy "${policy}": ${poison.name} does not stop the job, the rest is counted once${pending}`, async () => {
        using kv = await Deno.openKv(":memory:");
        const clock = new ManualClock(0);
        const { env, counted } = job(clock, policy, poison, kv);
        const lines: string[] = [];
        const error = console.error;
        console.error = (line: string) => void lines.push(line);
        let run: PolicyRun;
        try {
          run = await runtime.run(env, clock, kv);
        } finally {
          console.error = error;
        }
        const others = Array.from({ length: COUNT }, (_, i) => i)
          .filter((i) => !poison.setAside || i !== POISON)
          .map((i) => JSON.stringify(i)).sort();
        assert.deepEqual(await counted(), others);
        if (!poison.setAside) {
          assert.deepEqual(run.letters, []);
          assert.equal(run.restarts, 0);
          return;
        }
        assert.equal(run.letters.length, 1, JSON.stringify(run.letters));
        const [letter] = run.letters;
        assert.equal((letter.value as Rec).id, POISON);
        assert.equal(letter.timestamp, 1_000 + POISON * 10);
        assert.equal(
          letter.reason,
          policy === "dead-letter" ? "dead-letter" : "quarantined",
        );
        assert.equal(run.restarts, policy === "fail" ? 1 : 0);
        // Said loudly, once, with where to read it back.
        const said = lines.filter((l) => l.includes(letter.position));
        assert.ok(
          said.some((l) =>
            /^weir: (set aside|quarantined) a record/.test(l) &&
            l.includes("GET /jobs/poison/dead-letters")
          ),
          lines.join("\n"),
        );
      });
    }
  }
}
