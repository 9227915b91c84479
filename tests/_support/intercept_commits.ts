// A Deno.Kv wrapper for crash tests: it forwards to a real database and
// runs a hook before each atomic commit.

/**
 * A Deno.Kv that forwards to a real one and runs `beforeCommit(n)` before
 * its n-th atomic commit (from 1), which may throw to simulate a crash or
 * read what is visible at that moment.
 */
export function interceptCommits(
  kv: Deno.Kv,
  beforeCommit: (n: number) => Promise<void> | void,
): Deno.Kv {
  let commits = 0;
  return {
    get: (key: Deno.KvKey) => kv.get(key),
    getMany: (keys: Deno.KvKey[]) => kv.getMany(keys),
    list: (selector: Deno.KvListSelector, options?: Deno.KvListOptions) =>
      kv.list(selector, options),
    atomic() {
      const op = kv.atomic();
      const wrapper = {
        check(...checks: Deno.AtomicCheck[]) {
          op.check(...checks);
          return wrapper;
        },
        set(key: Deno.KvKey, value: unknown) {
          op.set(key, value);
          return wrapper;
        },
        delete(key: Deno.KvKey) {
          op.delete(key);
          return wrapper;
        },
        async commit() {
          await beforeCommit(++commits);
          return op.commit();
        },
      };
      return wrapper;
    },
  } as unknown as Deno.Kv;
}
