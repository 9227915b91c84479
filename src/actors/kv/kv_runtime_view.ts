/**
 * {@linkcode KvRuntimeView}: the KV runtime's job as the HTTP service reads
 * it, refreshed from KV, so that any process (a worker, or the supervisor
 * of `--processes 3`) serves the same dashboard.
 *
 * @module
 */

import type { CompletedCheckpoint } from "../checkpoint.ts";
import type { DeadLetterLog } from "../dead_letter_log.ts";
import type { InputChannelStatus } from "../../runtime/subtask.ts";
import type { SubtaskStatus } from "../actor_runtime.ts";
import type { KvRuntime } from "./kv_runtime.ts";
import type { KvSubtaskStatus } from "./kv_subtask_status.ts";

/**
 * A synchronous view of a {@linkcode KvRuntime} for a job handle: every
 * actor's status as last committed (whichever process runs it), read by
 * {@linkcode KvRuntimeView.refresh}.
 *
 * @example
 * ```ts ignore
 * const view = new KvRuntimeView(runtime);
 * const handle = new LocalJobHandle({ runtime: view, graph, clock });
 * setInterval(async () => { await view.refresh(); handle.sample(); }, 500);
 * ```
 */
export class KvRuntimeView {
  readonly #runtime: KvRuntime;
  #status: KvSubtaskStatus[] = [];
  #latest: CompletedCheckpoint | null = null;
  #checkpoints: { lastId: number; pending: number | null } = {
    lastId: 0,
    pending: null,
  };

  /**
   * Wraps a worker (it may own no actor: it is only read).
   *
   * @param runtime The worker.
   */
  constructor(runtime: KvRuntime) {
    this.#runtime = runtime;
  }

  /** Reads every actor's status, and the checkpoints' progress, from KV. */
  async refresh(): Promise<void> {
    [this.#status, this.#checkpoints] = await Promise.all([
      this.#runtime.status(),
      this.#runtime.checkpointProgress(),
    ]);
    this.#latest = this.#runtime.latestCheckpoint ?? this.#latest;
  }

  /** The statuses as last refreshed. */
  status(): SubtaskStatus[] {
    return this.#status.map(({ inputChannels: _, ...status }) => status);
  }

  /** Each input channel of an actor as last refreshed. */
  inputChannels(actorId: string): InputChannelStatus[] {
    const status = this.#status.find((s) => s.id === actorId);
    if (status === undefined) {
      throw new RangeError(
        `Cannot find actor as 'actorId' must name an actor of the job: current value is "${actorId}"`,
      );
    }
    return status.inputChannels.map((c) => ({ ...c }));
  }

  /** Not known across processes: none. */
  sourcePartitions(_actorId: string): readonly string[] {
    return [];
  }

  /**
   * How long a checkpoint took, if this process coordinated it (see
   * `KvRuntime.checkpointDurationMs`).
   *
   * @param id A checkpoint id.
   */
  checkpointDurationMs(id: number): number | undefined {
    return this.#runtime.checkpointDurationMs(id);
  }

  /** The job's dead-letter log (see `KvRuntime.deadLetters`). */
  get deadLetters(): DeadLetterLog {
    return this.#runtime.deadLetters;
  }

  /** Letters this process wrote that were new to the log (see `KvRuntime.deadLetterCount`). */
  get deadLetterCount(): number {
    return this.#runtime.deadLetterCount;
  }

  /** The last checkpoint this process completed, if it coordinated one. */
  get latestCheckpoint(): CompletedCheckpoint | null {
    return this.#latest;
  }

  /**
   * The checkpoint in progress as last refreshed (the coordinator may run
   * in another process), or `null`.
   */
  get checkpointInProgress(): number | null {
    return this.#checkpoints.pending;
  }

  /**
   * Asks the job's coordinator (in whichever process holds it) for a
   * checkpoint, unless one is in progress as last refreshed.
   *
   * @returns The id it will get (the next after the last given out, unless
   * a periodic one starts first), or `null` if one is in progress.
   */
  triggerCheckpoint(): number | null {
    const { lastId, pending } = this.#checkpoints;
    if (pending !== null) return null;
    void this.#runtime.triggerCheckpoint().catch(() => {});
    // Until the next refresh, a second request is one in progress.
    this.#checkpoints = { lastId: lastId + 1, pending: lastId + 1 };
    return lastId + 1;
  }
}
