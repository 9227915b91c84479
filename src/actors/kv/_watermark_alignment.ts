// Watermark alignment (FLIP-182) across KV-runtime workers: the shared
// `AlignmentReporter`, fed each update interval with the aligned sources'
// watermarks, read from their committed status for the sources other
// workers run; every worker holds the sources it runs at their group's
// limit, and no coordination is written. Only this reading differs from
// the local runtime.

import { AlignmentReporter } from "../alignment_reporter.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import { actorId, type ActorWiring } from "./_wiring.ts";
import type { Meta } from "./_step_commit.ts";
import type { KvWorker } from "./_worker.ts";

/** Announces the aligned sources' limits to the sources a worker runs. */
export class AlignmentAnnouncer {
  readonly #graph: JobGraph;
  readonly #reporter: AlignmentReporter;
  readonly #aligned: readonly ActorWiring[];

  /**
   * Registers the job's aligned sources.
   *
   * @param graph The job.
   * @param wirings Every actor of the job.
   */
  constructor(graph: JobGraph, wirings: readonly ActorWiring[]) {
    this.#graph = graph;
    this.#reporter = new AlignmentReporter(graph);
    this.#aligned = wirings.filter((w) => this.#reporter.isAligned(w.vertex));
  }

  /** When the next announcement is due; `Infinity` without aligned sources. */
  get nextAt(): number {
    return this.#reporter.nextMs;
  }

  /**
   * Whether an announcement is due at `now`; if so, schedules the next.
   *
   * @param now Processing time.
   */
  due(now: number): boolean {
    if (!this.#reporter.due(now)) return false;
    this.#reporter.schedule(now + this.#reporter.intervalMs);
    return true;
  }

  /**
   * Reports every aligned source subtask's watermark (its own when this
   * worker runs it, else the last committed one) and holds the sources
   * this worker runs at their group's limit.
   */
  async announce(worker: KvWorker): Promise<void> {
    const { live } = worker;
    const metas = await worker.retry(
      "read the aligned sources",
      () =>
        Promise.all(
          this.#aligned.map((w) =>
            live.has(w.id)
              ? undefined
              : worker.readerOf(w.id).get<Meta>(["meta"])
          ),
        ),
    );
    const reporter = this.#reporter;
    this.#aligned.forEach((wiring, i) => {
      const source = live.get(wiring.id)?.source;
      const meta = metas[i];
      if (source !== undefined && source !== null) {
        reporter.report(wiring.vertex, wiring.index, source);
      } else if (meta !== undefined) {
        reporter.report(wiring.vertex, wiring.index, {
          finished: meta.finished,
          currentWatermark: meta.status.inputWatermark,
          idle: meta.status.idle,
        });
      }
    });
    reporter.announce((vertex, index, maxAllowed) => {
      const target = live.get(actorId(this.#graph, vertex, index));
      if (target?.source) target.source.maxDesiredWatermark = maxAllowed;
    });
  }
}
