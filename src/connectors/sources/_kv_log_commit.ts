// The final commit of a KvLog append: one atomic commit that checks and
// bumps the log's sequence key, advances the heads it touches, writes the
// batches (or their manifests) and an append id, retried with exponential
// backoff and full jitter when an appender elsewhere won the race.
//
// Whether a commit that threw landed is told by the append's ids (see
// _kv_log_append_ids.ts).

import { describeValue } from "../../time/validate.ts";
import { AtomicConflictError } from "../../kv/mod.ts";
import { isTransient } from "../../kv/retry.ts";
import { KV_LIMITS } from "../../kv/mod.ts";
import {
  AppendIds,
  isLockError,
  type PublishContext,
} from "./_kv_log_append_ids.ts";
import type { AppendPlan, LogKeys } from "./_kv_log_plan.ts";
import type {
  AppendAllResult,
  KvLogRetryOptions,
  PartitionOffsets,
} from "./kv_log_append.ts";

const LOST_RACE = "the log's sequence key had moved";

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
  readonly #ids: AppendIds;
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
    this.#ids = new AppendIds(kv, name, keys, retry);
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
        if (committing && !isLockError(last)) unknown = true;
        // Not worth retrying; but this attempt or an earlier one may
        // have landed.
        if (!isTransient(error)) {
          const landed = unknown
            ? await this.#ids.giveUp(context.appendId)
            : null;
          if (landed !== null) {
            return { duplicate: false, offsets: planned[landed] };
          }
          throw error;
        }
      }
      this.#state = null;
      const found = await this.#ids.lookUp(context, unknown);
      if (found.landed !== null) {
        return { duplicate: false, offsets: planned[found.landed] };
      }
      if (found.kept !== null) return { duplicate: true, memo: found.kept };
      // Heads cached from an earlier append may just be old: read them
      // again at once. A race lost on fresh heads waits before retrying.
      if (cached && last === LOST_RACE) continue;
      if (++failures >= attempts) {
        if (unknown) {
          const landed = await this.#ids.giveUp(context.appendId);
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
  recall(id: string): Promise<{ memo: unknown } | null> {
    return this.#ids.recall(id);
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
    this.#ids.write(op, context, { number, offsets });
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
