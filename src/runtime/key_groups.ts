/**
 * Keys to key groups to subtasks, so keyed state can be redistributed when
 * the parallelism changes (Flink's `KeyGroupRangeAssignment`).
 *
 * @module
 */

/** The default number of key groups: the largest parallelism a job can be rescaled to. */
export const DEFAULT_MAX_PARALLELISM = 128;

/**
 * A 32-bit hash of a key: FNV-1a over the UTF-16 code units of strings,
 * integer mixing for numbers. Stable across processes and runs, so the same
 * key always lands in the same key group.
 *
 * @param key A string, number, boolean or bigint key.
 * @returns An unsigned 32-bit hash.
 * @throws {TypeError} If the key is of another type (objects need a string key).
 */
export function hashKey(key: unknown): number {
  // The usual key, an integer of 31 bits and a sign, first and small
  // enough to inline: the switch below costs several times the mixing.
  if (typeof key === "number" && (key | 0) === key && key !== -0x80000000) {
    return fmix32(key);
  }
  return hashOther(key);
}

function hashOther(key: unknown): number {
  switch (typeof key) {
    case "string": {
      let hash = 0x811c9dc5;
      for (let i = 0; i < key.length; i++) {
        hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
      }
      return fmix32(hash);
    }
    case "number":
      if (Number.isInteger(key) && Math.abs(key) <= 0x7fffffff) {
        return fmix32(key | 0);
      }
      return hashKey(String(key));
    case "boolean":
      return key ? 1231 : 1237;
    case "bigint":
      return hashKey(key.toString());
    default:
      throw new TypeError(
        `Cannot hash key as it must be a string, number, boolean or bigint: current value is of type ${
          key === null ? "null" : typeof key
        } (return one of those from the key selector, e.g. a string built from the fields)`,
      );
  }
}

// Murmur3's finaliser: spreads nearby keys (1, 2, 3...) over all groups.
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The key group of a key.
 *
 * @param key The key.
 * @param maxParallelism The number of key groups.
 * @returns A key group in `[0, maxParallelism)`.
 */
export function keyGroupOf(key: unknown, maxParallelism: number): number {
  const hash = hashKey(key);
  // Both sides as unsigned 32-bit integers where they are, so the optimiser
  // divides integers: a hash above 2^31 is no small integer, and a modulo
  // of doubles is a call per record.
  return maxParallelism === maxParallelism >>> 0
    ? (hash >>> 0) % (maxParallelism >>> 0)
    : hash % maxParallelism;
}

/**
 * The subtask that owns a key group: contiguous ranges of key groups per
 * subtask, as in Flink, so rescaling moves whole ranges.
 *
 * @param keyGroup The key group.
 * @param maxParallelism The number of key groups.
 * @param parallelism The number of subtasks.
 * @returns The subtask index in `[0, parallelism)`.
 */
export function subtaskForKeyGroup(
  keyGroup: number,
  maxParallelism: number,
  parallelism: number,
): number {
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}
