/**
 * {@linkcode CheckpointDurations}: how long each recent checkpoint took
 * from its trigger to being saved, in processing time (for the service's
 * checkpoint list).
 *
 * @module
 */

/** Durations are kept for this many checkpoints: the service lists recent ones. */
const KEPT = 64;

/**
 * Remembers when each checkpoint was triggered until it is saved (or
 * dropped), then how long that took: the last 64 saved. A map entry per
 * checkpoint: nothing per record.
 */
export class CheckpointDurations {
  readonly #triggeredAt = new Map<number, number>();
  readonly #durations = new Map<number, number>();

  /**
   * Checkpoint `id` was triggered.
   *
   * @param id The checkpoint id.
   * @param atMs Processing time of the trigger.
   */
  triggered(id: number, atMs: number): void {
    this.#triggeredAt.set(id, atMs);
  }

  /**
   * Checkpoint `id` was saved: its duration is known from now on.
   *
   * @param id The checkpoint id.
   * @param atMs Processing time of the save.
   */
  saved(id: number, atMs: number): void {
    const triggeredAt = this.#triggeredAt.get(id);
    if (triggeredAt === undefined) return;
    this.#triggeredAt.delete(id);
    this.#durations.set(id, atMs - triggeredAt);
    if (this.#durations.size > KEPT) {
      this.#durations.delete(this.#durations.keys().next().value!);
    }
  }

  /**
   * Checkpoint `id` will not be saved.
   *
   * @param id The checkpoint id.
   */
  dropped(id: number): void {
    this.#triggeredAt.delete(id);
  }

  /**
   * How long checkpoint `id` took from trigger to saved, in milliseconds.
   *
   * @param id The checkpoint id.
   * @returns The duration, or `undefined` if unknown.
   */
  durationMs(id: number): number | undefined {
    return this.#durations.get(id);
  }
}
