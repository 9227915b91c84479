import assert from "node:assert/strict";
import fc from "fast-check";
import {
  StatusWatermarkValve,
  type StatusWatermarkValveOptions,
  type ValveSnapshot,
} from "../../src/time/valve.ts";
import type { WatermarkStatus } from "../../src/time/watermark_output.ts";
import { BruteForceValve } from "../_support/brute_force_valve.ts";
import {
  type Emitted,
  RecordingStatusOutput,
} from "../_support/recording_output.ts";

// Steps are written as inputs "W25@0", "IDLE@1",
// "ACTIVE@2" and outputs "W25", "IDLE", "ACTIVE", "—" (nothing).

type Input =
  | { watermark: number; channel: number }
  | { status: WatermarkStatus; channel: number };

/** Inputs, the outputs they must produce together, and optional checks. */
type Step = [
  inputs: string,
  outputs: string,
  check?: (valve: StatusWatermarkValve) => void,
];

interface Valve {
  inputWatermark(watermark: number, channel: number): void;
  inputWatermarkStatus(status: WatermarkStatus, channel: number): void;
}

function parseNumber(text: string): number {
  if (text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  return Number(text);
}

function parseInputs(text: string): Input[] {
  return text.split(",").map((token) => {
    const [what, channel] = token.trim().split("@");
    if (what === "IDLE") return { status: "idle", channel: Number(channel) };
    if (what === "ACTIVE") {
      return { status: "active", channel: Number(channel) };
    }
    return { watermark: parseNumber(what.slice(1)), channel: Number(channel) };
  });
}

function parseOutputs(text: string): Emitted[] {
  if (text === "—") return [];
  return text.split(",").map((token) => {
    const what = token.trim();
    if (what === "IDLE") return { status: "idle" };
    if (what === "ACTIVE") return { status: "active" };
    return { watermark: parseNumber(what.slice(1)) };
  });
}

function apply(valve: Valve, input: Input): void {
  if ("status" in input) {
    valve.inputWatermarkStatus(input.status, input.channel);
  } else valve.inputWatermark(input.watermark, input.channel);
}

/**
 * Plays the steps on a valve and on the brute-force model, checking both
 * against the expected outputs after each step; returns the valve.
 */
function play(
  numChannels: number,
  steps: Step[],
  options?: StatusWatermarkValveOptions,
): StatusWatermarkValve {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(numChannels, out, options);
  const modelOut = new RecordingStatusOutput();
  const model = new BruteForceValve(numChannels, modelOut, options);
  for (const [inputs, outputs, check] of steps) {
    for (const input of parseInputs(inputs)) {
      apply(valve, input);
      apply(model, input);
    }
    const expected = parseOutputs(outputs);
    assert.deepEqual(out.take(), expected, `valve after ${inputs}`);
    assert.deepEqual(modelOut.take(), expected, `model after ${inputs}`);
    check?.(valve);
  }
  return valve;
}

// ---------------------------------------------------------------------------
// Flink's valve rules, single channel

Deno.test("StatusWatermarkValve.inputWatermark() forwards each advancing watermark of a single channel", () => {
  play(1, [["W0@0", "W0"], ["W25@0", "W25"]]);
});

Deno.test("StatusWatermarkValve.inputWatermark() drops a watermark below the channel's last one", () => {
  play(1, [["W25@0", "W25"], ["W18@0", "—"], ["W42@0", "W42"]]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() emits only status changes of a single channel", () => {
  play(1, [
    ["ACTIVE@0", "—"],
    ["IDLE@0", "IDLE"],
    ["IDLE@0", "—"],
    ["ACTIVE@0", "ACTIVE"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermark() ignores and does not store a watermark on an idle channel", () => {
  play(1, [
    ["W25@0", "W25"],
    ["IDLE@0", "IDLE"],
    ["W50@0", "—", (valve) => assert.equal(valve.channelWatermark(0), 25)],
    ["ACTIVE@0", "ACTIVE"],
    ["W50@0", "W50"],
  ]);
});

// ---------------------------------------------------------------------------
// Flink's valve rules, multiple channels

Deno.test("StatusWatermarkValve.inputWatermark() emits nothing until every channel has reported", () => {
  play(3, [["W0@0", "—"], ["W0@1", "—"], ["W0@2", "W0"]]);
});

Deno.test("StatusWatermarkValve.inputWatermark() emits the new minimum when the slowest channel advances", () => {
  play(3, [
    ["W0@0, W0@1, W0@2", "W0"],
    ["W12@0, W8@2, W10@2", "—"],
    ["W15@1", "W10"],
    ["W17@2", "W12"],
    ["W20@0", "W15"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermark() never lowers a channel's watermark", () => {
  play(3, [
    ["W25@0, W10@1, W17@2", "W10"],
    ["W12@0, W8@1, W15@2", "—"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() emits idle only when the last channel goes idle and active when the first returns", () => {
  play(2, [
    ["ACTIVE@0, ACTIVE@1", "—"],
    ["IDLE@1", "—"],
    ["IDLE@0", "IDLE"],
    ["IDLE@0, IDLE@1", "—"],
    ["ACTIVE@1", "ACTIVE"],
    ["ACTIVE@0", "—"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() lets the active channels advance when one goes idle", () => {
  play(3, [
    ["W15@0, W10@1", "—"],
    ["IDLE@2", "W10"],
    ["W18@1", "W15"],
    ["W20@0", "W18"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() advances to the next minimum as channels go idle one by one", () => {
  play(3, [
    ["W25@0, W10@1, W17@2", "W10"],
    ["IDLE@1", "W17"],
    ["IDLE@2", "W25"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() flushes the maximum watermark before going idle (FLINK-40475)", () => {
  play(3, [
    ["W10@0, W5@1, W3@2", "W3"],
    ["IDLE@0", "—"],
    ["IDLE@1", "—"],
    ["IDLE@2", "W10, IDLE"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() keeps a channel that returns behind the output unaligned until it catches up", () => {
  function aligned(expected: boolean) {
    return (valve: StatusWatermarkValve) =>
      assert.equal(valve.channelAligned(2), expected);
  }
  play(3, [
    ["W10@0, W7@1, W3@2", "W3", aligned(true)],
    ["IDLE@2", "W7", aligned(false)],
    ["ACTIVE@2", "—", aligned(false)],
    ["W5@2", "—", aligned(false)],
    ["W9@2", "—", aligned(true)],
    ["W12@1", "W9"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() never emits from an empty aligned set (FLINK-7721)", () => {
  const valve = play(3, [
    ["W10@0, W7@1", "—"],
    ["IDLE@2", "W7"],
    ["ACTIVE@2", "—"],
    ["IDLE@0", "—"],
    ["IDLE@1", "—"],
  ]);
  assert.equal(valve.outputWatermark, 7);
  assert.equal(valve.outputStatus, "active");
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() lets an unaligned channel go idle without emitting", () => {
  play(2, [
    ["W7@0, W10@1", "W7"],
    ["IDLE@0", "W10"],
    ["ACTIVE@0, W9@0", "—"],
    ["IDLE@0", "—"],
  ]);
});

// Derived vectors: the newer column (FLINK-40475).

Deno.test("StatusWatermarkValve.inputWatermarkStatus() flushes the maximum even when the last channel to go idle is behind the output (FLINK-40475)", () => {
  play(3, [
    ["W10@0, W3@1, W4@2", "W3"],
    ["IDLE@0", "—"],
    ["IDLE@1", "W4"],
    ["ACTIVE@1", "—"],
    ["IDLE@2", "—"],
    ["IDLE@1", "W10, IDLE"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() emits the re-derived minimum when a channel returns ahead of the output (FLINK-40475)", () => {
  play(3, [
    ["W10@0, W3@1, W4@2", "W3"],
    ["IDLE@0", "—"],
    ["IDLE@1", "W4"],
    ["ACTIVE@1", "—"],
    ["IDLE@2", "—"],
    ["ACTIVE@0", "W10"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() flushes the same maximum whatever order the channels go idle in (FLINK-38454)", () => {
  play(3, [
    ["W10@0, W3@1, W4@2", "W3"],
    ["IDLE@0", "—"],
    ["IDLE@1", "W4"],
    ["IDLE@2", "W10, IDLE"],
  ]);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() emits active before the re-derived minimum (FLINK-40475)", () => {
  // The state the classic rule leaves after the first derived vector: all
  // idle at output 4 although channel 0 holds 10.
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(3, out);
  valve.restore({
    policy: "min",
    watermarks: [10, 3, 4],
    statuses: ["idle", "idle", "idle"],
    aligned: [false, false, false],
    outputWatermark: 4,
    outputStatus: "idle",
  });
  valve.inputWatermarkStatus("active", 0);
  assert.deepEqual(out.take(), [{ status: "active" }, { watermark: 10 }]);
});

// ---------------------------------------------------------------------------
// Boundaries

Deno.test("StatusWatermarkValve.inputWatermark() passes Infinity on once every channel reaches it", () => {
  const valve = play(2, [
    ["WInf@0", "—"],
    ["W5@1", "W5"],
    ["WInf@1", "WInf"],
    ["W9@0, IDLE@0, IDLE@1", "IDLE"],
  ]);
  assert.equal(valve.outputWatermark, Infinity);
});

Deno.test("StatusWatermarkValve.inputWatermark() always drops -Infinity", () => {
  play(2, [["W-Inf@0, W-Inf@1", "—"], ["W-3@0, W-Inf@1, W-7@1", "W-7"]]);
});

Deno.test("StatusWatermarkValve.inputWatermark() emits the right minimum while channels tie at the output or run ahead of it", () => {
  play(3, [
    ["W4@0, W4@1, W4@2", "W4"],
    ["W9@0", "—"],
    ["W11@0", "—"],
    ["W6@1", "—"],
    ["W5@2", "W5"],
    ["W7@2", "W6"],
    ["W12@1, W12@2", "W7, W11"],
  ]);
});

// ---------------------------------------------------------------------------
// The "max" policy

Deno.test("StatusWatermarkValve.inputWatermark() follows the fastest active channel under the max policy (Spark multipleWatermarkPolicy)", () => {
  play(3, [
    ["W5@0", "W5"],
    ["W3@1", "—"],
    ["W8@2", "W8"],
    ["W7@0, W8@1", "—"],
    ["W9@1", "W9"],
  ], { policy: "max" });
});

Deno.test("StatusWatermarkValve.inputWatermark() ignores idle channels under the max policy", () => {
  const valve = play(3, [
    ["W5@0, W9@1", "W5, W9"],
    ["IDLE@1", "—"],
    ["W6@0", "—"],
    ["W12@1", "—"],
    ["W10@0", "W10"],
  ], { policy: "max" });
  assert.equal(valve.channelWatermark(1), 9);
  assert.equal(valve.channelAligned(1), false);
  assert.equal(valve.channelAligned(0), true);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() emits idle and active under the max policy as under min", () => {
  play(2, [
    ["W5@0, W3@1", "W5"],
    ["IDLE@0", "—"],
    ["IDLE@1", "IDLE"],
    ["W20@1", "—"],
    ["ACTIVE@1", "ACTIVE"],
    ["W4@1", "—"],
    ["ACTIVE@0, W7@1", "W7"],
  ], { policy: "max" });
});

Deno.test("StatusWatermarkValve.channelAligned() reports every active channel as aligned under the max policy", () => {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(2, out, { policy: "max" });
  valve.inputWatermark(10, 0);
  valve.inputWatermark(2, 1);
  assert.equal(valve.policy, "max");
  assert.equal(valve.channelAligned(1), true);
  valve.inputWatermarkStatus("idle", 1);
  assert.equal(valve.channelAligned(1), false);
  valve.inputWatermarkStatus("active", 1);
  assert.equal(valve.channelAligned(1), true);
  assert.deepEqual(out.take(), [{ watermark: 10 }]);
});

// ---------------------------------------------------------------------------
// Snapshots

const TAIL = "W3@2, W30@0, ACTIVE@2, W21@1, W24@2, IDLE@0, IDLE@1, IDLE@2, " +
  "ACTIVE@0, W40@0, ACTIVE@1, W41@1";

for (const policy of ["min", "max"] as const) {
  Deno.test(`StatusWatermarkValve.restore() continues exactly where snapshot() left off under the ${policy} policy`, () => {
    const out = new RecordingStatusOutput();
    const valve = new StatusWatermarkValve(3, out, { policy });
    for (const input of parseInputs("W10@0, W20@1, W2@2, IDLE@2, W15@0")) {
      apply(valve, input);
    }
    const snapshot = valve.snapshot();
    // Plain data: survives structured cloning (and superjson) unchanged.
    assert.deepEqual(structuredClone(snapshot), snapshot);
    const restoredOut = new RecordingStatusOutput();
    const restored = new StatusWatermarkValve(3, restoredOut, { policy });
    restored.restore(structuredClone(snapshot));
    assert.deepEqual(restored.snapshot(), snapshot);
    assert.deepEqual(restoredOut.take(), []);
    out.take();
    for (const input of parseInputs(TAIL)) {
      apply(valve, input);
      apply(restored, input);
      assert.deepEqual(restoredOut.take(), out.take());
      assert.deepEqual(restored.snapshot(), valve.snapshot());
    }
  });
}

Deno.test("StatusWatermarkValve.snapshot() returns plain data detached from the valve", () => {
  const valve = new StatusWatermarkValve(2, new RecordingStatusOutput());
  const before = valve.snapshot();
  assert.deepEqual(before, {
    policy: "min",
    watermarks: [-Infinity, -Infinity],
    statuses: ["active", "active"],
    aligned: [true, true],
    outputWatermark: -Infinity,
    outputStatus: "active",
  });
  valve.inputWatermark(4, 0);
  valve.inputWatermarkStatus("idle", 1);
  assert.deepEqual(before.watermarks, [-Infinity, -Infinity]);
  assert.deepEqual(valve.snapshot(), {
    policy: "min",
    watermarks: [4, -Infinity],
    statuses: ["active", "idle"],
    aligned: [true, false],
    outputWatermark: 4,
    outputStatus: "active",
  });
});

function snapshotOf(
  overrides: Partial<Record<keyof ValveSnapshot, unknown>>,
): ValveSnapshot {
  return {
    policy: "min",
    watermarks: [5, 7],
    statuses: ["active", "active"],
    aligned: [true, true],
    outputWatermark: 5,
    outputStatus: "active",
    ...overrides,
  } as ValveSnapshot;
}

Deno.test("StatusWatermarkValve.restore() rejects a snapshot for another number of channels", () => {
  const valve = new StatusWatermarkValve(2, new RecordingStatusOutput());
  valve.restore(snapshotOf({}));
  assert.throws(() => valve.restore(snapshotOf({ watermarks: [5, 7, 9] })), {
    name: "RangeError",
    message: /'snapshot\.watermarks\.length' must be 2 .*: current value is 3$/,
  });
  assert.throws(() => valve.restore(snapshotOf({ aligned: [true] })), {
    name: "RangeError",
    message: /'snapshot\.aligned\.length'.*current value is 1$/,
  });
  assert.deepEqual(valve.snapshot(), snapshotOf({}));
});

Deno.test("StatusWatermarkValve.restore() rejects malformed or inconsistent snapshots", () => {
  const valve = new StatusWatermarkValve(2, new RecordingStatusOutput());
  const cases: Array<
    [Partial<Record<keyof ValveSnapshot, unknown>>, string, RegExp]
  > = [
    [
      { policy: "max" },
      "RangeError",
      /'snapshot\.policy' must be "min": current value is "max"/,
    ],
    [
      { statuses: ["active", "busy"] },
      "TypeError",
      /'snapshot\.statuses\[1\]'.*"busy"/,
    ],
    [
      { watermarks: [5, NaN] },
      "RangeError",
      /'snapshot\.watermarks\[1\]'.*NaN/,
    ],
    [{ aligned: [true, 1] }, "TypeError", /'snapshot\.aligned\[1\]'.*1$/],
    [
      { outputStatus: "idle" },
      "RangeError",
      /'snapshot\.outputStatus'.*"idle"$/,
    ],
    [
      { outputWatermark: 6 },
      "RangeError",
      /'snapshot\.aligned\[0\]' must be false.*true$/,
    ],
    [
      { outputWatermark: 4 },
      "RangeError",
      /'snapshot\.outputWatermark' must be the minimum aligned watermark 5.*4$/,
    ],
    [
      { watermarks: [6, 7] },
      "RangeError",
      /'snapshot\.outputWatermark' must be the minimum aligned watermark 6.*5$/,
    ],
    [
      { statuses: ["idle", "active"] },
      "RangeError",
      /'snapshot\.aligned\[0\]' must be false/,
    ],
    [
      { watermarks: "5,7" },
      "TypeError",
      /'snapshot\.watermarks' must be an array/,
    ],
  ];
  for (const [overrides, name, message] of cases) {
    assert.throws(() => valve.restore(snapshotOf(overrides)), {
      name,
      message,
    });
  }
  assert.throws(() => valve.restore(null as unknown as ValveSnapshot), {
    name: "TypeError",
    message: /'snapshot' must be an object: current value is null/,
  });
  const max = new StatusWatermarkValve(2, new RecordingStatusOutput(), {
    policy: "max",
  });
  assert.throws(
    () => max.restore(snapshotOf({ policy: "max", outputWatermark: 6 })),
    {
      name: "RangeError",
      message:
        /'snapshot\.watermarks\[1\]' must be at most the output watermark 6.*7$/,
    },
  );
  max.restore(snapshotOf({ policy: "max", outputWatermark: 7 }));
  assert.equal(max.outputWatermark, 7);
});

// ---------------------------------------------------------------------------
// Bad input

Deno.test("new StatusWatermarkValve() rejects a channel count that is not a positive safe integer", () => {
  const out = new RecordingStatusOutput();
  for (const bad of [0, -1, 1.5, NaN, Infinity]) {
    assert.throws(() => new StatusWatermarkValve(bad, out), {
      name: "RangeError",
      message: new RegExp(
        `^Cannot create StatusWatermarkValve as 'numChannels' must be a positive safe integer: current value is ${bad}$`,
      ),
    });
  }
  assert.throws(() => new StatusWatermarkValve("3" as unknown as number, out), {
    name: "TypeError",
    message: /'numChannels'.*current value is "3"$/,
  });
});

Deno.test("new StatusWatermarkValve() rejects an unknown policy", () => {
  assert.throws(
    () =>
      new StatusWatermarkValve(2, new RecordingStatusOutput(), {
        policy: "median" as "min",
      }),
    {
      name: "TypeError",
      message:
        /^Cannot create StatusWatermarkValve as 'options.policy' must be "min" or "max": current value is "median"$/,
    },
  );
});

Deno.test("StatusWatermarkValve.inputWatermark() rejects a channel out of range and emits nothing", () => {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(3, out);
  for (const bad of [3, -1, 1.5, NaN, 2 ** 32]) {
    assert.throws(() => valve.inputWatermark(5, bad), {
      name: "RangeError",
      message: new RegExp(
        `^Cannot input a watermark into StatusWatermarkValve as 'channel' must be an integer from 0 to 2: current value is ${bad}$`,
      ),
    });
  }
  assert.throws(() => valve.inputWatermark(5, "1" as unknown as number), {
    name: "TypeError",
    message: /'channel'.*current value is "1"$/,
  });
  assert.deepEqual(out.take(), []);
});

Deno.test("StatusWatermarkValve.inputWatermark() rejects a watermark that is NaN or not a safe integer", () => {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(1, out);
  for (const bad of [NaN, 1.5, 2 ** 53]) {
    assert.throws(() => valve.inputWatermark(bad, 0), {
      name: "RangeError",
      message: new RegExp(
        `^Cannot input a watermark into StatusWatermarkValve as 'watermark' must be a safe integer, -Infinity or Infinity: current value is ${bad}$`,
      ),
    });
  }
  assert.throws(() => valve.inputWatermark("5" as unknown as number, 0), {
    name: "TypeError",
    message: /'watermark'.*current value is "5"$/,
  });
  assert.deepEqual(out.take(), []);
  assert.equal(valve.channelWatermark(0), -Infinity);
});

Deno.test("StatusWatermarkValve.inputWatermarkStatus() rejects an unknown status or channel", () => {
  const out = new RecordingStatusOutput();
  const valve = new StatusWatermarkValve(2, out);
  assert.throws(
    () => valve.inputWatermarkStatus("paused" as WatermarkStatus, 0),
    {
      name: "TypeError",
      message:
        /^Cannot input a watermark status into StatusWatermarkValve as 'status' must be "idle" or "active": current value is "paused"$/,
    },
  );
  assert.throws(() => valve.inputWatermarkStatus("idle", 2), {
    name: "RangeError",
    message: /'channel' must be an integer from 0 to 1: current value is 2$/,
  });
  assert.deepEqual(out.take(), []);
  assert.equal(valve.channelStatus(0), "active");
});

Deno.test("StatusWatermarkValve.channelWatermark() rejects a channel out of range", () => {
  const valve = new StatusWatermarkValve(2, new RecordingStatusOutput());
  assert.equal(valve.numChannels, 2);
  const reads: Array<(channel: number) => unknown> = [
    (channel) => valve.channelWatermark(channel),
    (channel) => valve.channelStatus(channel),
    (channel) => valve.channelAligned(channel),
  ];
  for (const read of reads) {
    assert.throws(() => read(7), {
      name: "RangeError",
      message:
        /^Cannot read a channel of StatusWatermarkValve as 'channel'.*current value is 7$/,
    });
  }
});

// ---------------------------------------------------------------------------
// Properties: the valve against the brute-force model

function inputArbitrary(numChannels: number): fc.Arbitrary<Input> {
  const channel = fc.integer({ min: 0, max: numChannels - 1 });
  const watermark = fc.oneof(
    { arbitrary: fc.integer({ min: -5, max: 40 }), weight: 12 },
    { arbitrary: fc.constant(-Infinity), weight: 1 },
    { arbitrary: fc.constant(Infinity), weight: 1 },
  );
  const status = fc.constantFrom<WatermarkStatus>("idle", "active");
  return fc.oneof(
    { arbitrary: fc.record({ watermark, channel }), weight: 3 },
    { arbitrary: fc.record({ status, channel }), weight: 1 },
  );
}

const scenario = fc.integer({ min: 1, max: 6 }).chain((numChannels) =>
  fc.record({
    numChannels: fc.constant(numChannels),
    inputs: fc.array(inputArbitrary(numChannels), {
      maxLength: 200,
      size: "max",
    }),
  })
);

function assertWellFormed(emitted: Emitted[]): void {
  let last = -Infinity;
  let idle = false;
  for (const item of emitted) {
    if ("watermark" in item) {
      assert.ok(item.watermark > last, `${item.watermark} after ${last}`);
      last = item.watermark;
    } else {
      assert.equal(item.status, idle ? "active" : "idle");
      idle = !idle;
    }
  }
}

for (const policy of ["min", "max"] as const) {
  Deno.test(`StatusWatermarkValve matches the brute-force model on random inputs under the ${policy} policy`, () => {
    fc.assert(
      fc.property(scenario, ({ numChannels, inputs }) => {
        const out = new RecordingStatusOutput();
        const valve = new StatusWatermarkValve(numChannels, out, { policy });
        const modelOut = new RecordingStatusOutput();
        const model = new BruteForceValve(numChannels, modelOut, { policy });
        inputs.forEach((input, step) => {
          apply(valve, input);
          apply(model, input);
          const where = `step ${step}`;
          assert.deepEqual(out.take(), modelOut.take(), where);
          assert.equal(valve.outputWatermark, model.outputWatermark, where);
          assert.equal(valve.outputStatus === "idle", model.outputIdle, where);
          for (let ch = 0; ch < numChannels; ch++) {
            assert.equal(
              valve.channelWatermark(ch),
              model.watermarks[ch],
              where,
            );
            assert.equal(
              valve.channelStatus(ch) === "idle",
              model.idle[ch],
              where,
            );
            assert.equal(valve.channelAligned(ch), model.aligned[ch], where);
          }
        });
        assertWellFormed(out.emitted);
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  Deno.test(`StatusWatermarkValve.restore() resumes identically from any point under the ${policy} policy`, () => {
    fc.assert(
      fc.property(scenario, fc.nat(), ({ numChannels, inputs }, cut) => {
        const at = inputs.length === 0 ? 0 : cut % (inputs.length + 1);
        const out = new RecordingStatusOutput();
        const valve = new StatusWatermarkValve(numChannels, out, { policy });
        for (const input of inputs.slice(0, at)) apply(valve, input);
        const restoredOut = new RecordingStatusOutput();
        const restored = new StatusWatermarkValve(numChannels, restoredOut, {
          policy,
        });
        restored.restore(structuredClone(valve.snapshot()));
        out.take();
        for (const input of inputs.slice(at)) {
          apply(valve, input);
          apply(restored, input);
        }
        assert.deepEqual(restoredOut.take(), out.take());
        assert.deepEqual(restored.snapshot(), valve.snapshot());
      }),
      { seed: 42, numRuns: 200 },
    );
  });
}
