import assert from "node:assert/strict";
import { type MeterProvider, metrics } from "@opentelemetry/api";
import type { SubtaskStatus } from "../../src/actors/actor_runtime.ts";
import type { JobHandle } from "../../src/observe/job_handle.ts";
import { observeJobs, OTEL_METRIC_NAMES } from "../../src/observe/otel.ts";

type Observation = [name: string, value: number, attributes: unknown];
type BatchCallback = (result: {
  observe(
    observable: { name: string },
    value: number,
    attributes: unknown,
  ): void;
}) => void;

/** A meter provider that keeps the batch callbacks, so a test collects. */
class FakeMeters {
  readonly instruments: Array<{ name: string; kind: string; unit?: string }> =
    [];
  readonly callbacks = new Set<BatchCallback>();

  provider(): MeterProvider {
    const instrument =
      (kind: string) => (name: string, options?: { unit?: string }) => {
        const made = { name, kind, unit: options?.unit };
        this.instruments.push(made);
        return made;
      };
    const meter = {
      createObservableGauge: instrument("gauge"),
      createObservableCounter: instrument("counter"),
      addBatchObservableCallback: (cb: BatchCallback) => this.callbacks.add(cb),
      removeBatchObservableCallback: (cb: BatchCallback) =>
        this.callbacks.delete(cb),
    };
    return { getMeter: () => meter } as unknown as MeterProvider;
  }

  collect(): Observation[] {
    const seen: Observation[] = [];
    for (const cb of this.callbacks) {
      cb({ observe: (o, value, attrs) => seen.push([o.name, value, attrs]) });
    }
    return seen;
  }
}

function status(overrides: Partial<SubtaskStatus>): SubtaskStatus {
  return {
    id: "clicks/window/0",
    operator: "window",
    subtask: 0,
    inputWatermark: 10_000,
    outputWatermark: 9_000,
    idle: false,
    recordsIn: 7,
    recordsOut: 5,
    mailboxDepth: 0,
    watermarkLagMs: 2_500,
    paused: false,
    gauges: { numLateRecordsDropped: 3 },
    ...overrides,
  };
}

function handle(name: string, statuses: () => SubtaskStatus[]): JobHandle {
  return {
    name,
    graph: {
      jobName: name,
      vertices: [],
      edges: [],
      maxParallelism: 128,
      autoWatermarkIntervalMs: 200,
    },
    status: statuses,
    history: () => [],
    checkpoints: () => Promise.resolve([]),
    triggerCheckpoint: () => null,
    inputChannels: () => [],
  };
}

function withMeters(run: (meters: FakeMeters) => void): void {
  const meters = new FakeMeters();
  metrics.setGlobalMeterProvider(meters.provider());
  try {
    run(meters);
  } finally {
    metrics.disable();
  }
}

Deno.test("observeJobs() registers weir's instruments with OpenTelemetry units", () => {
  withMeters((meters) => {
    observeJobs(new Map());
    assert.deepEqual(meters.instruments.map((i) => i.name), [
      ...OTEL_METRIC_NAMES,
    ]);
    const unit = (name: string) =>
      meters.instruments.find((i) => i.name === name)?.unit;
    assert.equal(unit("weir.watermark.lag"), "s");
    assert.equal(unit("weir.watermark.output"), "s");
    assert.equal(unit("weir.records.late"), "{record}");
  });
});

Deno.test("observeJobs() reports each subtask in seconds with job.name, operator and subtask", () => {
  withMeters((meters) => {
    const jobs = new Map([["clicks", handle("clicks", () => [status({})])]]);
    observeJobs(jobs);
    const attributes = { "job.name": "clicks", operator: "window", subtask: 0 };
    assert.deepEqual(meters.collect(), [
      ["weir.watermark.output", 9, attributes],
      ["weir.watermark.input", 10, attributes],
      ["weir.watermark.lag", 2.5, attributes],
      ["weir.records.in", 7, attributes],
      ["weir.records.out", 5, attributes],
      ["weir.records.late", 3, attributes],
    ]);
  });
});

Deno.test("observeJobs() leaves out unknown watermarks, failing jobs, and stops when told", () => {
  withMeters((meters) => {
    const jobs = new Map<string, JobHandle>([
      [
        "broken",
        handle("broken", () => {
          throw new Error("gone");
        }),
      ],
    ]);
    const stop = observeJobs(jobs);
    assert.deepEqual(meters.collect(), []);
    // A job added later is read at the next collection.
    jobs.set(
      "fresh",
      handle("fresh", () => [
        status({
          inputWatermark: -Infinity,
          outputWatermark: -Infinity,
          watermarkLagMs: Infinity,
          gauges: {},
        }),
      ]),
    );
    assert.deepEqual(meters.collect().map(([name]) => name), [
      "weir.records.in",
      "weir.records.out",
    ]);
    stop();
    assert.deepEqual(meters.collect(), []);
  });
});
