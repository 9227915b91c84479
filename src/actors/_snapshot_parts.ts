// Snapshot parts: a snapshot keeps large groups of operator state apart
// from its payload, each stored under its own key (incremental
// checkpoints), and a placeholder in their place; a part whose rows share
// their fields is stored as a table of columns. Shared by the encoders of
// both runtimes, Encoded.decode() and CheckpointStore's reads.

// A snapshot keeps large, separately stored arrays out of its payload: in
// their place it holds `{ [PARTS]: [i, j, ...] }`, which stands for the
// concatenation of parts i, j, ... of its Encoded (or of its stored parts).
const PARTS = "weir:parts";

/**
 * The placeholder for the concatenation of parts `indices`.
 *
 * @param indices Indices into the snapshot's parts, in order.
 * @returns A small plain object to store in their place.
 */
export function partsPlaceholder(indices: readonly number[]): unknown {
  return { [PARTS]: indices };
}

/**
 * Replaces every placeholder in `value` (found in plain objects and arrays,
 * not inside the parts themselves) by the concatenation of its parts.
 *
 * @param value A decoded snapshot.
 * @param parts Its decoded parts, each an array.
 * @returns `value`, changed in place (or the concatenation, if `value` is a
 * placeholder).
 * @throws {RangeError} If a placeholder names a part that is not there or
 * is not an array.
 */
export function fillParts(value: unknown, parts: readonly unknown[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  const top = placeholderIndices(value);
  if (top !== null) return concatParts(top, parts);
  // Iterative, so that deeply nested operator state cannot overflow the stack.
  const pending: object[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const container = next as Record<string | number, unknown>;
    const keys: Iterable<string | number> = Array.isArray(container)
      ? container.keys()
      : Object.getPrototypeOf(container) === Object.prototype
      ? Object.keys(container)
      : [];
    for (const key of keys) {
      const item = container[key];
      if (typeof item !== "object" || item === null) continue;
      const indices = placeholderIndices(item);
      if (indices !== null) container[key] = concatParts(indices, parts);
      else pending.push(item);
    }
  }
  return value;
}

function concatParts(
  indices: readonly number[],
  parts: readonly unknown[],
): unknown[] {
  return indices.flatMap((i) => {
    const rows = partRows(parts[i]);
    if (rows === null) {
      throw new RangeError(
        `Cannot decode a snapshot as its part ${i} must be an array or a table: current value is ${typeof parts[
          i
        ]}`,
      );
    }
    return rows;
  });
}

// A part whose items are plain objects with the same fields is stored as a
// table: one column per field, and a column of numbers as a Float64Array,
// which V8 serialises as raw bytes (window slots: ids, starts, ends and
// often their contents are numbers; about twice as fast to encode).
const TABLE = "weir:table";

/**
 * A part in the form to encode it in: `rows` as a table when every row is
 * a plain object with the same fields in the same order, else `rows`.
 *
 * @param rows A group of operator state.
 * @returns The rows, or their table.
 */
export function partForm(rows: readonly unknown[]): unknown {
  if (rows.length < 2) return rows;
  const first = rows[0];
  if (!isPlainObject(first)) return rows;
  const fields = Object.keys(first);
  const columns: unknown[][] = fields.map(() => new Array(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (!isPlainObject(row)) return rows;
    const keys = Object.keys(row);
    if (keys.length !== fields.length) return rows;
    for (let f = 0; f < fields.length; f++) {
      if (keys[f] !== fields[f]) return rows;
      columns[f][r] = (row as Record<string, unknown>)[fields[f]];
    }
  }
  return {
    [TABLE]: fields,
    columns: columns.map((column) =>
      column.every((v) => typeof v === "number")
        ? Float64Array.from(column as number[])
        : column
    ),
  };
}

/**
 * The rows of a stored part: the part itself if it is an array, the rows of
 * its table if it is one, else `null`.
 *
 * @param part A decoded part.
 * @returns Its rows, or `null` if it is neither.
 */
export function partRows(part: unknown): unknown[] | null {
  if (Array.isArray(part)) return part;
  if (!isPlainObject(part) || !Object.hasOwn(part, TABLE)) return null;
  const fields = (part as Record<string, unknown>)[TABLE];
  const columns = (part as { columns?: unknown }).columns;
  if (
    !Array.isArray(fields) || !Array.isArray(columns) ||
    columns.length !== fields.length || columns.length === 0
  ) return null;
  const length = (columns[0] as ArrayLike<unknown>).length;
  if (
    columns.some((c) =>
      !(Array.isArray(c) || c instanceof Float64Array) || c.length !== length
    )
  ) return null;
  const rows = new Array<Record<string, unknown>>(length);
  for (let r = 0; r < length; r++) {
    const row: Record<string, unknown> = {};
    for (let f = 0; f < fields.length; f++) row[fields[f]] = columns[f][r];
    rows[r] = row;
  }
  return rows;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === "object" && value !== null &&
    Object.getPrototypeOf(value) === Object.prototype;
}

function placeholderIndices(value: object): number[] | null {
  if (!Object.hasOwn(value, PARTS)) return null;
  const indices = (value as Record<string, unknown>)[PARTS];
  return Array.isArray(indices) && Object.keys(value).length === 1
    ? indices
    : null;
}
