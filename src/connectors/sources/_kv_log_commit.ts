// The final commit of a KvLog append: one atomic commit that checks and
// bumps the log's sequence key, advances the heads it touches, writes the
// batches (or their manifests) and an append id, retried with exponential
// backoff and full jitter when an appender elsewhere won the race.

import { describeValue, requirePositiveInteger } from "../../time/_validate.ts";
import { AtomicConflictError } from "../../actors/kv/kv_storage.ts";
import { isTransient } from "../../actors/kv/retry.ts";
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
   * the attempts run out (then nothing was appended).
   */
  async publish(
    partitions: readonly number[],
    plan: AppendPlan,
    once: AppendOnce | undefined,
  ): Promise<AppendAllResult> {
    const { attempts, baseMs, maxMs, sleep, random } = this.#retry;
    let failures = 0;
    for (;;) {
      const cached = this.#state !== null;
      let last: string;
      try {
        const done = await this.#attempt(partitions, plan, once);
        if (done !== null) return done;
        last = LOST_RACE;
      } catch (error) {
        // SQLite's lock, a timeout: the commit did not land (or, for a
        // timeout of a remote database, only an id can tell; see KvLog).
        if (!isTransient(error)) throw error;
        last = error instanceof Error ? error.message : String(error);
      }
      this.#state = null;
      if (once !== undefined) {
        const kept = await this.recall(once.id);
        if (kept !== null) return { duplicate: true, memo: kept.memo };
      }
      // Heads cached from an earlier append may just be old: read them
      // again at once. A race lost on fresh heads waits before retrying.
      if (cached && last === LOST_RACE) continue;
      if (++failures >= attempts) {
        throw new AtomicConflictError(
          `Cannot append to KvLog '${this.#name}' as its commit must land within ${attempts} attempts: the last failed as ${last}; nothing was appended`,
        );
      }
      await sleep(
        Math.floor(random() * Math.min(maxMs, baseMs * 2 ** failures)),
      );
    }
  }

  /** Reads what an append with this id kept, or `null`. */
  async recall(id: string): Promise<{ memo: unknown } | null> {
    const entry = await this.#kv.get<unknown>(this.#once(id));
    if (entry.value === null) return null;
    if (!(entry.value instanceof Uint8Array)) {
      throw new TypeError(
        `Cannot recall an append of KvLog '${this.#name}' as its entry must be a memo written by KvLog: current value is ${
          describeValue(entry.value)
        }`,
      );
    }
    return { memo: JSON.parse(decoder.decode(entry.value)) };
  }

  /** One commit; `null` if the sequence key or the id check failed. */
  async #attempt(
    partitions: readonly number[],
    plan: AppendPlan,
    once: AppendOnce | undefined,
  ): Promise<AppendAllResult | null> {
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
    if (once !== undefined) {
      const key = this.#once(once.id);
      op.check({ key, versionstamp: null });
      op.set(key, encodeMemo(once, offsets), { expireIn: once.expireInMs });
    }
    const result = await op.commit();
    if (!result.ok) return null;
    this.#state = {
      seq: state.seq + 1,
      versionstamp: result.versionstamp,
      heads,
    };
    return { duplicate: false, offsets };
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
