/**
 * A window operator's state as plain data, for checkpoints.
 *
 * @module
 */

import type { TimerServiceSnapshot } from "./timer_service.ts";

/** One (key, window) and what it holds, as plain data. */
export interface WindowSlotSnapshot<K, ACC> {
  /** The id timers refer to. */
  id: number;
  /** The key. */
  key: K;
  /** Window start in milliseconds. */
  start: number;
  /** Window end in milliseconds. */
  end: number;
  /** The contents, absent when empty (e.g. after a purge). */
  contents?: ACC;
  /** The trigger's state, if any. */
  triggerState?: number;
}

/** A window operator's state as plain data, for checkpoints. */
export interface WindowOperatorSnapshot<K, ACC> {
  /** Every live (key, window). */
  slots: WindowSlotSnapshot<K, ACC>[];
  /** The next id to hand out. */
  nextId: number;
  /** Timers and the current watermark. */
  timers: TimerServiceSnapshot;
  /** Records dropped as late so far. */
  numLateRecordsDropped: number;
}
