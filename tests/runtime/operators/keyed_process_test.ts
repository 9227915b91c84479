import assert from "node:assert/strict";
import fc from "fast-check";
import superjson from "superjson";
import {
  type KeyedProcessFunction,
  KeyedProcessOperator,
  type KeyedProcessSnapshot,
} from "../../../src/runtime/operators/keyed_process.ts";
import { OutputTag } from "../../../src/windows/output_tag.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

/** A record: its key and what the function should do with it. */
type Cmd = {
  key: string;
  add?: number;
  timer?: number;
  deleteTimer?: number;
  ptimer?: number;
  clear?: boolean;
};

/**
 * Keeps a running sum per key and registers or deletes the timers a record
 * asks for; a timer emits "key:sum@timer/domain".
 */
const sums: KeyedProcessFunction<Cmd, string, string, number> = {
  processElement(cmd, ctx, out) {
    if (cmd.add !== undefined) {
      ctx.setState((ctx.state ?? 0) + cmd.add);
      out(`${ctx.key}=${ctx.state}`);
    }
    if (cmd.clear) ctx.clearState();
    if (cmd.timer !== undefined) ctx.registerEventTimeTimer(cmd.timer);
    if (cmd.deleteTimer !== undefined) {
      ctx.deleteEventTimeTimer(cmd.deleteTimer);
    }
    if (cmd.ptimer !== undefined) ctx.registerProcessingTimeTimer(cmd.ptimer);
  },
  onTimer(timestamp, ctx, out) {
    const domain = ctx.timeDomain === "event_time" ? "e" : "p";
    out(`${ctx.key}:${ctx.state ?? "-"}@${timestamp}/${domain}`);
  },
};

function operator<IN, OUT, S>(
  fn: KeyedProcessFunction<IN, OUT, string, S>,
  keySelector: (value: IN) => string,
): KeyedProcessOperator<IN, OUT, string, S> {
  return new KeyedProcessOperator(fn, { keySelector });
}

function sumHarness(): OperatorHarness<Cmd, string> {
  return new OperatorHarness(operator(sums, (c: Cmd) => c.key)).open();
}

Deno.test("KeyedProcessOperator keeps one state per key and gives outputs the record's timestamp, one batch per input batch", () => {
  const h = sumHarness();
  h.batch([
    { key: "a", add: 1 },
    { key: "b", add: 10 },
    { key: "a", add: 2 },
  ], [5, 6, 7]);
  h.element({ key: "b", add: 5 }, 8);
  assert.deepEqual(h.batches, [
    ["R(a=1)@5", "R(b=10)@6", "R(a=3)@7"],
    ["R(b=15)@8"],
  ]);
  const snapshot = h.operator.snapshotState() as KeyedProcessSnapshot<
    string,
    number
  >;
  // Grouped by key group for incremental checkpoints: compare as a set.
  assert.deepEqual(sortedByKey(snapshot.keyedState), [["a", 3], ["b", 15]]);
});

Deno.test("KeyedProcessOperator hands out unchanged key groups as the same parts, so checkpoints are incremental", () => {
  const h = sumHarness();
  const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
  h.batch(keys.map((key) => ({ key, add: 1 })), keys.map(() => 1));
  const snapshotParts = () => {
    let handed: readonly (readonly unknown[])[] = [];
    const snapshot = h.operator.snapshotState(1, {
      watermarks: true,
      parts(groups) {
        handed = groups;
        return "placeholder";
      },
    }) as unknown as { keyedState: unknown };
    assert.equal(snapshot.keyedState, "placeholder");
    return handed;
  };
  const first = snapshotParts();
  assert.equal(first.flat().length, 40);
  assert.ok(first.length > 10, `40 keys fall in ${first.length} groups`);
  h.element({ key: "k7", add: 1 }, 2);
  const second = snapshotParts();
  const renewed = second.filter((group, i) => group !== first[i]);
  assert.equal(second.length, first.length);
  assert.equal(renewed.length, 1);
  assert.ok(renewed[0].some((pair) => (pair as [string, number])[0] === "k7"));
  assert.deepEqual(
    renewed[0].find((pair) => (pair as [string, number])[0] === "k7"),
    ["k7", 2],
  );
});

Deno.test("KeyedProcessOperator fires event-time timers at or below the watermark in timestamp order, before forwarding it", () => {
  const h = sumHarness();
  h.batch([
    { key: "a", add: 1, timer: 30 },
    { key: "b", add: 2, timer: 10 },
    { key: "c", add: 3, timer: 20 },
  ], [1, 2, 3]);
  h.take();
  h.watermark(9);
  assert.deepEqual(h.take(), ["W9"]);
  h.watermark(20);
  assert.deepEqual(h.take(), ["R(b:2@10/e)@10", "R(c:3@20/e)@20", "W20"]);
  h.watermark(29).watermark(30);
  assert.deepEqual(h.take(), ["W29", "R(a:1@30/e)@30", "W30"]);
});

Deno.test("KeyedProcessOperator fires timers of one timestamp in registration order", () => {
  const h = sumHarness();
  h.batch([
    { key: "z", timer: 10 },
    { key: "a", timer: 10 },
    { key: "m", timer: 10 },
  ], [1, 1, 1]);
  h.watermark(10);
  assert.deepEqual(h.take(), [
    "R(z:-@10/e)@10",
    "R(a:-@10/e)@10",
    "R(m:-@10/e)@10",
    "W10",
  ]);
});

Deno.test("KeyedProcessOperator stores a (key, timestamp) timer once and keeps the same timestamp of other keys apart", () => {
  const h = sumHarness();
  h.batch([
    { key: "a", timer: 10 },
    { key: "a", timer: 10 },
    { key: "b", timer: 10 },
    { key: "a", timer: 10 },
  ], [1, 2, 3, 4]);
  assert.equal(
    (h.operator as KeyedProcessOperator<Cmd, string, string, number>)
      .numTimers,
    2,
  );
  h.watermark(100);
  assert.deepEqual(h.take(), ["R(a:-@10/e)@10", "R(b:-@10/e)@10", "W100"]);
});

Deno.test("KeyedProcessOperator does not fire a deleted timer, and deleting an absent one is a no-op", () => {
  const h = sumHarness();
  h.batch([
    { key: "a", timer: 10 },
    { key: "b", timer: 10 },
    { key: "a", deleteTimer: 10 },
    { key: "b", deleteTimer: 11 },
    { key: "c", deleteTimer: 10 },
  ], [1, 1, 1, 1, 1]);
  h.watermark(50);
  assert.deepEqual(h.take(), ["R(b:-@10/e)@10", "W50"]);
});

Deno.test("KeyedProcessOperator fires a timer registered in onTimer at or below the watermark in the same pass, before later ones", () => {
  const h = new OperatorHarness(
    operator<[string, number], string, never>({
      processElement([, ts], ctx) {
        ctx.registerEventTimeTimer(ts);
      },
      onTimer(timestamp, ctx, out) {
        out(`${ctx.key}@${timestamp} wm=${ctx.currentWatermark}`);
        // The first timer of "a" re-arms 5 ms earlier, below the watermark
        // and below b's pending timer; the second re-arms beyond it.
        if (ctx.key === "a" && timestamp === 20) {
          ctx.registerEventTimeTimer(15);
        }
        if (ctx.key === "a" && timestamp === 15) {
          ctx.registerEventTimeTimer(100);
        }
      },
    }, (r) => r[0]),
  ).open();
  h.batch([["a", 20], ["b", 18], ["b", 30]], [0, 0, 0]);
  h.watermark(20);
  assert.deepEqual(h.take(), [
    "R(b@18 wm=20)@18",
    "R(a@20 wm=20)@20",
    "R(a@15 wm=20)@15",
    "W20",
  ]);
  h.watermark(100);
  assert.deepEqual(h.take(), [
    "R(b@30 wm=100)@30",
    "R(a@100 wm=100)@100",
    "W100",
  ]);
});

Deno.test("KeyedProcessOperator fires a timer registered at or below the current watermark with the next watermark (Flink's timer service)", () => {
  const h = sumHarness();
  h.watermark(50);
  h.element({ key: "a", timer: 40 }, 60);
  assert.deepEqual(h.take(), ["W50"]);
  h.watermark(51);
  assert.deepEqual(h.take(), ["R(a:-@40/e)@40", "W51"]);
});

Deno.test("KeyedProcessOperator stamps side outputs like main outputs: the record's timestamp, an event timer's, none for a processing timer", () => {
  const tag = new OutputTag<string>("audit");
  const h = new OperatorHarness(
    operator<string, string, never>({
      processElement(key, ctx, out) {
        out(`in:${key}`);
        ctx.output(tag, `side-in:${key}`);
        ctx.registerEventTimeTimer(100);
        ctx.registerProcessingTimeTimer(1_000);
      },
      onTimer(_timestamp, ctx, out) {
        out(`${ctx.timeDomain}:${ctx.key}@${ctx.timestamp}`);
        ctx.output("audit", `side-${ctx.timeDomain}`);
      },
    }, (k) => k),
  ).open();
  h.element("a", 7);
  h.watermark(100);
  h.setProcessingTime(1_000);
  assert.deepEqual(h.take(), [
    "side:audit side-in:a@7",
    "R(in:a)@7",
    "side:audit side-event_time@100",
    "R(event_time:a@100)@100",
    "W100",
    "side:audit side-processing_time@-Infinity",
    "R(processing_time:a@1000)@-Infinity",
  ]);
});

Deno.test("KeyedProcessOperator fires processing-time timers when the clock reaches them, with the current processing time", () => {
  const seen: string[] = [];
  const h = new OperatorHarness(
    operator<[string, number], string, number>({
      processElement([, at], ctx) {
        ctx.setState(at);
        ctx.registerProcessingTimeTimer(at);
        ctx.registerProcessingTimeTimer(at);
      },
      onTimer(timestamp, ctx, out) {
        seen.push(`${ctx.key}@${ctx.currentProcessingTime}`);
        out(`${ctx.key}:${ctx.state}:${timestamp}:${ctx.timeDomain}`);
        // Due already: fires in the same pass.
        if (timestamp === 200) ctx.registerProcessingTimeTimer(240);
      },
    }, (r) => r[0]),
  ).open();
  h.batch([["a", 200], ["b", 100], ["c", 300], ["d", 400]], [1, 2, 3, 4]);
  h.batch([["d", 400]], [5]);
  assert.equal(h.operator.nextProcessingTime(), 100);
  h.setProcessingTime(99);
  assert.deepEqual(h.take(), []);
  h.setProcessingTime(250);
  assert.deepEqual(h.take(), [
    "R(b:100:100:processing_time)@-Infinity",
    "R(a:200:200:processing_time)@-Infinity",
    "R(a:200:240:processing_time)@-Infinity",
  ]);
  assert.deepEqual(seen, ["b@250", "a@250", "a@250"]);
  assert.equal(h.operator.nextProcessingTime(), 300);
  h.setProcessingTime(1_000);
  // d registered its timer twice: it fires once.
  assert.deepEqual(h.take(), [
    "R(c:300:300:processing_time)@-Infinity",
    "R(d:400:400:processing_time)@-Infinity",
  ]);
  assert.equal(h.operator.nextProcessingTime(), Infinity);
});

Deno.test("KeyedProcessOperator fires every event-time timer on the final Infinity watermark but no processing-time timer at the end", () => {
  const h = sumHarness();
  h.batch([
    { key: "a", add: 1, timer: 1_000_000, ptimer: 5 },
    { key: "b", add: 2, timer: 7 },
  ], [1, 2]);
  h.take();
  h.watermark(Infinity).finish();
  assert.deepEqual(h.take(), [
    "R(b:2@7/e)@7",
    "R(a:1@1000000/e)@1000000",
    "WInfinity",
  ]);
});

Deno.test("KeyedProcessOperator clearState() drops the key's state but keeps its timers; setState(undefined) clears too", () => {
  const h = new OperatorHarness(
    operator<Cmd | string, string, number>({
      processElement(value, ctx, out) {
        if (typeof value === "string") {
          ctx.setState(undefined);
          out(`${ctx.key}:${ctx.state}`);
          return;
        }
        sums.processElement(value, ctx, out);
      },
      onTimer: sums.onTimer,
    }, (v) => typeof v === "string" ? v : v.key),
  ).open();
  h.batch([
    { key: "a", add: 4, timer: 10 },
    { key: "a", clear: true },
    { key: "b", add: 1 },
    "b",
  ], [1, 2, 3, 4]);
  h.watermark(10);
  assert.deepEqual(h.take(), [
    "R(a=4)@1",
    "R(b=1)@3",
    "R(b:undefined)@4",
    "R(a:-@10/e)@10",
    "W10",
  ]);
  const op = h.operator as KeyedProcessOperator<
    unknown,
    string,
    string,
    number
  >;
  assert.equal(op.numKeys, 0);
  assert.equal(h.gauges.get("numKeys")!(), 0);
});

Deno.test("KeyedProcessOperator drops a watermark that does not advance and forwards statuses", () => {
  const h = sumHarness();
  h.watermark(5).watermark(5).watermark(3).status("idle").status("active");
  assert.deepEqual(h.take(), ["W5", "idle", "active"]);
});

Deno.test("KeyedProcessOperator shows the record's key, timestamp and the current watermark in processElement", () => {
  const seen: string[] = [];
  const h = new OperatorHarness(
    operator<number, never, never>({
      processElement(value, ctx) {
        seen.push(
          `${ctx.key}|${value}@${ctx.timestamp} wm=${ctx.currentWatermark}`,
        );
      },
    }, (n) => n % 2 === 0 ? "even" : "odd"),
  ).open();
  h.element(1, 10).watermark(10).element(4);
  assert.deepEqual(seen, [
    "odd|1@10 wm=-Infinity",
    "even|4@-Infinity wm=10",
  ]);
});

// The steps of the restore test: records (with timers at shared timestamps,
// so the order of ties matters), watermarks and processing time.
type Step =
  | { records: Cmd[]; at: number }
  | { watermark: number }
  | { time: number };

const STEPS: Step[] = [
  {
    records: [
      { key: "b", add: 1, timer: 20 },
      { key: "a", add: 2 },
      { key: "c", timer: 20, ptimer: 500 },
      { key: "a", timer: 20, ptimer: 400 },
    ],
    at: 5,
  },
  { watermark: 10 },
  { records: [{ key: "d", add: 7, timer: 15 }, { key: "b", add: 1 }], at: 12 },
  // The cut: a snapshot is taken here.
  {
    records: [{ key: "a", add: 3, timer: 20 }, { key: "e", timer: 16 }],
    at: 13,
  },
  { watermark: 18 },
  { time: 450 },
  { records: [{ key: "c", add: 5, clear: true, timer: 30 }], at: 19 },
  { watermark: 25 },
  { time: 600 },
  { watermark: Infinity },
];

function run(h: OperatorHarness<Cmd, string>, steps: Step[]): void {
  for (const step of steps) {
    if ("records" in step) {
      h.batch(step.records, step.records.map(() => step.at));
    } else if ("watermark" in step) h.watermark(step.watermark);
    else h.setProcessingTime(step.time);
  }
}

Deno.test("KeyedProcessOperator restored from a snapshot mid-stream emits what an uninterrupted run emits", () => {
  const whole = sumHarness();
  run(whole, STEPS.slice(0, 3));
  whole.take();
  run(whole, STEPS.slice(3));
  const expected = whole.take();
  assert.ok(expected.length >= 8, `${expected.length} outputs`);

  const before = sumHarness();
  run(before, STEPS.slice(0, 3));
  const snapshot = before.snapshot();
  const after = sumHarness();
  after.operator.restoreState(snapshot);
  assert.deepEqual(after.take(), [], "restoring emits nothing");
  run(after, STEPS.slice(3));
  assert.deepEqual(after.take(), expected);
});

Deno.test("KeyedProcessOperator snapshots state, timers in firing order and the watermark as plain data", () => {
  const h = sumHarness();
  run(h, STEPS.slice(0, 3));
  const snapshot = h.snapshot() as KeyedProcessSnapshot<string, number>;
  assert.deepEqual({
    ...snapshot,
    keyedState: sortedByKey(snapshot.keyedState),
  }, {
    keyedState: [["a", 2], ["b", 2], ["d", 7]],
    eventTimers: [["d", 15], ["b", 20], ["c", 20], ["a", 20]],
    processingTimers: [["a", 400], ["c", 500]],
    currentWatermark: 10,
  });
});

Deno.test("KeyedProcessOperator leaves the watermark out of a replay-mode snapshot but keeps its timers", () => {
  const h = sumHarness();
  h.element({ key: "a", add: 1, timer: 20 }, 5).watermark(10);
  const snapshot = h.operator.snapshotState(1, {
    watermarks: false,
  }) as KeyedProcessSnapshot<string, number>;
  assert.equal(snapshot.currentWatermark, -Infinity);
  assert.deepEqual(snapshot.eventTimers, [["a", 20]]);
  const restored = new KeyedProcessOperator(sums, {
    keySelector: (c: Cmd) => c.key,
  });
  const after = new OperatorHarness(restored).open();
  restored.restoreState(
    superjson.parse(superjson.stringify(snapshot)),
  );
  assert.equal(restored.currentWatermark, -Infinity);
  // Event time is rebuilt from the replayed watermarks: 10 passes again.
  after.watermark(10).watermark(20);
  assert.deepEqual(after.take(), ["W10", "R(a:1@20/e)@20", "W20"]);
});

Deno.test("KeyedProcessOperator rejects a timer timestamp that is not a safe integer, naming 'timestamp', the value and the key", () => {
  const cases: Array<[(ctx: Ctx) => void, string, RegExp]> = [
    [
      (c) => c.registerEventTimeTimer(1.5),
      "RangeError",
      /register event-time timer for key "k" as 'timestamp' must be a safe integer: current value is 1\.5$/,
    ],
    [
      (c) => c.registerEventTimeTimer(Infinity),
      "RangeError",
      /'timestamp'.*Infinity/,
    ],
    [
      (c) => c.deleteEventTimeTimer(NaN),
      "RangeError",
      /delete event-time timer.*'timestamp'.*NaN/,
    ],
    [
      (c) => c.registerProcessingTimeTimer("5" as unknown as number),
      "TypeError",
      /register processing-time timer.*'timestamp'.*"5"/,
    ],
    [
      (c) => c.deleteProcessingTimeTimer(2 ** 53),
      "RangeError",
      /delete processing-time timer.*'timestamp'/,
    ],
  ];
  for (const [call, name, message] of cases) {
    const h = new OperatorHarness(
      operator<string, never, never>({
        processElement(_v, ctx) {
          call(ctx as Ctx);
        },
      }, (k) => k),
    ).open();
    assert.throws(() => h.element("k", 1), { name, message });
  }
});

type Ctx = Parameters<
  KeyedProcessFunction<string, never, string, never>["processElement"]
>[1];

Deno.test("KeyedProcessOperator rejects a bad function or key selector, naming the parameter", () => {
  const keySelector = (s: string) => s;
  assert.throws(
    () => new KeyedProcessOperator(null as never, { keySelector }),
    { name: "TypeError", message: /'fn'.*null/ },
  );
  assert.throws(
    () => new KeyedProcessOperator({} as never, { keySelector }),
    { name: "TypeError", message: /'fn\.processElement'/ },
  );
  assert.throws(
    () =>
      new KeyedProcessOperator(
        { processElement() {}, onTimer: 5 } as never,
        { keySelector },
      ),
    { name: "TypeError", message: /'fn\.onTimer'.*5/ },
  );
  assert.throws(
    () => new KeyedProcessOperator({ processElement() {} }, {} as never),
    { name: "TypeError", message: /'options\.keySelector'/ },
  );
});

Deno.test("KeyedProcessOperator.restoreState() rejects a snapshot of another shape, naming the field", () => {
  const op = new KeyedProcessOperator(sums, { keySelector: (c: Cmd) => c.key });
  const good = {
    keyedState: [],
    eventTimers: [],
    processingTimers: [],
    currentWatermark: 0,
  };
  assert.throws(() => op.restoreState({ currentWatermark: 5 }), {
    name: "TypeError",
    message: /'state\.keyedState' must be an array/,
  });
  assert.throws(
    () => op.restoreState({ ...good, eventTimers: [["a", 1], ["b", NaN]] }),
    { name: "RangeError", message: /'state\.eventTimers\[1\]\[1\]'.*NaN/ },
  );
  assert.throws(
    () => op.restoreState({ ...good, processingTimers: [["a"]] }),
    { name: "TypeError", message: /'state\.processingTimers\[0\]'.*pair/ },
  );
  assert.throws(() => op.restoreState({ ...good, currentWatermark: "x" }), {
    name: "TypeError",
    message: /'state\.currentWatermark'/,
  });
});

// A brute-force model of the timers: pending (key, timestamp) pairs, each
// with the sequence number of its latest registration; the due pair with
// the lowest (timestamp, sequence) fires next, and its reaction runs before
// the next one is chosen.
type Op =
  | { op: "register" | "delete"; key: number; ts: number }
  | { op: "watermark"; ts: number };
type Reaction = { op: "none" } | {
  op: "register" | "delete";
  key: number;
  delta: number;
};

function model(ops: Op[], reactions: Reaction[]): string[] {
  const pending = new Map<string, { key: number; ts: number; seq: number }>();
  let seq = 0;
  let budget = 40;
  let watermark = -Infinity;
  const fired: string[] = [];
  const apply = (op: "register" | "delete", key: number, ts: number) => {
    const id = `${key}@${ts}`;
    if (op === "delete") pending.delete(id);
    else if (!pending.has(id)) pending.set(id, { key, ts, seq: seq++ });
  };
  for (const o of ops) {
    if (o.op !== "watermark") {
      apply(o.op, o.key, o.ts);
      continue;
    }
    if (!(o.ts > watermark)) continue;
    watermark = o.ts;
    for (;;) {
      let next: { key: number; ts: number; seq: number } | undefined;
      for (const p of pending.values()) {
        if (p.ts > watermark) continue;
        if (
          next === undefined || p.ts < next.ts ||
          (p.ts === next.ts && p.seq < next.seq)
        ) next = p;
      }
      if (next === undefined) break;
      pending.delete(`${next.key}@${next.ts}`);
      fired.push(`${next.key}@${next.ts}`);
      const r = reactions[next.key];
      if (r.op !== "none" && budget-- > 0) {
        apply(r.op, r.key, next.ts + r.delta);
      }
    }
    fired.push(`W${watermark}`);
  }
  return fired;
}

function actual(ops: Op[], reactions: Reaction[]): string[] {
  let budget = 40;
  const fired: string[] = [];
  const op = new KeyedProcessOperator<Op, never, number, never>({
    processElement(o, ctx) {
      if (o.op === "register") {
        ctx.registerEventTimeTimer((o as { ts: number }).ts);
      }
      if (o.op === "delete") ctx.deleteEventTimeTimer((o as { ts: number }).ts);
    },
    onTimer(ts, ctx) {
      fired.push(`${ctx.key}@${ts}`);
      const r = reactions[ctx.key];
      if (r.op === "none" || budget-- <= 0) return;
      // Reactions act on another key: re-point the context the way the
      // operator would for that key's record.
      (ctx as { key: number }).key = r.key;
      if (r.op === "register") ctx.registerEventTimeTimer(ts + r.delta);
      else ctx.deleteEventTimeTimer(ts + r.delta);
    },
  }, { keySelector: (o) => ("key" in o ? o.key : -1) });
  const h = new OperatorHarness(op).open();
  for (const o of ops) {
    if (o.op === "watermark") {
      h.watermark(o.ts);
      const wm = h.take().filter((e) => e.startsWith("W"));
      fired.push(...wm);
    } else h.element(o);
  }
  return fired;
}

Deno.test("KeyedProcessOperator fires timers like a brute-force model under random registrations, deletions and reactions in onTimer", () => {
  const key = fc.integer({ min: 0, max: 4 });
  const ts = fc.integer({ min: 0, max: 15 });
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      arbitrary: fc.record({ op: fc.constant("register" as const), key, ts }),
      weight: 6,
    },
    {
      arbitrary: fc.record({ op: fc.constant("delete" as const), key, ts }),
      weight: 3,
    },
    {
      arbitrary: fc.record({ op: fc.constant("watermark" as const), ts }),
      weight: 2,
    },
  );
  const reaction: fc.Arbitrary<Reaction> = fc.oneof(
    fc.constant({ op: "none" as const }),
    fc.record({
      op: fc.constantFrom("register" as const, "delete" as const),
      key,
      delta: fc.integer({ min: -3, max: 3 }),
    }),
  );
  fc.assert(
    fc.property(
      fc.array(op, { maxLength: 80 }),
      fc.array(reaction, { minLength: 5, maxLength: 5 }),
      (ops, reactions) => {
        const steps = [...ops, { op: "watermark" as const, ts: 100 }];
        assert.deepEqual(actual(steps, reactions), model(steps, reactions));
      },
    ),
    { numRuns: 300 },
  );
});

function sortedByKey<S>(pairs: Array<[string, S]>): Array<[string, S]> {
  return [...pairs].sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

// --- a record whose user code throws is set aside -----------------------

/** Sums per key and arms a timer; throws for "boom" after changing state and timers. */
const fragile: KeyedProcessFunction<
  { k: unknown; n: number },
  string,
  string,
  number
> = {
  processElement(value, ctx, out) {
    ctx.setState((ctx.state ?? 0) + value.n);
    ctx.registerEventTimeTimer(100);
    ctx.deleteEventTimeTimer(50);
    out(`${ctx.key}+${value.n}`);
    if (value.n < 0) throw new RangeError("Cannot add a negative amount");
  },
  onTimer(timestamp, ctx, out) {
    if (ctx.key === "t") throw new Error(`Cannot fire for ${ctx.key}`);
    out(`${ctx.key}=${ctx.state}@${timestamp}`);
  },
};

function fragileOperator() {
  return new KeyedProcessOperator(fragile, {
    keySelector: (v) => {
      if (typeof v.k !== "string") throw new TypeError("Cannot key a record");
      return v.k;
    },
  });
}

Deno.test("KeyedProcessOperator sets aside a record whose function throws, undoing its outputs, its state change and its timers", () => {
  const h = guardHarness({ operators: () => [fragileOperator()] });
  h.push([{ k: "a", n: 1 }, { k: "b", n: 2 }], [1, 2]);
  h.push([{ k: "a", n: -5 }, { k: "c", n: -1 }, { k: "a", n: 3 }], [3, 4, 5]);
  assert.deepEqual(h.out, ["a+1@1", "b+2@2", "a+3@5"]);
  const letters = h.letters();
  assert.deepEqual(letters.map((l) => [l.value, l.position]), [
    [{ k: "a", n: -5 }, "channel 0, record 2"],
    [{ k: "c", n: -1 }, "channel 0, record 3"],
  ]);
  const state = h.snapshot().operators[0] as KeyedProcessSnapshot<
    string,
    number
  >;
  assert.deepEqual(state.keyedState.sort(), [["a", 4], ["b", 2]]);
  assert.deepEqual(
    state.eventTimers,
    [["a", 100], ["b", 100]],
    "key c registered no timer",
  );
});

Deno.test("KeyedProcessOperator sets aside a record whose key selector throws", () => {
  const h = guardHarness({ operators: () => [fragileOperator()] });
  h.push([{ k: null, n: 1 }, { k: "a", n: 2 }], [1, 2]);
  assert.deepEqual(h.out, ["a+2@2"]);
  assert.equal(h.letters()[0].error.message, "Cannot key a record");
});

Deno.test("KeyedProcessOperator sets aside a timer whose onTimer throws as { key, timestamp } and fires the others", () => {
  const h = guardHarness({ operators: () => [fragileOperator()] });
  h.push([{ k: "t", n: 1 }, { k: "u", n: 2 }], [1, 2]);
  h.out.length = 0;
  h.watermark(100);
  assert.deepEqual(h.out, ["u=2@100@100"]);
  const [letter] = h.letters();
  assert.deepEqual(letter.value, { key: "t", timestamp: 100 });
  assert.equal(letter.timestamp, 100);
  assert.equal(letter.position, "watermark 100");
});
