// A source subtask over any reader, on a manual clock, recording what it
// sends: the per-source tests of ended partitions use it.

import { forwardPartitioner } from "../../src/runtime/partitioner.ts";
import type { SourceReader } from "../../src/runtime/source.ts";
import {
  SourceSubtask,
  type SourceSubtaskSnapshot,
} from "../../src/runtime/source_subtask.ts";
import type { StreamElement } from "../../src/runtime/stream_element.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import type { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";

/** "R3" (a batch of three records), "W5", "idle", "active", "end". */
function render(element: StreamElement): string | null {
  switch (element.kind) {
    case "records":
      return `R${element.values.length}`;
    case "watermark":
      return `W${element.watermark}`;
    case "status":
      return element.status;
    case "barrier":
      return null;
    case "end":
      return "end";
  }
}

/** Options of {@link sourceHarness}. */
export interface SourceHarnessOptions {
  /** Processing time between periodic watermarks; 100 ms by default. */
  intervalMs?: number;
  /** Records per poll at most; 1024 by default. */
  maxBatchSize?: number;
  /** Whether snapshots keep event time; true by default. */
  persist?: boolean;
  /** The clock's start; 0 by default. */
  start?: number;
  /** Receives the subtask's gauges; none are kept by default. */
  gauge?: (name: string, read: () => number) => void;
}

/** A source subtask, its clock, and what it sent. */
export interface SourceHarness<T> {
  readonly source: SourceSubtask<T>;
  readonly clock: ManualClock;
  /**
   * Moves the clock to `now`, runs the periodic emit if due, then polls
   * (at most `polls` times) until nothing is read, as a runtime orders an
   * instant; returns what was sent, records as "R<count>".
   */
  tick(now: number, polls?: number): string[];
  /** The snapshot of a checkpoint taken now. */
  checkpoint(): SourceSubtaskSnapshot;
}

/** Builds a source subtask over `reader` (subtask 0 of 1). */
export function sourceHarness<T>(
  reader: SourceReader<T>,
  strategy: WatermarkStrategy<T>,
  options: SourceHarnessOptions = {},
): SourceHarness<T> {
  const clock = new ManualClock(options.start ?? 0);
  let sent: string[] = [];
  let snapshot: SourceSubtaskSnapshot | null = null;
  const source = new SourceSubtask<T>(
    {
      reader,
      strategy,
      operators: [],
      edges: [{ partitioner: forwardPartitioner(0), numChannels: 1 }],
      autoWatermarkIntervalMs: options.intervalMs ?? 100,
      maxBatchSize: options.maxBatchSize,
      persistWatermarks: options.persist ?? true,
      onSnapshot: (_id, taken) => snapshot = structuredClone(taken),
    },
    {
      clock,
      activityClock: new PausableClock(clock),
      subtaskIndex: 0,
      parallelism: 1,
      metrics: { gauge: options.gauge ?? (() => {}) },
    },
    (_edge, _channel, element) => {
      const shown = render(element);
      if (shown !== null) sent.push(shown);
    },
  );
  return {
    source,
    clock,
    tick(now, polls = Infinity) {
      if (now > clock.now()) clock.set(now);
      if (source.nextProcessingTime(now) <= now) source.onProcessingTime(now);
      for (let i = 0; i < polls && source.poll(now); i++);
      const fresh = sent;
      sent = [];
      return fresh;
    },
    checkpoint() {
      source.triggerCheckpoint(1);
      return snapshot!;
    },
  };
}
