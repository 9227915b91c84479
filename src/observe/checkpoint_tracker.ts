/**
 * {@linkcode CheckpointTracker}: what a job handle learns of a job's
 * checkpoints by looking at it now and then: how many completed and
 * failed since it started looking, the recent failures, and the
 * checkpoint the job started from.
 *
 * @module
 */

import type { CheckpointInfo } from "../actors/checkpoint.ts";
import type { CheckpointStats } from "./job_handle.ts";

// Failures kept for `CheckpointStats.failures`: the panel shows recent ones.
const KEPT_FAILURES = 10;

/** What the tracker reads of the runtime at each observation. */
export interface CheckpointObservation {
  /** The processing time of the observation. */
  readonly at: number;
  /** The id of the last checkpoint completed (or restored), if any. */
  readonly latestId: number | null;
  /** The checkpoint in progress, or `null` (or `undefined`: not known). */
  readonly inProgress: number | null | undefined;
  /** How long a checkpoint took, if the runtime saved it. */
  readonly durationMs: (id: number) => number | undefined;
}

/**
 * Counts checkpoints from observations of the runtime (at every sample and
 * every list of checkpoints).
 *
 * A checkpoint is completed when it becomes the latest, or when the
 * runtime knows how long it took (one completed and superseded between two
 * observations). It failed when it was seen in progress and a later one
 * completed while its own duration is unknown (the runtime dropped it):
 * a failure is counted once a later checkpoint completes. Checkpoints the
 * observations never saw (begun and dropped between two) are not counted.
 * Cost: a few numbers per checkpoint seen in progress.
 */
export class CheckpointTracker {
  readonly #restoredFrom: CheckpointInfo | null | undefined;
  #latestId: number | null;
  #completed = 0;
  #failed = 0;
  #inProgress: number | null = null;
  readonly #outstanding = new Set<number>();
  readonly #failures: { id: number; at: number }[] = [];

  /**
   * Starts counting.
   *
   * @param restoredFrom The checkpoint the job started from; `null` when
   * it started afresh, `undefined` when not known.
   * @param latestId The latest checkpoint's id when counting starts: not
   * counted as completed.
   */
  constructor(
    restoredFrom: CheckpointInfo | null | undefined,
    latestId: number | null,
  ) {
    this.#restoredFrom = restoredFrom;
    this.#latestId = latestId;
  }

  /**
   * Notes what the runtime shows now.
   *
   * @param seen The observation.
   */
  observe(seen: CheckpointObservation): void {
    const previous = this.#latestId ?? 0;
    const latest = seen.latestId;
    if (seen.inProgress !== undefined) this.#inProgress = seen.inProgress;
    if (typeof seen.inProgress === "number") {
      this.#outstanding.add(seen.inProgress);
    }
    if (latest !== null && latest > previous) {
      this.#completed++;
      this.#outstanding.delete(latest);
      // Completed and superseded between two observations.
      for (let id = previous + 1; id < latest; id++) {
        if (seen.durationMs(id) !== undefined) {
          this.#completed++;
          this.#outstanding.delete(id);
        }
      }
      this.#latestId = latest;
    }
    for (const id of this.#outstanding) {
      if (id === this.#inProgress || this.#latestId === null) continue;
      if (id > this.#latestId) continue;
      this.#outstanding.delete(id);
      if (seen.durationMs(id) !== undefined) continue;
      this.#failed++;
      this.#failures.push({ id, at: seen.at });
      if (this.#failures.length > KEPT_FAILURES) this.#failures.shift();
    }
  }

  /** The counts so far (see {@linkcode CheckpointStats}). */
  stats(): CheckpointStats {
    return {
      completed: this.#completed,
      failed: this.#failed,
      inProgress: this.#inProgress,
      failures: this.#failures.slice(),
      restoredFrom: this.#restoredFrom ?? null,
      restoredFromKnown: this.#restoredFrom !== undefined,
    };
  }
}
