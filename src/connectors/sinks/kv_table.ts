/**
 * A sink that upserts results into a table in Deno KV, one entry per key,
 * committed at checkpoints.
 *
 * @module
 */

import superjson from "superjson";
import {
  describeValue,
  requireFunction,
  requireIndex,
  requireNonEmptyString,
  requirePositiveInteger,
} from "../../time/validate.ts";
import type { Sink, SinkWriter } from "../../runtime/sink.ts";
import { commitAll } from "../../kv/mod.ts";
import { requireCheckpointId, requireKv, requireName } from "../_kv_checks.ts";
import { type Row, tablePrefix, TableRows } from "./_kv_table_rows.ts";
import {
  CommitQueue,
  type Refused,
  RefusedRecords,
  restoredTransactions,
} from "./_two_phase_writer.ts";

/** Options of a {@linkcode KvTableSink}. */
export interface KvTableSinkOptions<T> {
  /**
   * The row key of a record: a string, or a number other than `NaN`. A
   * later record with the same key replaces the row.
   */
  readonly key: (value: T) => string | number;
}

const decoder = new TextDecoder();

/**
 * Upserts records into `["weir", "table", tableName, key]`, exactly once
 * per checkpoint through a two-phase commit (Flink's
 * `TwoPhaseCommittingSink` with idempotent writes).
 *
 * `write` only stages: the last record per key wins, and nothing is
 * visible in KV. `snapshotState(id)` closes the staged rows into the
 * pending transaction `id` and returns every pending transaction (earlier
 * ones whose commit has not come yet too), so that a restore from
 * checkpoint `id` can commit them all again. `commit(id)` writes the rows of
 * every pending transaction up to `id`, later transactions winning, in
 * commits of at most 1000 mutations and 800 KiB, then drops them. Upserts
 * are idempotent, so committing a transaction twice (after a restore, or a
 * retry after a failed commit) writes the same rows again and nothing else.
 * `finish()` commits what is staged and pending at the end of input.
 *
 * Visibility: a transaction larger than one commit becomes visible commit
 * by commit, and a restore to an earlier checkpoint shows older values of
 * its rows until the job catches up: readers see each row's latest
 * committed value, not a snapshot of the table.
 *
 * Limits: a row key must encode to at most the rest of Deno KV's
 * 2048-byte key limit after the table's prefix, and a row (superjson text
 * in UTF-8) to at most 64 KiB, Deno KV's value limit. `check` refuses a
 * record whose key breaks its limit when it arrives (the job's error
 * policy sets it aside); it costs O(1) and allocates nothing for a key
 * short enough to fit whatever its characters (a third of what the prefix
 * leaves: 674 characters for a table named `"counts"`), and measures
 * longer keys. Values are
 * measured once per row and transaction, where they are encoded anyway:
 * `snapshotState` (or `finish`) leaves a row too large out of its
 * transaction, so that key keeps the row it had in KV, and hands its
 * record to `takeRefused`, from where the job's error policy sets it
 * aside. A record
 * written without `check` whose key breaks its limit goes the same way.
 * Rows are not split across several values: one row is one KV entry,
 * read whole or not at all.
 *
 * @typeParam T The record type.
 *
 * @example Rows appear when the checkpoint commits
 * ```ts
 * import { KvTableSink, readTable } from "./kv_table.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const sink = new KvTableSink<{ user: string; n: number }>(kv, "counts", {
 *   key: (row) => row.user,
 * });
 * const writer = sink.createWriter(0, 1);
 * writer.write([{ user: "a", n: 1 }, { user: "a", n: 2 }], [0, 0]);
 * writer.snapshotState?.(1);
 * assert.equal((await readTable(kv, "counts")).size, 0);
 * await writer.commit?.(1);
 * assert.deepEqual(await readTable(kv, "counts"), new Map([["a", { user: "a", n: 2 }]]));
 * kv.close();
 * ```
 */
export class KvTableSink<T> implements Sink<T> {
  /** `kv-table:<tableName>`. */
  readonly name: string;
  /** The table's name, as in its keys. */
  readonly tableName: string;
  readonly #kv: Deno.Kv;
  readonly #key: (value: T) => string | number;

  /**
   * Creates a sink into table `tableName`; it does not touch KV yet.
   *
   * @param kv An open Deno KV database; the caller closes it, after the
   * last commit.
   * @param tableName The table: a non-empty string of at most 1024 bytes.
   * @param options The row key of a record.
   * @throws {TypeError} If `kv` is not a Deno.Kv, `tableName` is not a
   * string or `key` is not a function.
   * @throws {RangeError} If `tableName` is empty or too long.
   */
  constructor(
    kv: Deno.Kv,
    tableName: string,
    options: KvTableSinkOptions<T>,
  ) {
    const action = "create KvTableSink";
    this.#kv = requireKv(kv, action);
    this.tableName = requireName(tableName, action, "tableName");
    this.#key = requireFunction(options?.key, { action, param: "key" });
    this.name = `kv-table:${tableName}`;
  }

  /**
   * Creates the writer of one subtask. Writers of different subtasks stage
   * and commit independently; records of one key should go to one subtask
   * (a `keyBy` on the row key), or the last commit wins.
   *
   * @param subtaskIndex The subtask, from 0.
   * @param parallelism The number of sink subtasks.
   * @returns The subtask's writer.
   * @throws {RangeError} If `parallelism` is not a positive integer or `subtaskIndex` is out of range.
   */
  createWriter(subtaskIndex: number, parallelism: number): SinkWriter<T> {
    const action = "create a writer of KvTableSink";
    requirePositiveInteger(parallelism, { action, param: "parallelism" });
    requireIndex(subtaskIndex, parallelism, { action, param: "subtaskIndex" });
    return new TableWriter(this.#kv, this.tableName, this.#key);
  }
}

/**
 * Reads every committed row of a table written by {@linkcode KvTableSink},
 * for tests and the service. One `list` over the table; not a consistent
 * snapshot across list batches.
 *
 * @typeParam T The record type.
 * @param kv An open Deno KV database.
 * @param tableName The table.
 * @returns The rows by key, in key order (strings before numbers).
 * @throws {TypeError} If `tableName` is not a string.
 * @throws {RangeError} If `tableName` is empty.
 *
 * @example Reading an empty table
 * ```ts
 * import { readTable } from "./kv_table.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * assert.equal((await readTable(kv, "none")).size, 0);
 * kv.close();
 * ```
 */
export async function readTable<T>(
  kv: Deno.Kv,
  tableName: string,
): Promise<Map<string | number, T>> {
  requireNonEmptyString(tableName, {
    action: "read table",
    param: "tableName",
  });
  const rows = new Map<string | number, T>();
  for await (
    const entry of kv.list<Uint8Array>({ prefix: tablePrefix(tableName) })
  ) {
    rows.set(
      entry.key.at(-1) as string | number,
      superjson.parse<T>(decoder.decode(entry.value)),
    );
  }
  return rows;
}

/** The last record staged for a row key, and its timestamp. */
interface Staged<T> {
  value: T;
  timestamp: number;
}

/** A transaction closed by a snapshot and not yet committed. */
interface Transaction<T> {
  readonly checkpointId: number;
  readonly rows: Map<string | number, Row<T>>;
}

/** A writer's pending transactions as plain data. */
interface TableWriterSnapshot<T> {
  table: string;
  transactions: Array<{
    checkpointId: number;
    rows: Array<[string | number, T]>;
  }>;
}

class TableWriter<T> implements SinkWriter<T> {
  // Every key of a batch is computed before the first row is staged.
  readonly atomicWrites = true;
  readonly #kv: Deno.Kv;
  readonly #table: string;
  readonly #rows: TableRows<T>;
  // The last record per row key since the last snapshot, updated in place.
  #staged = new Map<string | number, Staged<T>>();
  // Sorted by checkpoint id.
  #pending: Transaction<T>[] = [];
  readonly #refused = new RefusedRecords<T>();
  readonly #commits = new CommitQueue();

  constructor(
    kv: Deno.Kv,
    table: string,
    key: (value: T) => string | number,
  ) {
    this.#kv = kv;
    this.#table = table;
    this.#rows = new TableRows(table, key);
  }

  write(values: readonly T[], timestamps: readonly number[]): void {
    // Keys first: a key function that throws stages nothing of the batch.
    const keys = new Array<string | number>(values.length);
    const rows = this.#rows;
    for (let i = 0; i < values.length; i++) keys[i] = rows.keyOf(values[i]);
    const staged = this.#staged;
    for (let i = 0; i < values.length; i++) {
      const entry = staged.get(keys[i]);
      if (entry === undefined) {
        staged.set(keys[i], { value: values[i], timestamp: timestamps[i] });
      } else {
        entry.value = values[i];
        entry.timestamp = timestamps[i];
      }
    }
  }

  // A row key #close would refuse, when the record arrives.
  check(value: T, _timestamp: number): void {
    this.#rows.check(value);
  }

  takeRefused(): Refused<T>[] {
    return this.#refused.take();
  }

  snapshotState(checkpointId: number): TableWriterSnapshot<T> {
    requireCheckpointId(checkpointId, "snapshot KvTableSink");
    this.#close(checkpointId);
    return {
      table: this.#table,
      transactions: this.#pending.map((tx) => ({
        checkpointId: tx.checkpointId,
        rows: [...tx.rows].map(([key, row]) => [key, row.value]),
      })),
    };
  }

  commit(checkpointId: number): Promise<void> {
    return this.#commits.run(() => this.#commitUpTo(checkpointId));
  }

  restoreState(state: unknown): void {
    const action = "restore a writer of KvTableSink";
    const transactions = restoredTransactions<
      TableWriterSnapshot<T>["transactions"][number]
    >(state, { action, field: "table", expected: this.#table });
    const pending = transactions.map((tx, i): Transaction<T> => {
      const param = `state.transactions[${i}]`;
      if (!Array.isArray(tx?.rows)) {
        throw new TypeError(
          `Cannot ${action} as '${param}' must be { checkpointId, rows }: current value is ${
            describeValue(tx)
          }`,
        );
      }
      requireCheckpointId(tx.checkpointId, action, `${param}.checkpointId`);
      const rows = new Map<string | number, Row<T>>();
      for (const [key, value] of tx.rows) {
        rows.set(key, this.#rows.encode(key, value, action));
      }
      return { checkpointId: tx.checkpointId, rows };
    });
    this.#staged = new Map();
    this.#refused.clear();
    this.#pending = pending.sort((a, b) => a.checkpointId - b.checkpointId);
  }

  finish(): Promise<void> {
    this.#close(Infinity);
    return this.commit(Infinity);
  }

  /**
   * Moves the staged rows into transaction `checkpointId`, encoding each
   * once. A row Deno KV cannot store (too large, or a key written without
   * `check` that is too long) is left out, and its record handed to
   * `takeRefused`: the key keeps the row it had.
   */
  #close(checkpointId: number): void {
    if (this.#staged.size === 0) return;
    const action = "snapshot KvTableSink";
    let tx = this.#pending.find((t) => t.checkpointId === checkpointId);
    if (tx === undefined) {
      tx = { checkpointId, rows: new Map() };
      this.#pending.push(tx);
      this.#pending.sort((a, b) => a.checkpointId - b.checkpointId);
    }
    for (const [key, { value, timestamp }] of this.#staged) {
      try {
        tx.rows.set(key, this.#rows.encode(key, value, action));
      } catch (error) {
        this.#refused.add(value, timestamp, error);
      }
    }
    this.#staged = new Map();
  }

  async #commitUpTo(checkpointId: number): Promise<void> {
    const due = this.#pending.filter((tx) => tx.checkpointId <= checkpointId);
    if (due.length === 0) return;
    const rows = new Map<string | number, Uint8Array>();
    for (const tx of due) {
      for (const [key, row] of tx.rows) rows.set(key, row.bytes);
    }
    await commitAll(
      this.#kv,
      [...rows].map(([key, bytes]) => ({
        key: [...tablePrefix(this.#table), key],
        value: bytes,
      })),
    );
    this.#pending = this.#pending.filter((tx) => !due.includes(tx));
  }
}
