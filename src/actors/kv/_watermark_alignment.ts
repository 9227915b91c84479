// Watermark alignment (FLIP-182) across KV-runtime workers: the shared
// reporter's loop (`AlignmentReporter.take`, `announceRound`), fed each
// update interval with the aligned sources' watermarks, read from their
// committed status for the sources other workers run; every worker holds
// the sources it runs at their group's limit, and no coordination is
// written. Only this reading differs from the local runtime.

import { AlignmentReporter } from "../alignment_reporter.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import { actorId, type ActorWiring } from "./_wiring.ts";
import type { Meta } from "./_step_commit.ts";
import type { KvWorker } from "./_worker.ts";

/** Announces the aligned sources' limits to the sources a worker runs. */
export class KvAlignment {
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
  get nextMs(): number {
    return this.#reporter.nextMs;
  }

  /**
   * Takes the announcement due at `nowMs`, if any (the next is scheduled):
   * then call {@linkcode announce}.
   *
   * @param nowMs Processing time.
   * @returns Whether one was due.
   */
  take(nowMs: number): boolean {
    return this.#reporter.take(nowMs);
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
    this.#reporter.announceRound(
      this.#aligned,
      (wiring, i) => {
        const source = live.get(wiring.id)?.source;
        if (source !== undefined && source !== null) return source;
        const meta = metas[i];
        return meta === undefined ? undefined : {
          finished: meta.finished,
          currentWatermark: meta.status.inputWatermark,
          idle: meta.status.idle,
        };
      },
      (vertex, index) =>
        live.get(actorId(this.#graph, vertex, index))?.source ?? undefined,
    );
  }
}
