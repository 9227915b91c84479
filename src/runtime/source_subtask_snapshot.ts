/**
 * A source subtask's state at a checkpoint, as plain data.
 *
 * @module
 */

import type {
  WatermarkEmitterSnapshot,
  WatermarkOutputMultiplexerSnapshot,
} from "../time/mod.ts";
import type { SubtaskSnapshot } from "./subtask_snapshot.ts";

/** A source subtask's state at a checkpoint, as plain data. */
export interface SourceSubtaskSnapshot {
  /** The reader's positions: the first record after the barrier. */
  readonly reader: unknown;
  /** Each partition generator's state, in persist mode only. */
  readonly generators?: unknown[];
  /** The emitted watermark and idleness, in persist mode only. */
  readonly emitter?: WatermarkEmitterSnapshot;
  /**
   * The partitions' watermarks and idleness as merged, in persist mode
   * only: what a partition that speaks no more (idle, or one whose
   * generator emits only on records) holds after a restore.
   */
  readonly multiplexer?: WatermarkOutputMultiplexerSnapshot;
  /**
   * When the next periodic emission is due, in processing time
   * (milliseconds; `Infinity` for none), in persist mode only (persist snapshots the periodic-emission schedule).
   */
  readonly nextPeriodicMs?: number;
  /**
   * The partitions that ended and whose watermark outputs were released,
   * by name, in persist mode only (replay mode learns them again from the
   * reader).
   */
  readonly released?: string[];
  /**
   * Watermark alignment as the runtime left it, in persist mode only: the
   * announced limit and when the next announcement is due.
   */
  readonly alignment?: {
    readonly maxDesiredWatermark: number;
    readonly nextAnnouncementMs: number;
  };
  /**
   * How many records each partition had given, by partition name, in both
   * recovery modes: dead letters' positions (`"partition p-0, offset 17"`)
   * and ids count from it, so a restored source names a record as the one
   * before did. Absent in snapshots of older versions: offsets then count
   * from the restore.
   */
  readonly offsets?: Readonly<Record<string, number>>;
  /** The chained operators' state. */
  readonly chain: SubtaskSnapshot;
}
