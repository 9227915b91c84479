// The parts of a large KvLog append, written ahead of its final commit, and
// the collection of parts that no commit will ever publish.
//
// Before its parts, an append writes a pending record
// `["pending", appendId]` = `{ at, partitions }` in a commit of its own.
// The final commit checks the record's versionstamp and deletes it, so the
// record exists exactly while the parts are unpublished. Parts are
// collected in three steps: the record is rewritten as dead (a final
// commit still in flight then fails its check, so no manifest can ever
// point at what follows), the parts are deleted, then the record. A crash
// or a failure between the steps leaves a record that a later sweep
// finishes: parts never leak for good. A sweep runs at an instance's first
// append and then at most every 10 minutes, and collects records older
// than an hour (an append whose process died, or whose answer was lost)
// and dead ones.

import type { Clock } from "../../time/clock.ts";
import { AtomicConflictError } from "../../kv/mod.ts";
import { PersistentKvError, retryTransient } from "../../kv/retry.ts";
import { applyWrites, type KvWrite, packCommits } from "../../kv/mod.ts";
import type { LogKeys } from "./_kv_log_plan.ts";
import type { KvLogRetryOptions } from "./kv_log_append.ts";

/** A pending record older than this, in milliseconds, is collected. */
const PENDING_MAX_AGE_MS = 3_600_000;
/** The least time between two sweeps of one instance, in milliseconds. */
const SWEEP_EVERY_MS = 600_000;
// Records looked at per sweep: there are few unless appends keep failing.
const SWEEP_LIMIT = 100;

/** A pending record's value. */
interface Pending {
  /** When the append wrote it, epoch ms by its clock. */
  readonly at: number;
  /** The partitions its parts are in. */
  readonly partitions: readonly number[];
  /** Set when a collection began. */
  readonly dead?: true;
}

/** Stages the parts of large appends of one log, and collects stale ones. */
export class PartStager {
  readonly #kv: Deno.Kv;
  readonly #name: string;
  readonly #keys: LogKeys;
  readonly #retry: Required<KvLogRetryOptions>;
  readonly #clock: Clock;
  #lastSweep: number | null = null;

  constructor(
    kv: Deno.Kv,
    context: {
      name: string;
      keys: LogKeys;
      retry: Required<KvLogRetryOptions>;
      clock: Clock;
    },
  ) {
    this.#kv = kv;
    this.#name = context.name;
    this.#keys = context.keys;
    this.#retry = context.retry;
    this.#clock = context.clock;
  }

  /**
   * Writes the pending record, then the parts, each commit retried while
   * Deno KV fails it for a passing reason (they are safe to repeat).
   *
   * @returns The pending record's versionstamp, for the final commit to
   * check.
   * @throws {AtomicConflictError} If a commit kept failing for a passing
   * reason; the parts are collected first (or left to a sweep).
   */
  async stage(
    appendId: string,
    partitions: readonly number[],
    parts: readonly KvWrite[],
  ): Promise<string> {
    const what = `write the parts of an append to KvLog '${this.#name}'`;
    try {
      const pending: Pending = { at: this.#clock.now(), partitions };
      const { versionstamp } = await retryTransient(
        () =>
          this.#kv.atomic().set(
            this.#keys.pending(appendId) as Deno.KvKey,
            pending,
          ).commit() as Promise<Deno.KvCommitResult>,
        { ...this.#retry, what },
      );
      for (const commit of packCommits(parts)) {
        await retryTransient(
          () => applyWrites(this.#kv.atomic(), commit).commit(),
          { ...this.#retry, what },
        );
      }
      return versionstamp;
    } catch (error) {
      await this.collect(appendId);
      if (!(error instanceof PersistentKvError)) throw error;
      const cause = error.cause instanceof Error
        ? error.cause.message
        : String(error.cause);
      throw new AtomicConflictError(
        `Cannot append to KvLog '${this.#name}' as its parts must be written within ${this.#retry.attempts} attempts: the last failed as ${cause}; nothing was appended`,
      );
    }
  }

  /**
   * Collects the parts of append `appendId`, unless they were published:
   * the dead mark, the parts, the record. Failures are left to a later
   * sweep (the record stays).
   *
   * @returns Whether nothing of it is left.
   */
  async collect(appendId: string): Promise<boolean> {
    try {
      const key = this.#keys.pending(appendId) as Deno.KvKey;
      let entry = await this.#kv.get<unknown>(key);
      if (entry.value === null) return true;
      const pending = readPending(entry.value);
      if (pending === null) return false;
      if (!pending.dead) {
        const dead: Pending = { ...pending, dead: true };
        const marked = await this.#kv.atomic().check(entry).set(key, dead)
          .commit();
        // Published or collected meanwhile: nothing to do here.
        if (!marked.ok) return false;
        entry = { key, value: dead, versionstamp: marked.versionstamp };
      }
      for (const partition of pending.partitions) {
        const prefix = this.#keys.parts(partition, appendId) as Deno.KvKey;
        const deletes: KvWrite[] = [];
        for await (const part of this.#kv.list({ prefix })) {
          deletes.push({ key: part.key as KvWrite["key"], value: null });
        }
        for (const commit of packCommits(deletes)) {
          await applyWrites(this.#kv.atomic(), commit).commit();
        }
      }
      await this.#kv.atomic().check(entry).delete(key).commit();
      return true;
    } catch {
      // The record stays, dead or not: the next sweep collects it.
      return false;
    }
  }

  /**
   * Collects the pending records older than an hour, and dead ones, at
   * this instance's first call and then at most every 10 minutes.
   */
  async sweepIfDue(): Promise<void> {
    const now = this.#clock.now();
    if (this.#lastSweep !== null && now - this.#lastSweep < SWEEP_EVERY_MS) {
      return;
    }
    this.#lastSweep = now;
    const stale: string[] = [];
    try {
      const entries = this.#kv.list<unknown>(
        { prefix: this.#keys.pendings() as Deno.KvKey },
        { limit: SWEEP_LIMIT, batchSize: SWEEP_LIMIT },
      );
      for await (const entry of entries) {
        const pending = readPending(entry.value);
        if (
          pending !== null &&
          (pending.dead || now - pending.at >= PENDING_MAX_AGE_MS)
        ) {
          stale.push(entry.key.at(-1) as string);
        }
      }
    } catch {
      // Deno KV failing: the records stay for the next sweep.
      return;
    }
    for (const appendId of stale) await this.collect(appendId);
  }
}

// A pending record KvLog wrote, or `null` for anything else (left alone).
function readPending(value: unknown): Pending | null {
  const v = value as Partial<Pending> | null;
  if (
    typeof v !== "object" || v === null || !Number.isFinite(v.at) ||
    !Array.isArray(v.partitions) ||
    !v.partitions.every((p) => Number.isSafeInteger(p) && p >= 0)
  ) {
    return null;
  }
  return v as Pending;
}
