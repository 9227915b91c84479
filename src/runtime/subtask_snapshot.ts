/**
 * A subtask's state at a checkpoint, as plain data.
 *
 * @module
 */

import type { PausableClockSnapshot, ValveSnapshot } from "../time/mod.ts";

/** A subtask's state at a checkpoint, as plain data. */
export interface SubtaskSnapshot {
  /** Each operator's snapshot, head first. */
  readonly operators: unknown[];
  /** The valve's state, in persist mode only. */
  readonly valve?: ValveSnapshot;
  /** Which input channels had ended. */
  readonly ended: boolean[];
  /**
   * The last watermark and status the chain sent downstream, in persist
   * mode only: a restored subtask reports them (status, lag) before its
   * watermark next moves.
   */
  readonly output?: { readonly watermark: number; readonly idle: boolean };
  /**
   * The input-activity clock, in persist mode only: idleness countdowns
   * are readings of it, so a restore must put its lag back.
   */
  readonly activityClock?: PausableClockSnapshot;
  /**
   * How many records came on each input channel, in both recovery modes:
   * dead letters' positions (`"channel 1, record 230"`) and ids count from
   * it, so a restored subtask names a record as the one before did. Absent
   * in snapshots of older versions, and dropped when a rescale changes the
   * channels: counts then start again at 0.
   */
  readonly received?: number[];
}
