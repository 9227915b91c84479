/**
 * What the dashboard's server-rendered parts share: escaping, and the
 * formatters of times, watermarks, durations and sizes. Each has a twin
 * in `dashboard.js`, which redraws the same markup from JSON: change both
 * together.
 *
 * @module
 */

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Epoch milliseconds as an ISO time, or the number when it is no time
 * (its twin is `time()` in the script).
 */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}

/**
 * A watermark cell's content: its ISO time over its epoch milliseconds, or
 * a note before the first and after the last watermark.
 */
export function watermarkHtml(ms: number): string {
  if (ms === -Infinity) return `<span class="none">none yet</span>`;
  if (ms === Infinity) return `<span class="none">end of input</span>`;
  if (!Number.isFinite(ms)) return "&#8212;";
  return `${formatTime(ms)}<small>${ms}</small>`;
}

/** A duration as the dashboard shows it: "250 ms", "1.500 s", or a dash. */
export function durationText(ms: number): string {
  if (!Number.isFinite(ms)) return "&#8212;";
  if (Math.abs(ms) < 1_000) return `${Math.round(ms)} ms`;
  return `${(ms / 1_000).toFixed(3)} s`;
}

/** A size in bytes, KiB or MiB. */
export function bytesText(n: number): string {
  if (n < 1_024) return `${n} B`;
  if (n < 1_048_576) return `${(n / 1_024).toFixed(1)} KiB`;
  return `${(n / 1_048_576).toFixed(1)} MiB`;
}
