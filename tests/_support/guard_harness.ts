// A subtask over a chain of operators, driven by hand, that records what it
// emits and what its error policy sets aside: for the tests of the record
// guards (no record can kill a job).

import type { DeadLetter, ErrorPolicy } from "../../src/runtime/dead_letter.ts";
import type { OperatorDescriptor } from "../../src/runtime/job_graph.ts";
import {
  forwardPartitioner,
  type Partitioner,
} from "../../src/runtime/partitioner.ts";
import { recordBatch } from "../../src/runtime/stream_element.ts";
import type { StreamOperator } from "../../src/runtime/stream_operator.ts";
import { Subtask, type SubtaskSnapshot } from "../../src/runtime/subtask.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";

/** What a guarded subtask is built from. */
export interface GuardSetup {
  readonly operators: () => StreamOperator<unknown, unknown>[];
  readonly errorPolicy?: ErrorPolicy;
  readonly quarantine?: ReadonlySet<string>;
  readonly descriptors?: readonly OperatorDescriptor[];
  readonly numInputChannels?: number;
  readonly partitioner?: Partitioner<unknown>;
  readonly numChannels?: number;
  readonly target?: string;
  readonly clock?: ManualClock;
  /** Whether the runtime snapshots every step (the KV runtime). */
  readonly stepSnapshots?: boolean;
}

/** A guarded subtask and what it did. */
export interface GuardHarness {
  readonly subtask: Subtask;
  readonly clock: ManualClock;
  /** Records sent downstream, as `value@timestamp` (JSON for objects), per channel. */
  readonly out: string[];
  /** Sends records on a channel. */
  push(values: unknown[], timestamps?: number[], channel?: number): void;
  /** Sends a watermark on every input channel. */
  watermark(watermark: number): void;
  /** The letters set aside since the last call. */
  letters(): DeadLetter[];
  /** A copy of the subtask's state. */
  snapshot(): SubtaskSnapshot;
}

/**
 * Builds a guarded subtask with a forward edge (or `setup.partitioner`).
 *
 * @param setup The chain and the error policy.
 * @param restore A snapshot to restore first.
 */
export function guardHarness(
  setup: GuardSetup,
  restore?: SubtaskSnapshot,
): GuardHarness {
  const clock = setup.clock ?? new ManualClock(1_000);
  const out: string[] = [];
  const inputs = setup.numInputChannels ?? 1;
  const subtask = new Subtask(
    {
      operators: setup.operators(),
      numInputChannels: inputs,
      edges: [{
        partitioner: setup.partitioner ?? forwardPartitioner(0),
        numChannels: setup.numChannels ?? 1,
        target: setup.target,
      }],
      errorPolicy: setup.errorPolicy,
      quarantine: setup.quarantine,
      descriptors: setup.descriptors,
    },
    {
      clock,
      activityClock: new PausableClock(clock),
      subtaskIndex: 0,
      parallelism: 1,
      metrics: { gauge() {} },
      stepSnapshots: setup.stepSnapshots,
    },
    (_edge, channel, element) => {
      if (element.kind !== "records") return;
      element.values.forEach((v, i) => {
        const text = typeof v === "object" ? JSON.stringify(v) : String(v);
        const at = element.timestamps[i];
        out.push(channel === 0 ? `${text}@${at}` : `${channel}:${text}@${at}`);
      });
    },
  );
  if (restore !== undefined) subtask.restore(structuredClone(restore));
  return {
    subtask,
    clock,
    out,
    push(values, timestamps, channel = 0) {
      subtask.receive(
        channel,
        recordBatch(values, timestamps ?? values.map((_, i) => i + 1)),
      );
    },
    watermark(watermark) {
      for (let c = 0; c < inputs; c++) {
        subtask.receive(c, { kind: "watermark", watermark });
      }
    },
    letters: () => subtask.takeDeadLetters(),
    snapshot: () => structuredClone(subtask.snapshot(1)),
  };
}

/** What `fn` throws. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected it to throw");
}
