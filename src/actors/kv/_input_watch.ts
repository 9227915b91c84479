// A KV-runtime worker's watch on the actors next to its own: on a database
// shared across instances (Deploy), a commit upstream (input) or
// downstream (room, entries to delete) by another worker wakes the loop at
// once instead of at the next poll. At most 10 keys (Deno KV's limit per
// watch); the rest is polled.

import type { KvWorker } from "./_worker.ts";

/** The watch on the meta entries of the neighbours of owned actors. */
export class InputWatch {
  readonly #worker: KvWorker;
  readonly #wake: () => void;
  #reader: ReadableStreamDefaultReader<unknown> | null = null;
  #watched = "";

  /**
   * @param worker The worker whose actors' neighbours are watched.
   * @param wake Called when one of them committed.
   */
  constructor(worker: KvWorker, wake: () => void) {
    this.#worker = worker;
    this.#wake = wake;
  }

  /**
   * Watches the producers and consumers of owned actors that other workers
   * run, as they are now; keeps the watch if they did not change. None
   * under a simulated clock: every round polls.
   */
  update(): void {
    const worker = this.#worker;
    if (worker.idleClock.simulated) return;
    const { live } = worker;
    // Producers (new entries to read) and consumers (entries they applied:
    // room to write, entries to delete) that other workers run.
    const others = new Set<string>();
    for (const actor of live.values()) {
      for (const input of actor.wiring.inputs) {
        if (!live.has(input.producer)) others.add(input.producer);
      }
      for (const output of actor.wiring.outputs) {
        if (!live.has(output.consumer)) others.add(output.consumer);
      }
    }
    const keys = [...others].sort().slice(0, 10);
    const signature = keys.join("\n");
    if (signature === this.#watched) return;
    this.#watched = signature;
    void this.#reader?.cancel().catch(() => {});
    this.#reader = null;
    if (keys.length === 0) return;
    const stream = worker.kv.watch(
      keys.map((id) => [...worker.base, "a", id, "v", "meta"]),
    );
    const reader = stream.getReader();
    this.#reader = reader;
    (async () => {
      try {
        for (;;) {
          const { done } = await reader.read();
          if (done) return;
          for (const actor of live.values()) actor.dirty = true;
          this.#wake();
        }
      } catch {
        // The watch ends when the database closes; polling remains.
      }
    })();
  }

  /** Ends the watch. */
  async cancel(): Promise<void> {
    const reader = this.#reader;
    this.#reader = null;
    this.#watched = "";
    await reader?.cancel().catch(() => {});
  }
}
