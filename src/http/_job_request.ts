// Reading a `/jobs` request: the job named in the path, and the query
// parameters of its routes, checked (400 BAD_REQUEST, 404 NOT_FOUND).

import type { Context } from "hono";
import { HttpError } from "./errors.ts";
import type { ExplainQuery } from "../observe/explain_report.ts";
import { oldestOpenWindow } from "../observe/oldest_open_window.ts";
import {
  DEFAULT_HEALTH_THRESHOLDS,
  type HealthThresholds,
} from "../observe/health_thresholds.ts";
import type { JobHandle } from "../observe/job_handle.ts";
import type { ServiceOptions } from "./service.ts";

/** The handle of the job named in the path, or a 404. */
export function jobOf(options: ServiceOptions, c: Context): JobHandle {
  const name = c.req.param("job") ?? "";
  const handle = options.jobs.get(name);
  if (handle === undefined) {
    const known = [...options.jobs.keys()].map((n) => `'${n}'`).join(", ");
    throw new HttpError(
      "NOT_FOUND",
      `Cannot find job '${name}' as it must be one of the running jobs: ${
        known || "none is running"
      }`,
    );
  }
  return handle;
}

/** Reads and checks the explain query. */
export function explainQuery(
  c: Context,
  handle: JobHandle,
  options: ServiceOptions,
): ExplainQuery {
  const ids = handle.graph.vertices.map((v) => v.id);
  let operator = c.req.query("operator");
  if (operator === undefined) {
    const windows = ids.filter((id) => id.startsWith("window"));
    if (windows.length !== 1) {
      throw new HttpError(
        "BAD_REQUEST",
        `Cannot explain as 'operator' must name the window operator, one of ${
          ids.join(", ")
        }: current value is missing`,
      );
    }
    operator = windows[0];
  } else if (!ids.includes(operator)) {
    throw new HttpError(
      "NOT_FOUND",
      `Cannot explain as 'operator' must name an operator of job '${handle.name}', one of ${
        ids.join(", ")
      }: current value is "${operator}"`,
    );
  }
  const size = optionalInteger(c, "size");
  let windowStart = optionalInteger(c, "window");
  let windowEnd = optionalInteger(c, "end") ?? null;
  if (windowStart === undefined) {
    const open = oldestOpenWindow(handle, operator, size);
    if (open === null) {
      throw new HttpError(
        "BAD_REQUEST",
        `Cannot explain as 'window' must be the window's start in epoch milliseconds: current value is missing, and the oldest open window is unknown (no watermark yet, or the operator's windows have no fixed size); pass 'window' and 'size'`,
      );
    }
    windowStart = open.start;
    windowEnd = open.end;
  }
  if (size !== undefined) windowEnd = windowStart + size;
  const fixed = handle.graph.vertices.find((v) => v.id === operator)
    ?.windowSizeMs;
  if (windowEnd === null && fixed !== undefined) {
    windowEnd = windowStart + fixed;
  }
  if (windowEnd !== null && windowEnd <= windowStart) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot explain as the window's end must be after its start ${windowStart}: current value is ${windowEnd}`,
    );
  }
  const stallMs = optionalInteger(c, "stallMs") ?? 10_000;
  const raw = c.req.query("key");
  return {
    operator,
    windowStart,
    windowEnd,
    key: raw === undefined ? undefined : parseKey(raw),
    stallMs: Math.max(0, stallMs),
    now: options.clock.now(),
  };
}

/** Threshold overrides from the query: non-negative finite numbers. */
export function healthThresholds(c: Context): Partial<HealthThresholds> {
  const overrides: Record<string, number> = {};
  for (const name of Object.keys(DEFAULT_HEALTH_THRESHOLDS)) {
    const raw = c.req.query(name);
    if (raw === undefined) continue;
    const value = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(value) || value < 0) {
      throw new HttpError(
        "BAD_REQUEST",
        `Cannot compute job health as '${name}' must be a non-negative number: current value is "${raw}"`,
      );
    }
    overrides[name] = value;
  }
  return overrides;
}

/** A key from the query: JSON when it is a JSON number, string or boolean. */
function parseKey(raw: string): string | number | boolean {
  try {
    const value: unknown = JSON.parse(raw);
    if (
      typeof value === "string" || typeof value === "boolean" ||
      (typeof value === "number" && Number.isFinite(value))
    ) return value;
  } catch {
    // Not JSON: the key is the text itself.
  }
  return raw;
}

/** A query parameter that must be a safe integer when present. */
export function optionalInteger(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isSafeInteger(value)) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot read the query as '${name}' must be an integer: current value is "${raw}"`,
    );
  }
  return value;
}
