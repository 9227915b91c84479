// The final commit of a KvLog append: one atomic commit that checks and
// bumps the log's sequence key, advances the heads it touches, writes the
// batches (or their manifests) and an append id, retried with exponential
// backoff and full jitter when an appender elsewhere won the race.
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

import { describeValue, requirePositiveInteger } from "../../time/_validate.ts";
import { AtomicConflictError } from "../../actors/kv/kv_storage.ts";
import {
  isTransient,
  PersistentKvError,
  retryTransient,
} from "../../actors/kv/retry.ts";
import { KV_LIMITS } from "../_kv_batches.ts";
import { requireName } from "../_kv_checks.ts";
import { type AppendPlan, type LogKeys, MEMO_BYTES } from "./_kv_log_plan.ts";
import type {
  AppendAllResult,
  AppendOnce,
  KvLogRetryOptions,
  PartitionOffsets,
} from "./kv_log_append.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const LOST_RACE = "the log's sequence key had moved";
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

/** One commit attempt: where its records go, and what became of it. */
interface Attempt {
  readonly offsets: PartitionOffsets[];
  readonly outcome: "landed" | "lost" | { readonly threw: unknown };
}

/** The sequence key's value and versionstamp, and heads valid with it. */
interface AppendState {
  readonly seq: number;
  readonly versionstamp: string | null;
  readonly heads: Map<number, number>;
}

/**
 * Commits appends of one log and remembers what it last read or wrote: the
 * sequence key's versionstamp, and heads read or written while it held.
 * Callers serialise `publish` calls (one per handle at a time).
 */
export class LogCommitter {
  readonly #kv: Deno.Kv;
  readonly #name: string;
  readonly #keys: LogKeys;
  readonly #retry: Required<KvLogRetryOptions>;
  // `null` once a race is lost: everything is read again.
  #state: AppendState | null = null;

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
   * The final commit, retried until it lands, the id turns out kept, or
   * the attempts run out (then nothing was appended, and nothing will be).
   *
   * @throws {AtomicConflictError} If the attempts ran out: nothing was
   * appended.
   * @throws {PersistentKvError} If a commit threw and Deno KV then kept
   * failing, so whether it landed is unknown: the append may have
   * happened (its parts are kept; a sweep collects them if not).
   */
  async publish(
    partitions: readonly number[],
    plan: AppendPlan,
    context: PublishContext,
  ): Promise<AppendAllResult> {
    const { attempts, baseMs, maxMs, sleep, random } = this.#retry;
    // Per attempt, where its records went had it landed.
    const planned: PartitionOffsets[][] = [];
    // Whether an attempt threw in a way that leaves its outcome unknown.
    let unknown = false;
    let failures = 0;
    for (;;) {
      const cached = this.#state !== null;
      let last = LOST_RACE;
      let failure: { error: unknown; committing: boolean } | null = null;
      try {
        const attempt = await this.#attempt(partitions, plan, {
          context,
          number: planned.length,
        });
        planned.push(attempt.offsets);
        if (attempt.outcome === "landed") {
          return { duplicate: false, offsets: attempt.offsets };
        }
        if (attempt.outcome !== "lost") {
          failure = { error: attempt.outcome.threw, committing: true };
        }
      } catch (error) {
        // A read before the commit: nothing was written.
        failure = { error, committing: false };
      }
      if (failure !== null) {
        const { error, committing } = failure;
        last = error instanceof Error ? error.message : String(error);
        if (committing && !LOCKED.test(last)) unknown = true;
        // Not worth retrying; but this attempt or an earlier one may
        // have landed.
        if (!isTransient(error)) {
          const landed = unknown ? await this.#giveUp(context.appendId) : null;
          if (landed !== null) {
            return { duplicate: false, offsets: planned[landed] };
          }
          throw error;
        }
      }
      this.#state = null;
      const found = await this.#lookUp(context, unknown);
      if (found.landed !== null) {
        return { duplicate: false, offsets: planned[found.landed] };
      }
      if (found.kept !== null) return { duplicate: true, memo: found.kept };
      // Heads cached from an earlier append may just be old: read them
      // again at once. A race lost on fresh heads waits before retrying.
      if (cached && last === LOST_RACE) continue;
      if (++failures >= attempts) {
        if (unknown) {
          const landed = await this.#giveUp(context.appendId);
          if (landed !== null) {
            return { duplicate: false, offsets: planned[landed] };
          }
        }
        throw new AtomicConflictError(
          `Cannot append to KvLog '${this.#name}' as its commit must land within ${attempts} attempts: the last failed as ${last}; nothing was appended`,
        );
      }
      await sleep(
        Math.floor(random() * Math.min(maxMs, baseMs * 2 ** failures)),
      );
    }
  }

  /**
   * Reads what an append with this id kept, or `null`, retried while Deno
   * KV fails for a passing reason.
   *
   * @throws {PersistentKvError} If it kept failing.
   */
  async recall(id: string): Promise<{ memo: unknown } | null> {
    const entry = await retryTransient(
      () => this.#kv.get<unknown>(this.#once(id)),
      { ...this.#retry, what: `recall an append of KvLog '${this.#name}'` },
    );
    if (entry.value === null) return null;
    return { memo: this.#memo(entry.value) };
  }

  /**
   * After a failed attempt: whether one of this append's attempts landed
   * (and which), or an append with its `once` id came first.
   *
   * @throws {AtomicConflictError} If the append's parts were collected by
   * a sweep meanwhile, or Deno KV kept failing while no attempt can have
   * landed: nothing was appended.
   * @throws {PersistentKvError} If Deno KV kept failing after an attempt
   * whose outcome is unknown.
   */
  async #lookUp(
    context: PublishContext,
    unknown: boolean,
  ): Promise<{ landed: number | null; kept: unknown | null }> {
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
      return { landed: null, kept: this.#memo(entries[1].value) };
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
  async #giveUp(appendId: string): Promise<number | null> {
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

  #memo(value: unknown): unknown {
    if (!(value instanceof Uint8Array)) {
      throw new TypeError(
        `Cannot recall an append of KvLog '${this.#name}' as its entry must be a memo written by KvLog: current value is ${
          describeValue(value)
        }`,
      );
    }
    return JSON.parse(decoder.decode(value));
  }

  /**
   * One commit: its offsets, and whether it landed, lost the race (the
   * sequence key moved, or an id or the pending record changed) or threw.
   * A read before the commit may throw.
   */
  async #attempt(
    partitions: readonly number[],
    plan: AppendPlan,
    { context, number }: { context: PublishContext; number: number },
  ): Promise<Attempt> {
    const state = await this.#readState(partitions);
    const seq = this.#keys.seq() as Deno.KvKey;
    const op = this.#kv.atomic().check({
      key: seq,
      versionstamp: state.versionstamp,
    });
    const heads = new Map(state.heads);
    const offsets = partitions.map((partition): PartitionOffsets => {
      const first = heads.get(partition)!;
      const planned = plan.partitions.find((p) => p.partition === partition);
      let offset = first;
      for (const entry of planned?.entries ?? []) {
        const key = this.#keys.entry(partition, offset) as Deno.KvKey;
        op.set(key, entry.value);
        offset += entry.count;
      }
      if (planned !== undefined) {
        op.set(this.#keys.head(partition) as Deno.KvKey, offset);
      }
      heads.set(partition, offset);
      return { partition, firstOffset: first, lastOffset: offset - 1 };
    });
    op.set(seq, state.seq + 1);
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
    let result: Deno.KvCommitResult | Deno.KvCommitError;
    try {
      result = await op.commit();
    } catch (threw) {
      return { offsets, outcome: { threw } };
    }
    if (!result.ok) return { offsets, outcome: "lost" };
    this.#state = {
      seq: state.seq + 1,
      versionstamp: result.versionstamp,
      heads,
    };
    return { offsets, outcome: "landed" };
  }

  /**
   * The sequence key and the heads of `partitions`: cached ones, the
   * others read after the sequence key, so the commit's check on it
   * vouches for them (had any head moved since, so had the key).
   */
  async #readState(partitions: readonly number[]): Promise<AppendState> {
    let state = this.#state;
    if (state === null) {
      const entry = await this.#kv.get<unknown>(
        this.#keys.seq() as Deno.KvKey,
      );
      state = {
        seq: this.#count(entry.value, "the sequence key"),
        versionstamp: entry.versionstamp,
        heads: new Map(),
      };
      this.#state = state;
    }
    const heads = state.heads;
    const missing = partitions.filter((p) => !heads.has(p));
    for (let i = 0; i < missing.length; i += KV_LIMITS.getMany) {
      const chunk = missing.slice(i, i + KV_LIMITS.getMany);
      const entries = await this.#kv.getMany<unknown[]>(
        chunk.map((p) => this.#keys.head(p) as Deno.KvKey),
      );
      chunk.forEach((p, j) =>
        heads.set(
          p,
          this.#count(entries[j].value, `the head of partition ${p}`),
        )
      );
    }
    return state;
  }

  #once(id: string): Deno.KvKey {
    return this.#keys.once(id) as Deno.KvKey;
  }

  #count(value: unknown, what: string): number {
    return readCount(value, `${what} of KvLog '${this.#name}'`);
  }
}

/**
 * A stored head or sequence number: absent is 0.
 *
 * @throws {TypeError} If it is not a count KvLog wrote.
 */
export function readCount(value: unknown, what: string): number {
  if (value === null) return 0;
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new TypeError(
      `Cannot read ${what} as it must be a count written by KvLog: current value is ${
        describeValue(value)
      }`,
    );
  }
  return value as number;
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

/** Checks `options.once` of an append. */
export function checkOnce(once: AppendOnce, action: string): AppendOnce {
  if (typeof once !== "object" || once === null) {
    throw new TypeError(
      `Cannot ${action} as 'options.once' must be { id, expireInMs, memo? }: current value is ${
        describeValue(once)
      }`,
    );
  }
  requireName(once.id, action, "options.once.id");
  requirePositiveInteger(once.expireInMs, {
    action,
    param: "options.once.expireInMs",
  });
  if (once.memo !== undefined && typeof once.memo !== "function") {
    throw new TypeError(
      `Cannot ${action} as 'options.once.memo' must be a function: current value is ${
        describeValue(once.memo)
      }`,
    );
  }
  return once;
}

function encodeMemo(
  once: AppendOnce,
  offsets: readonly PartitionOffsets[],
): Uint8Array {
  const bytes = encoder.encode(JSON.stringify(once.memo?.(offsets) ?? null));
  if (bytes.length > MEMO_BYTES) {
    throw new RangeError(
      `Cannot append to KvLog as the memo of 'options.once' must be at most ${MEMO_BYTES} bytes as JSON: current size is ${bytes.length} bytes`,
    );
  }
  return bytes;
}
