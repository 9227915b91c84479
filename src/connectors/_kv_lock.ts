// An in-process lock per (Deno.Kv handle, name): appends to one log through
// one handle take turns instead of racing for the same heads, so they never
// need the retries that only appenders in other processes (or on other
// handles) still need.

// Per handle, per name: the tail of the queue of holders. A handle that is
// garbage collected takes its queues with it.
const queues = new WeakMap<Deno.Kv, Map<string, Promise<void>>>();

/**
 * Runs `fn` once every earlier `withKvLock(kv, name, ...)` call has
 * settled, and returns what it returns. Holders run one at a time, in the
 * order they asked; one that throws releases the lock all the same.
 */
export async function withKvLock<T>(
  kv: Deno.Kv,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  let byName = queues.get(kv);
  if (byName === undefined) {
    byName = new Map();
    queues.set(kv, byName);
  }
  const previous = byName.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => release = resolve);
  const tail = previous.then(() => mine);
  byName.set(name, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    // The last holder leaves no entry behind.
    if (byName.get(name) === tail) byName.delete(name);
  }
}
