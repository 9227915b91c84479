// A hand-written two-phase sink over an "external system" that outlives a
// crashed runtime: records become visible only when their checkpoint
// completes, and committing a transaction twice does not duplicate it.

import type { Sink, SinkWriter } from "../../src/runtime/sink.ts";

type Transaction = { subtask: number; checkpointId: number; values: unknown[] };

/** The external system: committed transactions, keyed so commits are idempotent. */
export class ExternalTable<T> {
  readonly #committed = new Map<string, T[]>();

  /** Commits a transaction; a repeat of the same (subtask, checkpoint) is ignored. */
  commit(tx: Transaction): void {
    const key = `${tx.subtask}/${tx.checkpointId}`;
    if (!this.#committed.has(key)) this.#committed.set(key, tx.values as T[]);
  }

  /** Every committed record, sorted by its string form (order-independent comparison). */
  rows(): string[] {
    return [...this.#committed.values()].flat().map((v) => JSON.stringify(v))
      .sort();
  }
}

/** A sink whose writers stage records and commit them per checkpoint. */
export function twoPhaseSink<T>(table: ExternalTable<T>): Sink<T> {
  return {
    name: "two-phase",
    createWriter(subtask): SinkWriter<T> {
      let staged: T[] = [];
      let pending: Transaction[] = [];
      return {
        write(values) {
          staged.push(...values);
        },
        snapshotState(checkpointId) {
          pending.push({ subtask, checkpointId, values: staged });
          staged = [];
          return pending.map((tx) => ({ ...tx, values: [...tx.values] }));
        },
        commit(checkpointId) {
          for (const tx of pending) {
            if (tx.checkpointId <= checkpointId) table.commit(tx);
          }
          pending = pending.filter((tx) => tx.checkpointId > checkpointId);
        },
        restoreState(state) {
          pending = state as Transaction[];
          staged = [];
        },
        finish() {
          pending.push({
            subtask,
            checkpointId: Number.MAX_SAFE_INTEGER,
            values: staged,
          });
          staged = [];
          for (const tx of pending) table.commit(tx);
          pending = [];
        },
      };
    },
  };
}
