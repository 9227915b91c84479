// What a subtask's snapshot holds, and how it is put back: each operator's
// snapshot, which channels ended, how many records came on each, and in
// persist mode the valve, the output's event time and the activity clock.

import type { PausableClock, StatusWatermarkValve } from "../time/mod.ts";
import type { SnapshotOptions, StreamOperator } from "./stream_operator.ts";
import type { SubtaskMetrics } from "./subtask_metrics.ts";
import type { SubtaskOptions } from "./subtask_options.ts";
import type { SubtaskSnapshot } from "./subtask_snapshot.ts";
import { CAUSE, type RecordGuard } from "./_record_guard.ts";

/** The parts of a subtask its snapshot reads and its restore writes. */
export interface SubtaskParts {
  readonly operators: readonly StreamOperator<unknown, unknown>[];
  readonly guard: RecordGuard;
  readonly valve: StatusWatermarkValve;
  readonly metrics: SubtaskMetrics;
  readonly activityClock: PausableClock;
  readonly ended: boolean[];
  readonly received: number[];
  readonly options: SnapshotOptions;
}

/** What a subtask's options say its operators' snapshots keep. */
export function snapshotOptionsOf(options: SubtaskOptions): SnapshotOptions {
  return {
    watermarks: options.persistWatermarks ?? true,
    parts: options.snapshotParts,
  };
}

/** The subtask's snapshot: see `Subtask.snapshot`. */
export function snapshotSubtask(
  parts: SubtaskParts,
  checkpointId: number,
  step: boolean,
): SubtaskSnapshot {
  // A sink closing its transaction (writing held records, encoding its
  // rows) may set records aside: they are positioned at the checkpoint.
  if (!step) {
    parts.guard.cause = CAUSE.barrier;
    parts.guard.causeValue = checkpointId;
  }
  const options = step ? { ...parts.options, step } : parts.options;
  const snapshot: SubtaskSnapshot = {
    operators: parts.operators.map((op) =>
      op.snapshotState(checkpointId, options)
    ),
    ended: [...parts.ended],
    received: [...parts.received],
  };
  if (parts.options.watermarks) {
    const persisted = snapshot as {
      -readonly [F in keyof SubtaskSnapshot]: SubtaskSnapshot[F];
    };
    persisted.valve = parts.valve.snapshot();
    persisted.output = {
      watermark: parts.metrics.outputWatermark,
      idle: parts.metrics.idle,
    };
    persisted.activityClock = parts.activityClock.snapshotState();
  }
  return snapshot;
}

/**
 * Puts a snapshot back: see `Subtask.restore`.
 *
 * @returns How many channels it marked ended that were not.
 */
export function restoreSubtask(
  parts: SubtaskParts,
  snapshot: SubtaskSnapshot,
): number {
  let newlyEnded = 0;
  if (snapshot.operators.length !== parts.operators.length) {
    throw new RangeError(
      `Cannot restore Subtask as 'operators' must hold ${parts.operators.length} snapshots: current value holds ${snapshot.operators.length}`,
    );
  }
  parts.operators.forEach((op, i) => {
    if (snapshot.operators[i] !== undefined) {
      op.restoreState(snapshot.operators[i]);
    }
  });
  if (snapshot.valve !== undefined) {
    parts.valve.restore(snapshot.valve);
    parts.metrics.inputWatermark = snapshot.valve.outputWatermark;
  }
  if (snapshot.output !== undefined) {
    parts.metrics.outputWatermark = snapshot.output.watermark;
    parts.metrics.idle = snapshot.output.idle;
  }
  if (snapshot.activityClock !== undefined) {
    parts.activityClock.restoreState(snapshot.activityClock);
  }
  // After a rescale the channels differ: their counts start again.
  if (snapshot.received?.length === parts.received.length) {
    parts.received.splice(0, Infinity, ...snapshot.received);
  }
  for (let c = 0; c < parts.ended.length; c++) {
    if (snapshot.ended[c] && !parts.ended[c]) {
      parts.ended[c] = true;
      newlyEnded++;
    }
  }
  return newlyEnded;
}
