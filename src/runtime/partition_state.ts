/**
 * What one partition of a source subtask holds of event time, for
 * observers (the dashboard).
 *
 * @module
 */

/**
 * One partition of a source subtask as read now: its name, its own
 * watermark (before merging) and whether it counts.
 */
export interface PartitionState {
  /** The partition's name, as the reader calls it. */
  readonly name: string;
  /**
   * The partition's own watermark: `-Infinity` before its first, and
   * `Infinity` once it finished.
   */
  readonly watermark: number;
  /**
   * `"active"`: it counts in the source's minimum; `"idle"`: its
   * generator marked it idle, so it does not; `"finished"`: the reader
   * ended it (or the whole input ended), so it never counts again.
   */
  readonly status: "active" | "idle" | "finished";
}
