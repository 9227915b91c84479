// Shared by the Deno KV connector tests: a test on a fresh in-memory KV with
// the op and resource sanitizers on, and a KV that can fail a commit.

/**
 * Runs `fn` on a fresh `:memory:` Deno KV, closed afterwards, with the op
 * and resource sanitizers on: a background read or commit still running at
 * the end fails the test.
 */
export function kvTest(
  name: string,
  fn: (kv: Deno.Kv) => void | Promise<void>,
): void {
  Deno.test({
    name,
    sanitizeOps: true,
    sanitizeResources: true,
    async fn() {
      const kv = await Deno.openKv(":memory:");
      try {
        await fn(kv);
      } finally {
        kv.close();
      }
    },
  });
}

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

/** Counts the entries under `prefix`. */
export async function countUnder(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}
