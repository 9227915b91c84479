// One KvLog append from checked, packed records to its final commit: the
// commit's cost, the plan of inline batches and parts, the sweep of stale
// parts, the parts staged, the commit published under the handle's lock,
// and the parts collected again if it did not land.

import type { Clock } from "../../time/clock.ts";
import { PersistentKvError } from "../../kv/retry.ts";
import { CommitCost } from "../../kv/mod.ts";
import { withKvLock } from "../_kv_lock.ts";
import { type LogKeys, MEMO_BYTES, planAppend } from "./_kv_log_plan.ts";
import { LogCommitter } from "./_kv_log_commit.ts";
import { PartStager } from "./_kv_log_stage.ts";
import type { PackedGroup } from "./_kv_log_records.ts";
import type {
  AppendAllResult,
  AppendOnce,
  KvLogRetryOptions,
} from "./kv_log_append.ts";

/** Appends to one log through one `Deno.Kv` handle. */
export class LogAppender {
  readonly #kv: Deno.Kv;
  readonly #name: string;
  readonly #keys: LogKeys;
  readonly #committer: LogCommitter;
  readonly #stager: PartStager;

  constructor(
    kv: Deno.Kv,
    context: {
      name: string;
      keys: LogKeys;
      retry: Required<KvLogRetryOptions>;
      clock: Clock;
    },
  ) {
    const { name, keys, retry } = context;
    this.#kv = kv;
    this.#name = name;
    this.#keys = keys;
    this.#committer = new LogCommitter(kv, name, keys, retry);
    this.#stager = new PartStager(kv, context);
  }

  /**
   * Appends the groups (`partitions`: every partition named, in order) in
   * one commit, at most once per `once.id` (checked by the caller).
   */
  async append(
    groups: readonly PackedGroup[],
    partitions: number[],
    once: AppendOnce | undefined,
  ): Promise<AppendAllResult> {
    const appendId = crypto.randomUUID();
    const cost = new CommitCost();
    cost.addCheck(this.#keys.seq());
    cost.addSet(this.#keys.seq(), 16);
    cost.addCheck(this.#keys.append(appendId));
    cost.addSet(this.#keys.append(appendId), 16);
    // Whether or not the plan stages parts: a check and a delete.
    cost.addCheck(this.#keys.pending(appendId));
    cost.add({ key: this.#keys.pending(appendId), value: null });
    if (once !== undefined) {
      cost.addCheck(this.#keys.once(once.id));
      cost.addSet(this.#keys.once(once.id), MEMO_BYTES);
    }
    const plan = planAppend(
      this.#keys,
      groups.filter((g) => g.batches.length > 0),
      cost,
      appendId,
    );
    await this.#stager.sweepIfDue();
    const pending = plan.parts.length === 0 ? null : await this.#stager.stage(
      appendId,
      plan.partitions.map((p) => p.partition),
      plan.parts,
    );
    let keepParts = false;
    try {
      const result = await withKvLock(
        this.#kv,
        this.#name,
        () =>
          this.#committer.publish(partitions, plan, {
            appendId,
            once,
            pending,
          }),
      );
      keepParts = !result.duplicate;
      return result;
    } catch (error) {
      // Whether the append landed is unknown: its parts stay, and a sweep
      // collects them if it did not.
      keepParts = error instanceof PersistentKvError;
      throw error;
    } finally {
      if (!keepParts && pending !== null) {
        await this.#stager.collect(appendId);
      }
    }
  }

  /** The memo kept with append id `id`, or `null`. */
  async recall(id: string): Promise<{ memo: unknown } | null> {
    return await this.#committer.recall(id);
  }
}
