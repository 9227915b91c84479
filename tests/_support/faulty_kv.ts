// A Deno.Kv that forwards to a real one and lets a test decide what each
// commit and read does: go through, fail unsent (SQLite's lock), land and
// then lose its answer (a timeout of a remote database), or be held and
// sent later (a commit still in flight after its caller gave up).

/** A commit as the hook sees it. */
export interface HeldCommit {
  /** Its number, from 1. */
  readonly n: number;
  /** The keys it sets or deletes, in order. */
  readonly keys: readonly Deno.KvKey[];
  /** Sends it to the real database. */
  send(): Promise<Deno.KvCommitResult | Deno.KvCommitError>;
}

/** What {@linkcode faultyKv} does with each commit and read. */
export interface Faults {
  /**
   * Runs the commit: by default `commit.send()`. It may throw instead,
   * before or after sending, or keep `send` for later.
   */
  readonly commit?: (
    commit: HeldCommit,
  ) => Promise<Deno.KvCommitResult | Deno.KvCommitError>;
  /** Runs before the n-th read (`get`, `getMany`, `list`), from 1; may throw. */
  readonly read?: (n: number) => void;
}

/** Whether a commit is a KvLog's final one: it bumps the sequence key. */
export function isFinal(commit: HeldCommit): boolean {
  return commit.keys.some((key) => key.at(-1) === "seq");
}

/** A Deno.Kv forwarding to `kv` whose commits and reads `faults` runs. */
export function faultyKv(kv: Deno.Kv, faults: Faults): Deno.Kv {
  let commits = 0;
  let reads = 0;
  const read = () => faults.read?.(++reads);
  const wrapper = {
    get(key: Deno.KvKey) {
      read();
      return kv.get(key);
    },
    getMany(keys: Deno.KvKey[]) {
      read();
      return kv.getMany(keys);
    },
    list(selector: Deno.KvListSelector, options?: Deno.KvListOptions) {
      read();
      return kv.list(selector, options);
    },
    atomic() {
      const op = kv.atomic();
      const keys: Deno.KvKey[] = [];
      const atomic = {
        check(...checks: Deno.AtomicCheck[]) {
          op.check(...checks);
          return atomic;
        },
        set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
          keys.push(key);
          op.set(key, value, options);
          return atomic;
        },
        delete(key: Deno.KvKey) {
          keys.push(key);
          op.delete(key);
          return atomic;
        },
        commit() {
          const held = { n: ++commits, keys, send: () => op.commit() };
          return faults.commit === undefined
            ? held.send()
            : faults.commit(held);
        },
      };
      return atomic;
    },
  };
  return wrapper as unknown as Deno.Kv;
}
