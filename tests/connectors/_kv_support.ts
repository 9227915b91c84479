import { interceptCommits } from "../_support/intercept_commits.ts";
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

/** Counts the entries under `prefix`. */
export async function countUnder(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

export { interceptCommits };
