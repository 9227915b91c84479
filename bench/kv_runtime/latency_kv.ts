// A Deno.Kv that is far away: every call the runtime makes (get, getMany,
// a page of list, an atomic commit, enqueue, a change a watch delivers)
// takes `ms` more, half before it reaches the database and half after, as
// a network round trip to Deno Deploy's KV would. For the benchmark only.

/** Waits `ms` milliseconds (none for 0). */
function delay(ms: number): Promise<void> {
  return ms <= 0
    ? Promise.resolve()
    : new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `call` as a round trip of `ms`: half there, half back. */
async function roundTrip<T>(ms: number, call: () => Promise<T>): Promise<T> {
  await delay(ms / 2);
  try {
    return await call();
  } finally {
    await delay(ms / 2);
  }
}

/** An atomic operation whose commit is a round trip of `ms`. */
function slowAtomic(
  op: Deno.AtomicOperation,
  ms: number,
): Deno.AtomicOperation {
  const proxy: Deno.AtomicOperation = new Proxy(op, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      if (name === "commit") {
        return () => roundTrip(ms, () => target.commit());
      }
      // check, set, delete, sum, ...: chained on the proxy.
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}

/** A list whose every page (its `batchSize` entries) is a round trip. */
function slowList<T>(
  list: Deno.KvListIterator<T>,
  ms: number,
  pageSize: number,
): Deno.KvListIterator<T> {
  let read = 0;
  const next = async (): Promise<IteratorResult<Deno.KvEntry<T>>> => {
    if (read++ % pageSize === 0) await delay(ms);
    return list.next();
  };
  const iterator = {
    next,
    get cursor() {
      return list.cursor;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator as unknown as Deno.KvListIterator<T>;
}

/** A watch whose every change arrives a round trip late. */
function slowWatch(
  stream: ReadableStream<Deno.KvEntryMaybe<unknown>[]>,
  ms: number,
): ReadableStream<Deno.KvEntryMaybe<unknown>[]> {
  return stream.pipeThrough(
    new TransformStream({
      async transform(chunk, controller) {
        await delay(ms);
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * `kv`, with `ms` added to every call (see the file's head); `kv` itself
 * for 0.
 */
export function withLatency(kv: Deno.Kv, ms: number): Deno.Kv {
  if (ms <= 0) return kv;
  return new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      switch (name) {
        case "get":
        case "getMany":
        case "set":
        case "delete":
        case "enqueue":
          return (...args: unknown[]) =>
            roundTrip(ms, () => value.apply(target, args));
        case "atomic":
          return () => slowAtomic(target.atomic(), ms);
        case "list":
          return (
            selector: Deno.KvListSelector,
            options?: Deno.KvListOptions,
          ) =>
            slowList(
              target.list(selector, options),
              ms,
              // Deno KV's own page size for a list.
              options?.batchSize ?? Math.min(options?.limit ?? 100, 500),
            );
        case "watch":
          return (...args: unknown[]) =>
            slowWatch(value.apply(target, args), ms);
        default:
          return value.bind(target);
      }
    },
  });
}

/** What a process's KV calls came to (see {@linkcode countCalls}). */
export interface CallCounts {
  /** Calls of every kind, by method. */
  calls: Record<string, number>;
  /** Atomic commits that failed a check (`ok: false`). */
  conflicts: number;
  /** Calls that threw (e.g. SQLite's "database is locked"), retried by weir. */
  errors: number;
  /** How many threw each message. */
  messages: Record<string, number>;
}

/** `kv`, counting its calls and its commits that failed a check in `counts`. */
export function countCalls(kv: Deno.Kv, counts: CallCounts): Deno.Kv {
  const count = (name: string) => {
    counts.calls[name] = (counts.calls[name] ?? 0) + 1;
  };
  const failed = (error: unknown) => {
    counts.errors++;
    const message = error instanceof Error ? error.message : String(error);
    counts.messages[message] = (counts.messages[message] ?? 0) + 1;
    throw error;
  };
  // Chained calls return the wrapper, so that its commit is counted.
  const countCommits = (op: Deno.AtomicOperation): Deno.AtomicOperation => {
    const wrapper: Deno.AtomicOperation = new Proxy(op, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (typeof value !== "function") return value;
        if (name === "commit") {
          return async () => {
            count("commit");
            const result = await target.commit().catch(failed);
            if (!result.ok) counts.conflicts++;
            return result;
          };
        }
        return (...args: unknown[]) => {
          const result = value.apply(target, args);
          return result === target ? wrapper : result;
        };
      },
    });
    return wrapper;
  };
  return new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      if (name === "atomic") {
        return () => countCommits(target.atomic());
      }
      return (...args: unknown[]) => {
        count(String(name));
        const result = value.apply(target, args);
        return result instanceof Promise ? result.catch(failed) : result;
      };
    },
  });
}

/** The environment variable a worker process reads its latency from. */
export const LATENCY_ENV = "WEIR_BENCH_KV_LATENCY_MS";

/**
 * Makes every `Deno.openKv` of this process return a KV with the latency
 * that `WEIR_BENCH_KV_LATENCY_MS` says, counting its calls, and prints the
 * counts on exit (a worker process of the benchmark preloads
 * `latency_preload.ts`, which calls this).
 */
export function patchOpenKv(): void {
  const ms = Number(Deno.env.get(LATENCY_ENV) ?? "0");
  const counts: CallCounts = {
    calls: {},
    conflicts: 0,
    errors: 0,
    messages: {},
  };
  const open = Deno.openKv;
  // A getter on `Deno`, configurable: replaced by a value.
  Object.defineProperty(Deno, "openKv", {
    value: async (path?: string) =>
      countCalls(withLatency(await open(path), ms), counts),
    configurable: true,
  });
  // What the benchmark reports about the process arms.
  globalThis.addEventListener("unload", () => {
    console.error(`${COUNTS_LINE}${JSON.stringify(counts)}`);
  });
}

/** How a worker process's line of {@linkcode CallCounts} starts. */
export const COUNTS_LINE = "weir-bench kv calls: ";
