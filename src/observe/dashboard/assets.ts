/**
 * The dashboard's static files, `dashboard.css`, `dashboard.js` (drawing)
 * and `dashboard_live.js` (live updates from the event stream), read
 * once beside this module and kept.
 *
 * They are read with `fetch` from this module's URL, so they load the same
 * from a local checkout (`file:`) and when weir is imported by URL
 * (`https:`).
 *
 * @module
 */

/** The dashboard's static files. */
export type DashboardAsset =
  | "dashboard.css"
  | "dashboard.js"
  | "dashboard_live.js";

// The text of each file, read at the first request; a failed read is
// forgotten so that the next request tries again.
const cache = new Map<DashboardAsset, Promise<string>>();

// Literal specifiers, so that tools which follow `new URL(..., import.meta.url)`
// (deno compile's --include, bundlers) see both files.
const URLS: Readonly<Record<DashboardAsset, URL>> = {
  "dashboard.css": new URL("./dashboard.css", import.meta.url),
  "dashboard.js": new URL("./dashboard.js", import.meta.url),
  "dashboard_live.js": new URL("./dashboard_live.js", import.meta.url),
};

/**
 * The text of one of the dashboard's static files, read at the first call
 * and kept.
 *
 * @param name The file.
 * @returns Its text.
 * @throws {Error} If the file cannot be read (e.g. no read permission for
 * a local checkout).
 */
export function dashboardAsset(name: DashboardAsset): Promise<string> {
  let text = cache.get(name);
  if (text === undefined) {
    text = read(name);
    cache.set(name, text);
    text.catch(() => cache.delete(name));
  }
  return text;
}

async function read(name: DashboardAsset): Promise<string> {
  const url = URLS[name];
  const response = await fetch(url);
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(
      `Cannot read the dashboard's '${name}' from ${url.href}: ${response.status} ${response.statusText}`,
    );
  }
  return await response.text();
}
