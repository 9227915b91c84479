/**
 * Numbers for people, as the diagnosis and `explain` write them in their
 * evidence and advice: watermarks with their UTC time, durations in ms or s.
 *
 * @module
 */

/**
 * A watermark for people: the number and, when finite, its UTC time.
 *
 * @param watermark Epoch milliseconds, or `±Infinity`.
 * @returns E.g. `1700000000000 (2023-11-14T22:13:20.000Z)` or `-Infinity`.
 */
export function formatWatermark(watermark: number): string {
  if (watermark === -Infinity) return "-Infinity";
  if (watermark === Infinity) return "+Infinity";
  const date = new Date(watermark);
  return Number.isNaN(date.getTime())
    ? String(watermark)
    : `${watermark} (${date.toISOString()})`;
}

/**
 * A duration for people: "250 ms", "40 s", "1.5 s".
 *
 * @param ms Milliseconds.
 * @returns The text; "forever" for `Infinity`.
 */
export function formatDuration(ms: number): string {
  if (ms === Infinity) return "forever";
  if (Math.abs(ms) < 1_000) return `${ms} ms`;
  return `${Math.round(ms / 100) / 10} s`;
}
