import assert from "node:assert/strict";
import {
  keyGroupOf,
  subtaskForKeyGroup,
} from "../../src/runtime/key_groups.ts";
import { FilterOperator } from "../../src/runtime/operators/filter.ts";
import { MapOperator } from "../../src/runtime/operators/map.ts";
import { PassThroughOperator } from "../../src/runtime/pass_through.ts";
import {
  broadcastPartitioner,
  forwardPartitioner,
  hashPartitioner,
  rebalancePartitioner,
} from "../../src/runtime/partitioner.ts";
import {
  END,
  recordBatch,
  type StreamElement,
} from "../../src/runtime/stream_element.ts";
import type {
  OperatorContext,
  OperatorOutput,
  StreamOperator,
} from "../../src/runtime/stream_operator.ts";
import {
  Subtask,
  type SubtaskEdge,
  type SubtaskOptions,
} from "../../src/runtime/subtask.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import type { WatermarkStatus } from "../../src/time/watermark_output.ts";

function context(clock = new ManualClock(0)): OperatorContext {
  return {
    clock,
    activityClock: new PausableClock(clock),
    subtaskIndex: 0,
    parallelism: 1,
    metrics: { gauge() {} },
  };
}

function show(value: unknown): string {
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** Renders an element as "edge/channel what": "0/1 W5", "0/0 R(a@1,b@2)", "1/0 idle", "0/2 end". */
function render(edge: number, channel: number, element: StreamElement): string {
  const where = `${edge}/${channel}`;
  switch (element.kind) {
    case "records": {
      const items = element.values.map((v, i) =>
        `${show(v)}@${element.timestamps[i]}`
      );
      return `${where} R(${items.join(",")})`;
    }
    case "watermark":
      return `${where} W${element.watermark}`;
    case "status":
      return `${where} ${element.status}`;
    case "barrier":
      return `${where} barrier ${element.checkpointId}`;
    case "end":
      return `${where} end`;
  }
}

/** A subtask with a recording `send`; `take()` returns what it sent since the last call. */
function harness(
  options: Partial<SubtaskOptions> & Pick<SubtaskOptions, "operators">,
): {
  subtask: Subtask;
  take(): string[];
  elements: Array<[number, number, StreamElement]>;
} {
  const sent: string[] = [];
  const elements: Array<[number, number, StreamElement]> = [];
  let taken = 0;
  const subtask = new Subtask(
    {
      numInputChannels: 1,
      edges: [{ partitioner: forwardPartitioner(0), numChannels: 1 }],
      ...options,
    },
    context(),
    (edge, channel, element) => {
      sent.push(render(edge, channel, element));
      elements.push([edge, channel, element]);
    },
  );
  return {
    subtask,
    elements,
    take() {
      const fresh = sent.slice(taken);
      taken = sent.length;
      return fresh;
    },
  };
}

function watermark(w: number): StreamElement {
  return { kind: "watermark", watermark: w };
}

function status(s: WatermarkStatus): StreamElement {
  return { kind: "status", status: s };
}

/**
 * A hand-written operator that forwards everything and logs its calls to a
 * shared log, with hooks to emit side outputs or records at chosen points.
 */
class ProbeOperator implements StreamOperator<unknown, unknown> {
  output: OperatorOutput<unknown> | null = null;
  constructor(
    readonly name: string,
    readonly log: string[],
    readonly hooks: {
      onBatch?: (
        out: OperatorOutput<unknown>,
        values: readonly unknown[],
        timestamps: readonly number[],
      ) => void;
      onWatermark?: (out: OperatorOutput<unknown>, watermark: number) => void;
      onFinish?: (out: OperatorOutput<unknown>) => void;
      onTime?: (out: OperatorOutput<unknown>, now: number) => void;
      nextTime?: () => number;
    } = {},
  ) {}
  open(_context: OperatorContext, output: OperatorOutput<unknown>): void {
    this.log.push(`${this.name}.open`);
    this.output = output;
  }
  processBatch(
    values: readonly unknown[],
    timestamps: readonly number[],
  ): void {
    this.log.push(`${this.name}.batch`);
    if (this.hooks.onBatch) {
      this.hooks.onBatch(this.output!, values, timestamps);
    } else this.output!.emitBatch(values as unknown[], timestamps as number[]);
  }
  processWatermark(w: number): void {
    this.log.push(`${this.name}.W${w}`);
    this.hooks.onWatermark?.(this.output!, w);
    this.output!.emitWatermark(w);
  }
  processWatermarkStatus(s: WatermarkStatus): void {
    this.log.push(`${this.name}.${s}`);
    this.output!.emitWatermarkStatus(s);
  }
  onProcessingTime(now: number): void {
    this.log.push(`${this.name}.time ${now}`);
    this.hooks.onTime?.(this.output!, now);
  }
  nextProcessingTime(): number {
    return this.hooks.nextTime?.() ?? Infinity;
  }
  finish(): void {
    this.log.push(`${this.name}.finish`);
    this.hooks.onFinish?.(this.output!);
  }
  snapshotState(): null {
    return null;
  }
  restoreState(): void {}
}

Deno.test("Subtask merges the watermarks of 4 input channels as their minimum: 2, 4, 3, 6 -> 2; then 3; nothing; 4", () => {
  const h = harness({
    operators: [new PassThroughOperator()],
    numInputChannels: 4,
  });
  h.subtask.receive(0, watermark(2));
  h.subtask.receive(1, watermark(4));
  h.subtask.receive(2, watermark(3));
  assert.deepEqual(h.take(), [], "no output until every channel reported");
  h.subtask.receive(3, watermark(6));
  assert.deepEqual(h.take(), ["0/0 W2"]);
  assert.equal(h.subtask.metrics.inputWatermark, 2);
  h.subtask.receive(0, watermark(4));
  assert.deepEqual(h.take(), ["0/0 W3"]);
  h.subtask.receive(1, watermark(7));
  assert.deepEqual(h.take(), [], "the minimum is still 3");
  h.subtask.receive(2, watermark(6));
  assert.deepEqual(h.take(), ["0/0 W4"]);
  assert.equal(h.subtask.metrics.inputWatermark, 4);
  assert.equal(h.subtask.metrics.outputWatermark, 4);
});

Deno.test("Subtask forwards idle only when every input channel is idle, and active when the first one resumes", () => {
  const log: string[] = [];
  const h = harness({
    operators: [new ProbeOperator("op", log)],
    numInputChannels: 3,
  });
  h.subtask.receive(0, status("idle"));
  h.subtask.receive(1, status("idle"));
  assert.deepEqual(h.take(), []);
  assert.equal(h.subtask.metrics.idle, false);
  h.subtask.receive(2, status("idle"));
  assert.deepEqual(h.take(), ["0/0 idle"]);
  assert.equal(h.subtask.metrics.idle, true);
  h.subtask.receive(2, status("idle"));
  assert.deepEqual(h.take(), [], "a repeated idle changes nothing");
  h.subtask.receive(1, status("active"));
  assert.deepEqual(h.take(), ["0/0 active"]);
  assert.equal(h.subtask.metrics.idle, false);
  h.subtask.receive(0, status("active"));
  assert.deepEqual(h.take(), [], "only the first channel to resume activates");
  assert.deepEqual(log.filter((l) => l.startsWith("op.") && l !== "op.open"), [
    "op.idle",
    "op.active",
  ]);
});

Deno.test("Subtask ends only after every input channel ended, finishing operators head to tail and ending every channel of every edge", () => {
  const log: string[] = [];
  const h = harness({
    operators: [
      new ProbeOperator("head", log, {
        onFinish: (out) => out.emitBatch(["flushed"], [9]),
      }),
      new ProbeOperator("tail", log),
    ],
    numInputChannels: 3,
    edges: [
      { partitioner: forwardPartitioner(0), numChannels: 2 },
      { partitioner: rebalancePartitioner(0), numChannels: 3 },
    ],
  });
  h.subtask.receive(0, END);
  h.subtask.receive(0, END);
  h.subtask.receive(2, END);
  assert.deepEqual(
    h.take(),
    [],
    "one channel has not ended yet; a repeated end does not count twice",
  );
  assert.equal(h.subtask.finished, false);
  assert.ok(!log.some((l) => l.endsWith(".finish")));
  h.subtask.receive(1, END);
  assert.equal(h.subtask.finished, true);
  assert.deepEqual(log.filter((l) => !l.endsWith(".open")), [
    "head.finish",
    "tail.batch",
    "tail.finish",
  ]);
  assert.deepEqual(h.take(), [
    "0/0 R(flushed@9)",
    "1/0 R(flushed@9)",
    "0/0 end",
    "0/1 end",
    "1/0 end",
    "1/1 end",
    "1/2 end",
  ]);
  h.subtask.receive(1, END);
  assert.deepEqual(
    h.take(),
    [],
    "an end after the subtask finished is ignored",
  );
  assert.deepEqual(log.filter((l) => l.endsWith(".finish")), [
    "head.finish",
    "tail.finish",
  ]);
});

Deno.test("Subtask opens every operator of the chain once, head first, when constructed", () => {
  const log: string[] = [];
  harness({
    operators: [
      new ProbeOperator("a", log),
      new ProbeOperator("b", log),
      new ProbeOperator("c", log),
    ],
  });
  assert.deepEqual(log, ["a.open", "b.open", "c.open"]);
});

Deno.test("Subtask routes records by a hash edge to the subtask owning each key's key group", () => {
  type Click = { user: string; n: number };
  const h = harness({
    operators: [new PassThroughOperator()],
    edges: [{
      partitioner: hashPartitioner<Click>((c) => c.user, 128),
      numChannels: 4,
    }],
  });
  const users = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"];
  const values: Click[] = users.flatMap((
    user,
    i,
  ) => [{ user, n: i }, { user, n: i + 10 }]);
  const timestamps = values.map((_, i) => 1_000 + i);
  h.subtask.receive(0, recordBatch(values, timestamps));
  const batches = h.elements.filter(([, , e]) => e.kind === "records");
  const channels = batches.map(([, c]) => c);
  assert.equal(
    new Set(channels).size,
    channels.length,
    "one batch per channel",
  );
  let routed = 0;
  for (const [edge, channel, element] of batches) {
    assert.equal(edge, 0);
    assert.ok(element.kind === "records");
    for (let i = 0; i < element.values.length; i++) {
      const click = element.values[i] as Click;
      assert.equal(
        channel,
        subtaskForKeyGroup(keyGroupOf(click.user, 128), 128, 4),
        click.user,
      );
      assert.equal(element.timestamps[i], timestamps[values.indexOf(click)]);
      routed++;
    }
  }
  assert.equal(routed, values.length);
  assert.equal(h.subtask.metrics.recordsIn, 16);
  assert.equal(h.subtask.metrics.recordsOut, 16);
});

Deno.test("Subtask broadcasts watermarks and statuses to every channel of every edge, main and side alike", () => {
  const h = harness({
    operators: [new PassThroughOperator()],
    edges: [
      { partitioner: hashPartitioner((v) => String(v), 128), numChannels: 3 },
      { partitioner: forwardPartitioner(0), numChannels: 1 },
      {
        partitioner: broadcastPartitioner(),
        numChannels: 2,
        sideOutputTag: "late",
      },
    ],
  });
  h.subtask.receive(0, watermark(5));
  assert.deepEqual(h.take(), [
    "0/0 W5",
    "0/1 W5",
    "0/2 W5",
    "1/0 W5",
    "2/0 W5",
    "2/1 W5",
  ]);
  h.subtask.receive(0, status("idle"));
  assert.deepEqual(h.take(), [
    "0/0 idle",
    "0/1 idle",
    "0/2 idle",
    "1/0 idle",
    "2/0 idle",
    "2/1 idle",
  ]);
});

Deno.test("Subtask routes a side output only to the edge with its tag, in one batch after the input element", () => {
  // Odd values go to side output "odd", even values to the main output.
  const splitter = new ProbeOperator("split", [], {
    onBatch(out, values, timestamps) {
      const even: unknown[] = [];
      const evenTs: number[] = [];
      values.forEach((v, i) => {
        if ((v as number) % 2 === 0) {
          even.push(v);
          evenTs.push(timestamps[i]);
        } else out.emitSideOutput("odd", v, timestamps[i]);
      });
      out.emitBatch(even, evenTs);
    },
  });
  const h = harness({
    operators: [splitter],
    edges: [
      { partitioner: forwardPartitioner(0), numChannels: 1 },
      {
        partitioner: broadcastPartitioner(),
        numChannels: 2,
        sideOutputTag: "odd",
      },
      {
        partitioner: forwardPartitioner(0),
        numChannels: 1,
        sideOutputTag: "other",
      },
    ],
  });
  h.subtask.receive(0, recordBatch([1, 2, 3, 4, 5], [10, 20, 30, 40, 50]));
  assert.deepEqual(h.take(), [
    "0/0 R(2@20,4@40)",
    "1/0 R(1@10,3@30,5@50)",
    "1/1 R(1@10,3@30,5@50)",
  ]);
  assert.equal(
    h.subtask.metrics.recordsOut,
    2,
    "side outputs are not counted as main output",
  );
  h.subtask.receive(0, recordBatch([6], [60]));
  assert.deepEqual(h.take(), ["0/0 R(6@60)"], "no empty side batch");
});

Deno.test("Subtask sends side outputs emitted while processing a watermark before that watermark on their edge", () => {
  // A window-like operator: the watermark releases a late record to "late"
  // before it forwards the watermark.
  const h = harness({
    operators: [
      new ProbeOperator("head", [], {
        onWatermark: (out, w) => out.emitSideOutput("late", `late<${w}`, w - 1),
      }),
      new PassThroughOperator(),
    ],
    edges: [
      { partitioner: forwardPartitioner(0), numChannels: 1 },
      {
        partitioner: forwardPartitioner(0),
        numChannels: 1,
        sideOutputTag: "late",
      },
    ],
  });
  h.subtask.receive(0, watermark(7));
  assert.deepEqual(h.take(), ["1/0 R(late<7@6)", "0/0 W7", "1/0 W7"]);
});

Deno.test("Subtask never lets a side output buffered during one element fall behind the next watermark", () => {
  const h = harness({
    operators: [
      new ProbeOperator("head", [], {
        onBatch: (out, values, timestamps) =>
          out.emitSideOutput("late", values[0], timestamps[0]),
      }),
    ],
    numInputChannels: 1,
    edges: [{
      partitioner: forwardPartitioner(0),
      numChannels: 1,
      sideOutputTag: "late",
    }],
  });
  h.subtask.receive(0, recordBatch(["x"], [3]));
  h.subtask.receive(0, watermark(10));
  h.subtask.receive(0, recordBatch(["y"], [4]));
  h.subtask.receive(0, status("idle"));
  assert.deepEqual(h.take(), [
    "0/0 R(x@3)",
    "0/0 W10",
    "0/0 R(y@4)",
    "0/0 idle",
  ]);
});

Deno.test("Subtask sends side outputs emitted by processing-time work and by finish() before the end", () => {
  let due = 100;
  const h = harness({
    operators: [
      new ProbeOperator("head", [], {
        nextTime: () => due,
        onTime: (out, now) => {
          out.emitSideOutput("late", "timer", now);
          due = Infinity;
        },
        onFinish: (out) => out.emitSideOutput("late", "final", 0),
      }),
    ],
    edges: [{
      partitioner: forwardPartitioner(0),
      numChannels: 1,
      sideOutputTag: "late",
    }],
  });
  assert.equal(h.subtask.nextProcessingTime(), 100);
  h.subtask.onProcessingTime(99);
  assert.deepEqual(h.take(), [], "not due yet");
  h.subtask.onProcessingTime(100);
  assert.deepEqual(h.take(), ["0/0 R(timer@100)"]);
  assert.equal(h.subtask.nextProcessingTime(), Infinity);
  h.subtask.receive(0, END);
  assert.deepEqual(h.take(), ["0/0 R(final@0)", "0/0 end"]);
});

Deno.test("Subtask chains a map and a filter: records pass both in one subtask, watermarks follow them", () => {
  const h = harness({
    operators: [
      new MapOperator((v: number) => v * 10),
      new FilterOperator((v: number) => v > 15),
    ],
  });
  h.subtask.receive(0, recordBatch([1, 2, 3], [5, 6, 7]));
  h.subtask.receive(0, watermark(7));
  h.subtask.receive(0, recordBatch([1], [8]));
  assert.deepEqual(
    h.take(),
    ["0/0 R(20@6,30@7)", "0/0 W7"],
    "a batch filtered away entirely sends nothing",
  );
  assert.equal(h.subtask.metrics.recordsIn, 4);
  assert.equal(h.subtask.metrics.recordsOut, 2);
});

Deno.test('Subtask with the "max" input policy forwards the highest watermark of its inputs', () => {
  const h = harness({
    operators: [new PassThroughOperator()],
    numInputChannels: 3,
    inputPolicy: "max",
  });
  h.subtask.receive(0, watermark(5));
  assert.deepEqual(h.take(), ["0/0 W5"]);
  h.subtask.receive(1, watermark(3));
  assert.deepEqual(h.take(), []);
  h.subtask.receive(2, watermark(9));
  assert.deepEqual(h.take(), ["0/0 W9"]);
  h.subtask.receive(0, watermark(8));
  assert.deepEqual(h.take(), []);
});

Deno.test('Subtask with the default "min" input policy holds the watermark at the slowest input', () => {
  const h = harness({
    operators: [new PassThroughOperator()],
    numInputChannels: 3,
  });
  h.subtask.receive(0, watermark(5));
  h.subtask.receive(2, watermark(9));
  assert.deepEqual(h.take(), []);
  h.subtask.receive(1, watermark(3));
  assert.deepEqual(h.take(), ["0/0 W3"]);
});

Deno.test("Subtask aligns barriers: a channel that delivered the barrier waits until every channel has", () => {
  const snapshots: Array<[number, number]> = [];
  let counted = 0;
  const counter: StreamOperator<number, number> = {
    open(_c, out) {
      this.out = out;
    },
    processBatch(values, ts) {
      counted += values.length;
      (this as unknown as { out: OperatorOutput<number> }).out.emitBatch([
        ...values,
      ], [...ts]);
    },
    processWatermark(w) {
      (this as unknown as { out: OperatorOutput<number> }).out.emitWatermark(w);
    },
    processWatermarkStatus() {},
    onProcessingTime() {},
    nextProcessingTime: () => Infinity,
    finish() {},
    snapshotState: () => counted,
    restoreState() {},
  } as StreamOperator<number, number> & { out?: OperatorOutput<number> };
  const h = harness({
    operators: [counter],
    numInputChannels: 2,
    onSnapshot: (id, snapshot) =>
      snapshots.push([id, snapshot.operators[0] as number]),
  });
  h.subtask.receive(0, recordBatch([1], [1]));
  h.subtask.receive(0, { kind: "barrier", checkpointId: 7 });
  h.subtask.receive(0, recordBatch([2], [2])); // after the barrier: held
  h.subtask.receive(1, recordBatch([3], [3])); // before the barrier: processed
  assert.deepEqual(h.take(), ["0/0 R(1@1)", "0/0 R(3@3)"]);
  assert.deepEqual(snapshots, []);
  h.subtask.receive(1, { kind: "barrier", checkpointId: 7 });
  // Snapshot holds exactly the records before the barrier; then the barrier
  // goes downstream, then the held record.
  assert.deepEqual(snapshots, [[7, 2]]);
  assert.deepEqual(h.take(), ["0/0 barrier 7", "0/0 R(2@2)"]);
});

Deno.test("Subtask completes an alignment when the channels still missing the barrier end", () => {
  const ids: number[] = [];
  const h = harness({
    operators: [new PassThroughOperator()],
    numInputChannels: 2,
    onSnapshot: (id) => ids.push(id),
  });
  h.subtask.receive(0, { kind: "barrier", checkpointId: 1 });
  assert.deepEqual(ids, []);
  h.subtask.receive(1, END);
  assert.deepEqual(ids, [1]);
  assert.deepEqual(h.take(), ["0/0 barrier 1"]);
});

Deno.test("Subtask snapshots the valve in persist mode only, and restores it", () => {
  const persist = harness({
    operators: [new PassThroughOperator()],
    numInputChannels: 2,
  });
  persist.subtask.receive(0, watermark(5));
  persist.subtask.receive(1, watermark(9));
  const withValve = persist.subtask.snapshot(1);
  assert.equal(withValve.valve?.outputWatermark, 5);
  const replay = harness({
    operators: [new PassThroughOperator()],
    numInputChannels: 2,
    persistWatermarks: false,
  });
  assert.equal(replay.subtask.snapshot(1).valve, undefined);
  const restored = harness({
    operators: [new PassThroughOperator()],
    numInputChannels: 2,
  });
  restored.subtask.restore(structuredClone(withValve));
  restored.subtask.receive(0, watermark(7));
  assert.deepEqual(restored.take(), ["0/0 W7"]);
});

Deno.test("Subtask restored in persist mode reports the restored watermarks and idleness at once, before its watermark moves", () => {
  const options = {
    operators: [new PassThroughOperator()],
    numInputChannels: 2,
  };
  const before = harness(options);
  before.subtask.receive(0, watermark(5));
  before.subtask.receive(1, watermark(9));
  before.subtask.receive(0, { kind: "status", status: "idle" });
  before.subtask.receive(1, { kind: "status", status: "idle" });
  assert.deepEqual(before.subtask.metrics, {
    recordsIn: 0,
    recordsOut: 0,
    inputWatermark: 9,
    outputWatermark: 9,
    idle: true,
  });
  const restored = harness(options);
  restored.subtask.restore(structuredClone(before.subtask.snapshot(1)));
  const { inputWatermark, outputWatermark, idle } = restored.subtask.metrics;
  assert.deepEqual({ inputWatermark, outputWatermark, idle }, {
    inputWatermark: 9,
    outputWatermark: 9,
    idle: true,
  });
  assert.deepEqual(restored.take(), [], "a restore emits nothing");
  // Replay mode: event time, and so the metrics, restart at -Infinity.
  const replay = harness({ ...options, persistWatermarks: false });
  replay.subtask.receive(0, watermark(5));
  const again = harness({ ...options, persistWatermarks: false });
  again.subtask.restore(structuredClone(replay.subtask.snapshot(1)));
  assert.equal(again.subtask.metrics.outputWatermark, -Infinity);
});

Deno.test("Subtask rejects an empty operator chain, naming 'operators'", () => {
  assert.throws(
    () => harness({ operators: [] }),
    {
      name: "RangeError",
      message:
        /'operators' must hold at least one operator: current value is \[\]/,
    },
  );
});

Deno.test("Subtask rejects zero input channels, naming 'numChannels'", () => {
  assert.throws(
    () =>
      harness({ operators: [new PassThroughOperator()], numInputChannels: 0 }),
    { name: "RangeError", message: /'numChannels'.*0/ },
  );
});

Deno.test("Subtask sends the tail's elements with the edge index given in its options", () => {
  const edges: SubtaskEdge[] = [
    { partitioner: forwardPartitioner(0), numChannels: 1, sideOutputTag: "a" },
    { partitioner: forwardPartitioner(0), numChannels: 1 },
  ];
  const h = harness({ operators: [new PassThroughOperator()], edges });
  h.subtask.receive(0, recordBatch(["v"], [1]));
  assert.deepEqual(h.take(), ["1/0 R(v@1)"]);
});
