// JSON bodies of the `/jobs` routes: JSON has no infinities, so every
// `-Infinity`, `Infinity` (and `NaN`) is sent as a string.

/**
 * JSON with `±Infinity` and `NaN` as strings (JSON would make them `null`),
 * and a bigint (a dead letter's record may hold one) as its digits.
 */
export function stringify(body: unknown): string {
  return JSON.stringify(body, function infinities(_key, value) {
    return (typeof value === "number" && !Number.isFinite(value)) ||
        typeof value === "bigint"
      ? String(value)
      : value;
  });
}

/** A JSON response of `body` (see {@linkcode stringify}). */
export function json(body: unknown, status = 200): Response {
  return new Response(stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}
