// A Deno.Kv that forwards to a real one and records what commits do: each
// commit's outcome and each set with its options (expireIn). A hook before
// each commit may throw (a crash, SQLite's lock) or write first (a race).

/** What {@linkcode observe} saw. */
export interface Observed {
  /** Each commit's outcome: true landed, false a failed check. */
  readonly commits: boolean[];
  /** Each `set` with its options. */
  readonly sets: Array<
    { key: Deno.KvKey; options?: { expireIn?: number } }
  >;
}

/**
 * A Deno.Kv forwarding to `kv` that records commits and sets, and runs
 * `beforeCommit(n)` (which may throw) before the n-th commit, from 1.
 */
export function observe(
  kv: Deno.Kv,
  beforeCommit: (n: number) => Promise<void> | void = () => {},
): { kv: Deno.Kv; seen: Observed } {
  const seen: Observed = { commits: [], sets: [] };
  let n = 0;
  const wrapper = {
    get: (key: Deno.KvKey) => kv.get(key),
    getMany: (keys: Deno.KvKey[]) => kv.getMany(keys),
    list: (s: Deno.KvListSelector, o?: Deno.KvListOptions) => kv.list(s, o),
    atomic() {
      const op = kv.atomic();
      const atomic = {
        check(...checks: Deno.AtomicCheck[]) {
          op.check(...checks);
          return atomic;
        },
        set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
          seen.sets.push({ key, options });
          op.set(key, value, options);
          return atomic;
        },
        delete(key: Deno.KvKey) {
          op.delete(key);
          return atomic;
        },
        async commit() {
          await beforeCommit(++n);
          const result = await op.commit();
          seen.commits.push(result.ok);
          return result;
        },
      };
      return atomic;
    },
  };
  return { kv: wrapper as unknown as Deno.Kv, seen };
}
