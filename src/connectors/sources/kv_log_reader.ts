/**
 * The reader of a `KvLogSource`: a source reader that reads in
 * the background, and how a runtime waits for such readers.
 *
 * @module
 */

import type { SourceReader } from "../../runtime/source.ts";

/**
 * A {@linkcode SourceReader} that reads in the background: it can be waited
 * on, and must be closed (or finished) before its Deno KV is closed.
 *
 * @typeParam T The record type.
 */
export interface KvLogReader<T> extends SourceReader<T> {
  /**
   * Starts the reads a `poll` would start now, then waits until no read is
   * in flight, so that the next `poll` sees everything they fetched. It
   * never rejects: a failed read is thrown by the next `poll`.
   */
  ready(): Promise<void>;
  /**
   * Stops reading: drops the buffers, starts no read, and waits for the
   * read in flight. `poll` then returns `null`.
   */
  close(): Promise<void>;
}

/**
 * Waits until no source reader among `readers` has a background read in
 * flight; readers without a `ready()` method count as ready. A runtime on
 * a simulated clock calls it before moving time forward, so that a
 * reader's data arrives at the same simulated time in every run.
 *
 * @param readers The readers, any kind.
 * @returns A promise that resolves when they are all ready.
 *
 * @example Waiting for a reader that has nothing to fetch
 * ```ts
 * import { CollectionSource, waitForSources } from "../mod.ts";
 *
 * await waitForSources([new CollectionSource([1]).createReader(0, 1)]);
 * ```
 */
export async function waitForSources(
  readers: Iterable<SourceReader<unknown>>,
): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const reader of readers) {
    const ready = (reader as Partial<KvLogReader<unknown>>).ready;
    if (typeof ready === "function") waits.push(ready.call(reader));
  }
  await Promise.all(waits);
}
