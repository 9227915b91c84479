/**
 * An append-only output in Deno KV that holds each record exactly once,
 * through a two-phase commit at checkpoints.
 *
 * @module
 */

import {
  describeValue,
  requireIndex,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requirePositiveInteger,
} from "../../time/validate.ts";
import type { Sink, SinkWriter } from "../../runtime/sink.ts";
import {
  batchHeader,
  batchValue,
  decodeBatch,
  type EncodedBatch,
} from "../_kv_batches.ts";
import { commitAll, type KvWrite, type PlainKey as Key } from "../../kv/mod.ts";
import { requireCheckpointId, requireKv, requireName } from "../_kv_checks.ts";
import { packRecords } from "./_kv_append_pack.ts";
import {
  CommitQueue,
  type Refused,
  RefusedRecords,
  restoredTransactions,
} from "./_two_phase_writer.ts";

/** One record of an append-only output, with the transaction that wrote it. */
export interface AppendedRecord<T> {
  /** The record. */
  readonly value: T;
  /** Its event timestamp in epoch milliseconds, as the sink received it. */
  readonly timestamp: number;
  /** The checkpoint whose commit wrote it; `Infinity` for the end of input. */
  readonly checkpointId: number;
  /** The sink subtask that wrote it, from 0. */
  readonly subtask: number;
}

/**
 * Appends records to `name` in Deno KV exactly once, even across failures
 * and restores (Flink's `TwoPhaseCommittingSink`; a Kafka transactional
 * producer in miniature).
 *
 * `write` only stages records in memory. `snapshotState(id)` closes them
 * into transaction `(id, subtask)`, packed into batches of up to 64 KiB,
 * and returns every pending transaction as plain data (their encoded
 * batches, so a restored transaction is written byte for byte as before).
 * `commit(id)` writes every pending transaction up to `id` under
 * `["weir", "append", name, "data", id, subtask, seq]`, then a marker
 * `["weir", "append", name, "txn", id, subtask]` holding its batch count,
 * in commits of at most 1000 mutations and 800 KiB. The keys depend only
 * on the transaction, so committing it twice (a restore, a retry after a
 * failed commit) rewrites the same entries: never a duplicate.
 * {@linkcode readAppendLog} shows a transaction only once its marker is
 * written, so readers see a transaction whole or not at all. `finish()`
 * commits what is staged as the final transaction `(Infinity, subtask)`,
 * with everything still pending.
 *
 * Checkpoint ids name the transactions, and they only grow within a
 * checkpoint store: a job that starts again from no checkpoint, or from
 * an older checkpoint than the last committed one, keeps what the earlier
 * run committed and appends its own transactions after them, as a
 * Kafka transactional producer would (its output after that checkpoint
 * appears twice; give the output a new name, or clear it, to start over
 * clean). One record must encode to at most 64 KiB, Deno KV's value
 * limit. Records are encoded once, when `snapshotState` (or `finish`)
 * packs them: one too large is left out of its transaction and handed to
 * `takeRefused`, from where the job's error policy sets it aside. There is no per-record
 * `check`: it would cost a second encoding of every record.
 *
 * @typeParam T The record type.
 *
 * @example Records appear when the checkpoint commits
 * ```ts
 * import { KvAppendSink, readAppendLog } from "./kv_append.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const writer = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
 * writer.write(["a", "b"], [1_000, 2_000]);
 * writer.snapshotState?.(1);
 * assert.deepEqual(await readAppendLog(kv, "out"), []);
 * await writer.commit?.(1);
 * await writer.commit?.(1); // idempotent
 * const records = await readAppendLog<string>(kv, "out");
 * assert.deepEqual(records.map((r) => r.value), ["a", "b"]);
 * kv.close();
 * ```
 */
export class KvAppendSink<T> implements Sink<T> {
  /** `kv-append:<name>`. */
  readonly name: string;
  /** The output's name, as in its keys. */
  readonly outputName: string;
  readonly #kv: Deno.Kv;

  /**
   * Creates a sink appending to `name`; it does not touch KV yet.
   *
   * @param kv An open Deno KV database; the caller closes it, after the
   * last commit.
   * @param name The output: a non-empty string of at most 1024 bytes.
   * @throws {TypeError} If `kv` is not a Deno.Kv or `name` is not a string.
   * @throws {RangeError} If `name` is empty or too long.
   */
  constructor(kv: Deno.Kv, name: string) {
    const action = "create KvAppendSink";
    this.#kv = requireKv(kv, action);
    this.outputName = requireName(name, action, "name");
    this.name = `kv-append:${name}`;
  }

  /**
   * Creates the writer of one subtask; its transactions carry its index.
   *
   * @param subtaskIndex The subtask, from 0.
   * @param parallelism The number of sink subtasks.
   * @returns The subtask's writer.
   * @throws {RangeError} If `parallelism` is not a positive integer or `subtaskIndex` is out of range.
   */
  createWriter(subtaskIndex: number, parallelism: number): SinkWriter<T> {
    const action = "create a writer of KvAppendSink";
    requirePositiveInteger(parallelism, { action, param: "parallelism" });
    requireIndex(subtaskIndex, parallelism, { action, param: "subtaskIndex" });
    return new AppendWriter(this.#kv, this.outputName, subtaskIndex);
  }
}

/**
 * Reads every committed record of an output written by
 * {@linkcode KvAppendSink}, in (checkpoint id, subtask, write) order. Two
 * `list` calls over the output; not a consistent snapshot across list
 * batches, but a transaction is shown only whole.
 *
 * @typeParam T The record type.
 * @param kv An open Deno KV database.
 * @param name The output.
 * @returns The records with the transaction that wrote them.
 * @throws {TypeError} If `name` is not a string, or an entry was not
 * written by `KvAppendSink`.
 * @throws {RangeError} If `name` is empty.
 *
 * @example Reading an empty output
 * ```ts
 * import { readAppendLog } from "./kv_append.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * assert.deepEqual(await readAppendLog(kv, "none"), []);
 * kv.close();
 * ```
 */
export async function readAppendLog<T>(
  kv: Deno.Kv,
  name: string,
): Promise<AppendedRecord<T>[]> {
  requireNonEmptyString(name, { action: "read append log", param: "name" });
  const counts = new Map<string, number>();
  for await (
    const entry of kv.list<number>({ prefix: [...base(name), "txn"] })
  ) {
    const [checkpointId, subtask] = entry.key.slice(-2) as number[];
    counts.set(`${checkpointId}/${subtask}`, entry.value);
  }
  const out: AppendedRecord<T>[] = [];
  for await (const entry of kv.list({ prefix: [...base(name), "data"] })) {
    const [checkpointId, subtask, seq] = entry.key.slice(-3) as number[];
    const count = counts.get(`${checkpointId}/${subtask}`);
    // Not committed whole yet, or left over from a larger earlier version.
    if (count === undefined || seq >= count) continue;
    if (batchHeader(entry.value) === null) {
      throw new TypeError(
        `Cannot read append log '${name}' as the entry at ${checkpointId}/${subtask}/${seq} must be a batch written by KvAppendSink: current value is ${
          describeValue(entry.value)
        }`,
      );
    }
    const { values, timestamps } = decodeBatch<T>(entry.value as Uint8Array);
    for (let i = 0; i < values.length; i++) {
      out.push({
        value: values[i],
        timestamp: timestamps[i],
        checkpointId,
        subtask,
      });
    }
  }
  return out;
}

/** A transaction closed by a snapshot and not yet committed. */
interface Transaction {
  readonly checkpointId: number;
  readonly subtask: number;
  readonly batches: EncodedBatch[];
}

/** A writer's pending transactions as plain data. */
interface AppendWriterSnapshot {
  output: string;
  transactions: Transaction[];
}

class AppendWriter<T> implements SinkWriter<T> {
  // A write only appends to arrays: it cannot throw midway.
  readonly atomicWrites = true;
  readonly #kv: Deno.Kv;
  readonly #name: string;
  readonly #subtask: number;
  #values: T[] = [];
  #timestamps: number[] = [];
  // Sorted by checkpoint id, then subtask.
  #pending: Transaction[] = [];
  readonly #refused = new RefusedRecords<T>();
  readonly #commits = new CommitQueue();

  constructor(kv: Deno.Kv, name: string, subtask: number) {
    this.#kv = kv;
    this.#name = name;
    this.#subtask = subtask;
  }

  write(values: readonly T[], timestamps: readonly number[]): void {
    for (let i = 0; i < values.length; i++) {
      this.#values.push(values[i]);
      this.#timestamps.push(timestamps[i]);
    }
  }

  takeRefused(): Refused<T>[] {
    return this.#refused.take();
  }

  snapshotState(checkpointId: number): AppendWriterSnapshot {
    requireCheckpointId(checkpointId, "snapshot KvAppendSink");
    this.#close(checkpointId);
    return {
      output: this.#name,
      transactions: this.#pending.map((tx) => ({
        checkpointId: tx.checkpointId,
        subtask: tx.subtask,
        batches: [...tx.batches],
      })),
    };
  }

  commit(checkpointId: number): Promise<void> {
    return this.#commits.run(() => this.#commitUpTo(checkpointId));
  }

  restoreState(state: unknown): void {
    const action = "restore a writer of KvAppendSink";
    const transactions = restoredTransactions<Transaction>(state, {
      action,
      field: "output",
      expected: this.#name,
    });
    const pending = transactions.map((tx, i): Transaction => {
      const param = `state.transactions[${i}]`;
      if (!Array.isArray(tx?.batches)) {
        throw new TypeError(
          `Cannot ${action} as '${param}' must be { checkpointId, subtask, batches }: current value is ${
            describeValue(tx)
          }`,
        );
      }
      const batches = tx.batches.map((batch, j) => {
        if (
          typeof batch?.text !== "string" || !Number.isSafeInteger(batch.count)
        ) {
          throw new TypeError(
            `Cannot ${action} as '${param}.batches[${j}]' must be { count, text }: current value is ${
              describeValue(batch)
            }`,
          );
        }
        return { count: batch.count, text: batch.text };
      });
      return {
        checkpointId: requireCheckpointId(
          tx.checkpointId,
          action,
          `${param}.checkpointId`,
        ),
        // The subtask that wrote it, which may differ from this one after
        // a change of parallelism: its keys stay the same.
        subtask: requireNonNegativeInteger(tx.subtask, {
          action,
          param: `${param}.subtask`,
        }),
        batches,
      };
    });
    this.#values = [];
    this.#timestamps = [];
    this.#refused.clear();
    this.#pending = pending.sort(byTransaction);
  }

  finish(): Promise<void> {
    this.#close(Infinity);
    return this.commit(Infinity);
  }

  /**
   * Packs the staged records into transaction `(checkpointId, subtask)`,
   * leaving out, for `takeRefused`, those Deno KV cannot hold.
   */
  #close(checkpointId: number): void {
    if (this.#values.length === 0) return;
    const batches = packRecords(this.#values, this.#timestamps, {
      name: this.#name,
      refused: this.#refused,
    });
    this.#values = [];
    this.#timestamps = [];
    if (batches.length === 0) return;
    const existing = this.#pending.find((tx) =>
      tx.checkpointId === checkpointId && tx.subtask === this.#subtask
    );
    if (existing !== undefined) {
      // The same id again (a checkpoint retried): extend it, keeping the
      // batches it has, so that a partial earlier commit stays a prefix.
      existing.batches.push(...batches);
    } else {
      this.#pending.push({
        checkpointId,
        subtask: this.#subtask,
        batches,
      });
      this.#pending.sort(byTransaction);
    }
  }

  async #commitUpTo(checkpointId: number): Promise<void> {
    const due = this.#pending.filter((tx) => tx.checkpointId <= checkpointId);
    if (due.length === 0) return;
    const writes: KvWrite[] = [];
    for (const tx of due) {
      const txKey = [tx.checkpointId, tx.subtask];
      tx.batches.forEach((batch, seq) =>
        writes.push({
          key: [...base(this.#name), "data", ...txKey, seq],
          value: batchValue(batch),
        })
      );
      // The marker comes last, so it is in the commit of the last batch
      // or a later one: a reader never sees a marker without its batches.
      writes.push({
        key: [...base(this.#name), "txn", ...txKey],
        value: tx.batches.length,
      });
    }
    await commitAll(this.#kv, writes);
    this.#pending = this.#pending.filter((tx) => !due.includes(tx));
  }
}

function base(name: string): Key {
  return ["weir", "append", name];
}

function byTransaction(a: Transaction, b: Transaction): number {
  return a.checkpointId - b.checkpointId || a.subtask - b.subtask;
}
