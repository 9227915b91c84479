// Watermark alignment in the local runtime: the shared reporter's loop
// (`AlignmentReporter.take`, `announceRound`) over the sources this
// process runs, announced on the runtime's clock. Only where the schedule
// is kept differs from the KV runtime: on every aligned source, whose
// persist snapshots hold it.

import type {
  AlignedSubtask,
  AlignmentReporter,
} from "../alignment_reporter.ts";
import type { LocalActor } from "./_local_actor.ts";

/** An aligned source subtask of the local runtime: its actor. */
interface AlignedActor extends AlignedSubtask {
  readonly actor: LocalActor;
}

/** Announces alignment to the local runtime's aligned sources on schedule. */
export class LocalAlignment {
  readonly #reporter: AlignmentReporter;
  readonly #aligned: readonly AlignedActor[];

  /**
   * Schedules the first announcement an update interval from `nowMs`.
   *
   * @param reporter The job's alignment reporter.
   * @param actors Every actor of the job.
   * @param nowMs Processing time now.
   */
  constructor(
    reporter: AlignmentReporter,
    actors: readonly LocalActor[],
    nowMs: number,
  ) {
    this.#reporter = reporter;
    this.#aligned = actors.filter((a) => a.alignmentSource !== null)
      .map((actor) => ({
        vertex: actor.alignmentSource!,
        index: actor.index,
        actor,
      }));
    this.#schedule(nowMs + reporter.intervalMs);
  }

  /** When the next announcement is due, or `Infinity`. */
  get nextMs(): number {
    return this.#reporter.nextMs;
  }

  /**
   * Announces if due at `nowMs`: reports every aligned source subtask and
   * applies the limits.
   *
   * @returns Whether it announced.
   */
  runTimer(nowMs: number): boolean {
    if (!this.#reporter.take(nowMs)) return false;
    const aligned = this.#aligned;
    this.#reporter.announceRound(
      aligned,
      ({ actor }) => actor.source!,
      (vertexId, index) =>
        aligned.find((a) => a.vertex === vertexId && a.index === index)!
          .actor.source!,
    );
    this.#schedule(this.#reporter.nextMs);
    return true;
  }

  /**
   * After a restore: announcements go on at the times of the run that took
   * the checkpoint (persist mode), as the limits they set decide when
   * sources read; the sources' snapshots hold the schedule (replay mode
   * keeps the new one).
   */
  restored(nowMs: number): void {
    if (this.#aligned.length === 0) return;
    const due = Math.min(
      ...this.#aligned.map((a) => a.actor.source!.nextAlignmentMs),
    );
    this.#schedule(
      Number.isFinite(due) ? due : nowMs + this.#reporter.intervalMs,
    );
  }

  #schedule(atMs: number): void {
    this.#reporter.schedule(atMs);
    for (const { actor } of this.#aligned) {
      actor.source!.nextAlignmentMs = atMs;
    }
  }
}
