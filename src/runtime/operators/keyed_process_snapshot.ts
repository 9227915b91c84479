/**
 * A keyed process operator's state as plain data, for checkpoints.
 *
 * @module
 */

/**
 * A keyed process operator's state as plain data, for checkpoints. Keys are
 * those of the key selector; the states are the operator's own objects, not
 * copies. Rescaling sends each entry to the subtask that owns its key's key
 * group.
 */
export interface KeyedProcessSnapshot<K, S> {
  /**
   * Every key that has state, with it: grouped by key group (incremental
   * checkpoints store unchanged groups once), in order within a group.
   */
  keyedState: Array<[K, S]>;
  /** Pending event-time timers as `[key, timestamp]`, in firing order. */
  eventTimers: Array<[K, number]>;
  /** Pending processing-time timers as `[key, timestamp]`, in firing order. */
  processingTimers: Array<[K, number]>;
  /** The watermark; `-Infinity` before the first and in replay mode. */
  currentWatermark: number;
}
