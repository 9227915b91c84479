// Saturation of event-time arithmetic at the ends of the safe range. Every safe integer is a valid timestamp,
// so `maxTimestamp - bound - 1` can leave the safe range; Flink's longs have
// the same edge and guard it (BoundedOutOfOrdernessWatermarks starts at
// `Long.MIN_VALUE + bound + 1`), and weir guards it here.

import { MIN_WATERMARK } from "./constants.ts";

/**
 * Saturates a watermark computed from timestamps into a valid watermark (a
 * safe integer or an infinity); returns any other value unchanged, `NaN`
 * included.
 *
 * A watermark `w` claims that no record at or below `w` follows, so a
 * saturated one must not claim more than the exact value did:
 *
 * - below `Number.MIN_SAFE_INTEGER` it becomes {@linkcode MIN_WATERMARK}
 *   (`-Infinity`, "nothing known yet"), as Flink's stays at
 *   `Long.MIN_VALUE`: `MIN_SAFE_INTEGER` itself would already make a record
 *   at that timestamp late, though the bound allows it;
 * - above `Number.MAX_SAFE_INTEGER` (only a user's generator gets there) it
 *   becomes `MAX_SAFE_INTEGER`, which covers every valid timestamp without
 *   claiming the end of input that `Infinity` stands for.
 *
 * Cost: two comparisons; called per emitted watermark, not per record.
 *
 * @param watermark The computed watermark.
 * @returns The watermark, saturated.
 */
export function saturateWatermark(watermark: number): number {
  if (watermark < Number.MIN_SAFE_INTEGER) return MIN_WATERMARK;
  if (watermark > Number.MAX_SAFE_INTEGER && watermark !== Infinity) {
    return Number.MAX_SAFE_INTEGER;
  }
  return watermark;
}
