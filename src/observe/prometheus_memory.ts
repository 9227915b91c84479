/**
 * {@linkcode ScrapeMemory}: what `/metrics` remembers of a job between
 * scrapes, for the counters no handle keeps: time spent back-pressured per
 * subtask, and checkpoints completed and failed since the service started
 * watching the job.
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";

/**
 * A job's counters as scrapes see them. Nothing per record: an entry per
 * subtask and a few numbers per job, updated once per scrape.
 *
 * Back-pressured time is sampled and held: a subtask seen `paused` at one
 * scrape counts as paused until the next (processing time between the
 * two), so the total is as precise as the scrape interval and includes
 * pauses for watermark alignment (the runtime reports both as `paused`).
 *
 * Checkpoints are counted by id (ids only grow): each id a scrape first
 * lists counts as completed (the first scrape counts all the job lists).
 * An id missing between two ids one scrape lists was never saved (a store
 * keeps the newest checkpoints, so nothing between them was pruned): it
 * counts as failed. Ids missing below the oldest listed one are counted
 * neither way (completed and pruned, or failed, between two scrapes). A
 * handle without a store lists only the checkpoints it saw completing, so
 * there a checkpoint that completed unseen between two of its samples
 * counts as failed.
 */
export class ScrapeMemory {
  #lastAt: number | undefined;
  readonly #paused = new Set<string>();
  readonly #pausedMs = new Map<string, number>();
  #highestId = -Infinity;
  #completed = 0;
  #failed = 0;

  /**
   * Reads the subtasks' status at processing time `now`.
   *
   * @param statuses Every subtask's status.
   * @param now Processing time, epoch milliseconds.
   */
  observeSubtasks(statuses: readonly SubtaskStatus[], now: number): void {
    const elapsed = this.#lastAt === undefined ? 0 : now - this.#lastAt;
    if (elapsed > 0) {
      for (const id of this.#paused) {
        this.#pausedMs.set(id, (this.#pausedMs.get(id) ?? 0) + elapsed);
      }
    }
    if (this.#lastAt === undefined || now > this.#lastAt) this.#lastAt = now;
    this.#paused.clear();
    for (const s of statuses) if (s.paused) this.#paused.add(s.id);
  }

  /**
   * Seconds subtask `id` was seen back-pressured (or aligning) so far.
   *
   * @param id The actor id, `job/operator/subtask`.
   * @returns The seconds, 0 if never.
   */
  backPressuredSeconds(id: string): number {
    return (this.#pausedMs.get(id) ?? 0) / 1000;
  }

  /**
   * Reads the ids of the checkpoints the job lists now.
   *
   * @param ids Their ids, in any order.
   */
  observeCheckpoints(ids: readonly number[]): void {
    const sorted = [...ids].sort((a, b) => a - b);
    sorted.forEach((id, i) => {
      if (id <= this.#highestId) return;
      this.#completed++;
      if (i > 0 && id - sorted[i - 1] > 1) {
        this.#failed += id - sorted[i - 1] - 1;
      }
    });
    if (sorted.length > 0) {
      this.#highestId = Math.max(this.#highestId, sorted.at(-1)!);
    }
  }

  /** Checkpoints seen completed since the service started watching. */
  get checkpointsCompleted(): number {
    return this.#completed;
  }

  /** Checkpoint ids given out and never saved, as far as scrapes can tell. */
  get checkpointsFailed(): number {
    return this.#failed;
  }
}

const memories = new WeakMap<object, ScrapeMemory>();

/**
 * The memory of one job, made at its first scrape; forgotten with the
 * handle.
 *
 * @param handle The job's handle.
 * @returns Its memory.
 */
export function scrapeMemory(handle: object): ScrapeMemory {
  let memory = memories.get(handle);
  if (memory === undefined) {
    memory = new ScrapeMemory();
    memories.set(handle, memory);
  }
  return memory;
}
