// The ids of one KvLog append, written by each attempt of its final commit
// and read back after one failed, to tell what became of the append.
//
// A commit that throws may still have landed (a timeout or a dropped
// connection to a remote database loses the answer, not the commit). So
// every attempt also writes `["append", appendId]` = its number, checked
// absent: at most one attempt lands, and after any failure one read tells
// whether one did and which, so the append answers as done (with that
// attempt's offsets) instead of appending again or dropping the parts the
// published manifests point at. An append that gives up after such an
// error first writes the key itself (-1), so no attempt still in flight
// can land after the caller was told nothing was appended.

import { describeValue } from "../../time/validate.ts";
import { AtomicConflictError } from "../../kv/mod.ts";
import { PersistentKvError, retryTransient } from "../../kv/retry.ts";
import { decodeMemo, encodeMemo } from "./_kv_log_once.ts";
import type { LogKeys } from "./_kv_log_plan.ts";
import type {
  AppendOnce,
  KvLogRetryOptions,
  PartitionOffsets,
} from "./kv_log_append.ts";

// How long `["append", id]` is kept: far longer than any retry, or any
// commit still in flight after its caller saw an error.
const LANDED_TTL_MS = 600_000;
// `["append", id]` of an append that gave up.
const GAVE_UP = -1;
// SQLite's lock: the commit did not happen. Anything else a commit throws
// (a timeout, a dropped connection, a crash) may have lost the answer of
// one that landed.
const LOCKED = /database is locked|database table is locked|SQLITE_BUSY/i;

/** What the final commit of one append writes besides its plan. */
export interface PublishContext {
  /** The append's random id, written by the commit that lands. */
  readonly appendId: string;
  /** An id that makes the append happen once. */
  readonly once: AppendOnce | undefined;
  /**
   * For an append with parts, its pending record's versionstamp: the
   * commit checks it (so collected parts are never published) and deletes
   * the record.
   */
  readonly pending: string | null;
}

/** What a look-up after a failed attempt found. */
export interface LookedUp {
  /** The attempt of this append that landed, if one did. */
  readonly landed: number | null;
  /** The memo of an append with the same `once` id that came first. */
  readonly kept: unknown | null;
}

/**
 * Whether a commit threw with SQLite's lock, so it did not happen; all
 * else it throws may have lost the answer of a commit that landed.
 */
export function isLockError(message: string): boolean {
  return LOCKED.test(message);
}

/** Writes and reads the ids of the appends to one log. */
export class AppendIds {
  readonly #kv: Deno.Kv;
  readonly #name: string;
  readonly #keys: LogKeys;
  readonly #retry: Required<KvLogRetryOptions>;

  constructor(
    kv: Deno.Kv,
    name: string,
    keys: LogKeys,
    retry: Required<KvLogRetryOptions>,
  ) {
    this.#kv = kv;
    this.#name = name;
    this.#keys = keys;
    this.#retry = retry;
  }

  /**
   * Adds the ids to attempt `number` of a final commit: its append id and
   * `once` id (checked absent), and the check and deletion of its pending
   * record.
   *
   * @throws {RangeError} If the `once` memo is too large.
   */
  write(
    op: Deno.AtomicOperation,
    context: PublishContext,
    { number, offsets }: {
      number: number;
      offsets: readonly PartitionOffsets[];
    },
  ): void {
    const landed = this.#keys.append(context.appendId) as Deno.KvKey;
    op.check({ key: landed, versionstamp: null });
    op.set(landed, number, { expireIn: LANDED_TTL_MS });
    if (context.pending !== null) {
      const pending = this.#keys.pending(context.appendId) as Deno.KvKey;
      op.check({ key: pending, versionstamp: context.pending });
      op.delete(pending);
    }
    const { once } = context;
    if (once !== undefined) {
      const key = this.#once(once.id);
      op.check({ key, versionstamp: null });
      op.set(key, encodeMemo(once, offsets), { expireIn: once.expireInMs });
    }
  }

  /**
   * Reads what an append with this `once` id kept, or `null`, retried
   * while Deno KV fails for a passing reason.
   *
   * @throws {PersistentKvError} If it kept failing.
   */
  async recall(id: string): Promise<{ memo: unknown } | null> {
    const entry = await retryTransient(
      () => this.#kv.get<unknown>(this.#once(id)),
      { ...this.#retry, what: `recall an append of KvLog '${this.#name}'` },
    );
    if (entry.value === null) return null;
    return { memo: decodeMemo(entry.value, this.#name) };
  }

  /**
   * After a failed attempt: whether one of this append's attempts landed
   * (and which), or an append with its `once` id came first.
   *
   * @param unknown Whether an attempt threw in a way that leaves its
   * outcome unknown.
   * @throws {AtomicConflictError} If the append's parts were collected by
   * a sweep meanwhile, or Deno KV kept failing while no attempt can have
   * landed: nothing was appended.
   * @throws {PersistentKvError} If Deno KV kept failing after an attempt
   * whose outcome is unknown.
   */
  async lookUp(context: PublishContext, unknown: boolean): Promise<LookedUp> {
    const keys = [this.#keys.append(context.appendId) as Deno.KvKey];
    if (context.once !== undefined) keys.push(this.#once(context.once.id));
    const pendingAt = keys.length;
    if (context.pending !== null) {
      keys.push(this.#keys.pending(context.appendId) as Deno.KvKey);
    }
    let entries: Deno.KvEntryMaybe<unknown>[];
    try {
      entries = await retryTransient(() => this.#kv.getMany<unknown[]>(keys), {
        ...this.#retry,
        what: `read whether an append to KvLog '${this.#name}' landed`,
      });
    } catch (error) {
      if (!(error instanceof PersistentKvError)) throw error;
      throw unknown
        ? mayHaveLanded(this.#name, error)
        : new AtomicConflictError(
          `Cannot append to KvLog '${this.#name}' as ${error.message}; nothing was appended`,
        );
    }
    const [landed] = entries;
    if (landed.value !== null) {
      return { landed: this.#attemptNumber(landed.value), kept: null };
    }
    if (context.once !== undefined && entries[1].value !== null) {
      return { landed: null, kept: decodeMemo(entries[1].value, this.#name) };
    }
    if (
      context.pending !== null &&
      entries[pendingAt].versionstamp !== context.pending
    ) {
      throw new AtomicConflictError(
        `Cannot append to KvLog '${this.#name}' as its parts must still be pending: a sweep collected them (the append took over an hour); nothing was appended`,
      );
    }
    return { landed: null, kept: null };
  }

  /**
   * Writes `["append", id]` = -1 unless an attempt wrote it, so that no
   * attempt still in flight can land later.
   *
   * @returns The attempt that landed, or `null` if none did nor will.
   * @throws {PersistentKvError} If Deno KV kept failing: the append may
   * have happened.
   */
  async giveUp(appendId: string): Promise<number | null> {
    const key = this.#keys.append(appendId) as Deno.KvKey;
    try {
      return await retryTransient(async () => {
        const sealed = await this.#kv.atomic()
          .check({ key, versionstamp: null })
          .set(key, GAVE_UP, { expireIn: LANDED_TTL_MS })
          .commit();
        if (sealed.ok) return null;
        const entry = await this.#kv.get<unknown>(key);
        // An earlier try of this very write, whose answer was lost.
        if (entry.value === GAVE_UP) return null;
        return this.#attemptNumber(entry.value);
      }, {
        ...this.#retry,
        what: `give up an append to KvLog '${this.#name}'`,
      });
    } catch (error) {
      throw mayHaveLanded(this.#name, error);
    }
  }

  #attemptNumber(value: unknown): number {
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw new TypeError(
        `Cannot append to KvLog '${this.#name}' as its append id must hold an attempt written by KvLog: current value is ${
          describeValue(value)
        }`,
      );
    }
    return value as number;
  }

  #once(id: string): Deno.KvKey {
    return this.#keys.once(id) as Deno.KvKey;
  }
}

/** Whether an append may have happened, as Deno KV kept failing. */
function mayHaveLanded(name: string, cause: unknown): Error {
  return new PersistentKvError(
    `Cannot tell whether an append to KvLog '${name}' landed as Deno KV must answer: a commit of it failed without an answer, then ${
      cause instanceof Error ? cause.message : String(cause)
    }; it may have been appended, so send it again with the same id (Idempotency-Key)`,
    cause,
  );
}
