/**
 * What the dashboard's server-rendered parts share: escaping and times.
 *
 * @module
 */

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Epoch milliseconds as an ISO time, or the number when it is no time
 * (its twin `time()` is in the dashboard's script).
 */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
