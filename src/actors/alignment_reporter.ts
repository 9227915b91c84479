/**
 * {@linkcode AlignmentReporter}: watermark alignment (FLIP-182) as both
 * runtimes drive it: which sources are aligned, when the next announcement
 * is due, what each aligned source subtask reports, and the limits
 * announced back.
 *
 * @module
 */

import {
  isAlignmentEnabled,
  reportableWatermark,
  WatermarkAlignmentCoordinator,
} from "../time/mod.ts";
import type { JobGraph } from "../runtime/job_graph.ts";

/**
 * What an aligned source subtask reports: a running `SourceSubtask` has
 * these fields, and a runtime that only has a subtask's committed status
 * (the KV runtime, for actors other workers run) fills them from it.
 */
export interface AlignedSourceState {
  /** Whether the source has finished (then it reports `Infinity`). */
  readonly finished: boolean;
  /** The watermark the source subtask emitted. */
  readonly currentWatermark: number;
  /** Whether the source subtask is idle. */
  readonly idle: boolean;
}

/** An aligned source subtask as a runtime lists it: which one it is. */
export interface AlignedSubtask {
  /** Its source vertex, one that {@linkcode AlignmentReporter.isAligned}. */
  readonly vertex: string;
  /** Its subtask index. */
  readonly index: number;
}

/** A running source subtask that takes the limit announced to it. */
export interface AlignmentTarget {
  /** The watermark the source may emit up to. */
  maxDesiredWatermark: number;
}

/**
 * Announces watermark alignment every update interval: the
 * runtime reports every aligned source subtask with
 * {@linkcode AlignmentReporter.report}, then applies
 * {@linkcode AlignmentReporter.announce}'s limits to the subtasks it runs,
 * and schedules the next announcement.
 *
 * The sources of every vertex whose watermark strategy enables alignment
 * are registered at construction, in the graph's order; the update
 * interval is the smallest of theirs. Announcing costs a scan of the
 * aligned subtasks, once per interval: never per record.
 *
 * The loop both runtimes run is here ({@linkcode AlignmentReporter.take},
 * then {@linkcode AlignmentReporter.announceRound}); each runtime's
 * wrapper keeps only where the states come from (the KV runtime reads the
 * committed watermarks of sources other workers run) and where the
 * schedule is kept (the local runtime's persist snapshots hold it).
 *
 * @example Announcing on schedule
 * ```ts ignore
 * const alignment = new AlignmentReporter(graph);
 * alignment.schedule(clock.now() + alignment.intervalMs);
 * if (alignment.take(clock.now())) {
 *   alignment.announceRound(sources, (s) => s.subtask, (v, i) => running(v, i));
 * }
 * ```
 */
export class AlignmentReporter {
  readonly #coordinator = new WatermarkAlignmentCoordinator();
  readonly #aligned = new Set<string>();
  readonly #intervalMs: number;
  #nextMs = -Infinity;

  /**
   * Registers every aligned source of the job.
   *
   * @param graph The job's plan.
   * @throws {RangeError} If the aligned sources' parameters disagree (see
   * `WatermarkAlignmentCoordinator.registerSource`).
   */
  constructor(graph: JobGraph) {
    let interval = Infinity;
    for (const vertex of graph.vertices) {
      const alignment = vertex.source?.strategy.alignmentParameters;
      if (alignment === undefined || !isAlignmentEnabled(alignment)) continue;
      this.#coordinator.registerSource(vertex.id, {
        group: alignment.group,
        maxDriftMs: alignment.maxDriftMs,
      });
      this.#aligned.add(vertex.id);
      interval = Math.min(interval, alignment.updateIntervalMs);
    }
    this.#intervalMs = interval;
  }

  /** The update interval in milliseconds; `Infinity` without aligned sources. */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** Whether the job has an aligned source at all. */
  get enabled(): boolean {
    return this.#aligned.size > 0;
  }

  /**
   * Whether the source vertex `vertexId` is aligned.
   *
   * @param vertexId A vertex id of the job.
   */
  isAligned(vertexId: string): boolean {
    return this.#aligned.has(vertexId);
  }

  /**
   * Processing time of the next announcement: `Infinity` without aligned
   * sources; `-Infinity` (at once) until {@linkcode schedule} is called.
   */
  get nextMs(): number {
    return this.#aligned.size > 0 ? this.#nextMs : Infinity;
  }

  /**
   * Sets when the next announcement is due.
   *
   * @param atMs Processing time, in milliseconds.
   */
  schedule(atMs: number): void {
    this.#nextMs = atMs;
  }

  /**
   * Whether an announcement is due at `nowMs`.
   *
   * @param nowMs Processing time, in milliseconds.
   */
  due(nowMs: number): boolean {
    return nowMs >= this.nextMs;
  }

  /**
   * Takes the announcement due at `nowMs`, if any: the next is scheduled
   * an update interval later.
   *
   * @param nowMs Processing time, in milliseconds.
   * @returns Whether one was due (then announce it).
   */
  take(nowMs: number): boolean {
    if (!this.due(nowMs)) return false;
    this.schedule(nowMs + this.#intervalMs);
    return true;
  }

  /**
   * One announcement as both runtimes make it: reports each of `subtasks`
   * whose state is known, then sets every limit on the source subtask
   * this runtime runs. Once per update interval, never per record.
   *
   * @param subtasks The job's aligned source subtasks.
   * @param stateOf A subtask's state (`i`: its position in `subtasks`), or
   * `undefined` if unknown (it reports nothing).
   * @param runningOf The source subtask to limit, or `undefined` if this
   * runtime does not run it.
   */
  announceRound<S extends AlignedSubtask>(
    subtasks: readonly S[],
    stateOf: (subtask: S, i: number) => AlignedSourceState | undefined,
    runningOf: (vertexId: string, index: number) => AlignmentTarget | undefined,
  ): void {
    subtasks.forEach((subtask, i) => {
      const state = stateOf(subtask, i);
      if (state !== undefined) {
        this.report(subtask.vertex, subtask.index, state);
      }
    });
    this.announce((vertexId, index, maxAllowed) => {
      const target = runningOf(vertexId, index);
      if (target !== undefined) target.maxDesiredWatermark = maxAllowed;
    });
  }

  /**
   * Reports one aligned source subtask: `Infinity` once finished, else its
   * watermark as `reportableWatermark` says (nothing before its first).
   *
   * @param vertexId The source vertex, one that {@linkcode isAligned}.
   * @param index The subtask index.
   * @param source Its state.
   */
  report(vertexId: string, index: number, source: AlignedSourceState): void {
    const reported = source.finished
      ? Infinity
      : reportableWatermark(source.currentWatermark, source.idle);
    if (reported !== null) {
      this.#coordinator.reportWatermark(vertexId, index, reported);
    }
  }

  /**
   * Hands out the limits of every source subtask reported so far.
   *
   * @param apply Called per subtask with the watermark it may emit up to;
   * the runtime sets it as the subtask's `maxDesiredWatermark`.
   */
  announce(
    apply: (vertexId: string, index: number, maxAllowed: number) => void,
  ): void {
    for (const announcement of this.#coordinator.announcements()) {
      apply(
        announcement.sourceId,
        announcement.subtask,
        announcement.maxAllowedWatermark,
      );
    }
  }
}
