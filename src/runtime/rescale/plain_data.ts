/**
 * Equality of plain data, field by field: how a rescale tells that the old
 * subtasks' valves, or their sink writers' outputs, are the same.
 *
 * @module
 */

/**
 * Whether two values of plain data (numbers with `±Infinity`, strings,
 * booleans, null, arrays, objects) are equal, field by field.
 *
 * @param a One value.
 * @param b The other.
 * @returns `true` if they hold the same data.
 */
export function samePlainData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    Object.hasOwn(b, k) &&
    samePlainData(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
    )
  );
}
