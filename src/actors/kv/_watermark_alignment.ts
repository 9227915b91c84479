// Watermark alignment (FLIP-182) across KV-runtime workers: every worker
// reads the aligned sources' committed watermarks each update interval and
// holds the sources it runs at their group's limit; no coordination is
// written. Only the reading differs from the local runtime: the
// coordinator itself is `WatermarkAlignmentCoordinator`.

import {
  isAlignmentEnabled,
  reportableWatermark,
  WatermarkAlignmentCoordinator,
} from "../../time/mod.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import { actorId, type ActorWiring } from "./_wiring.ts";
import type { Meta } from "./_step_commit.ts";
import type { KvWorker } from "./_worker.ts";

/** Announces the aligned sources' limits to the sources a worker runs. */
export class AlignmentAnnouncer {
  readonly #graph: JobGraph;
  readonly #alignment = new WatermarkAlignmentCoordinator();
  readonly #aligned: ActorWiring[] = [];
  readonly #intervalMs: number;
  #next = -Infinity;

  /**
   * Registers the job's aligned sources.
   *
   * @param graph The job.
   * @param wirings Every actor of the job.
   */
  constructor(graph: JobGraph, wirings: readonly ActorWiring[]) {
    this.#graph = graph;
    let interval = Infinity;
    for (const vertex of graph.vertices) {
      const alignment = vertex.source?.strategy.alignmentParameters;
      if (alignment === undefined || !isAlignmentEnabled(alignment)) continue;
      this.#alignment.registerSource(vertex.id, {
        group: alignment.group,
        maxDriftMs: alignment.maxDriftMs,
      });
      this.#aligned.push(...wirings.filter((w) => w.vertex === vertex.id));
      interval = Math.min(interval, alignment.updateIntervalMs);
    }
    this.#intervalMs = interval;
  }

  /** When the next announcement is due; `Infinity` without aligned sources. */
  get nextAt(): number {
    return this.#aligned.length > 0 ? this.#next : Infinity;
  }

  /**
   * Whether an announcement is due at `now`; if so, schedules the next.
   *
   * @param now Processing time.
   */
  due(now: number): boolean {
    if (now < this.#next || this.#aligned.length === 0) return false;
    this.#next = now + this.#intervalMs;
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
    this.#aligned.forEach((wiring, i) => {
      const source = live.get(wiring.id)?.built.source;
      const meta = metas[i];
      const reported = source !== undefined && source !== null
        ? (source.finished
          ? Infinity
          : reportableWatermark(source.currentWatermark, source.idle))
        : meta === undefined
        ? null
        : meta.finished
        ? Infinity
        : reportableWatermark(meta.status.inputWatermark, meta.status.idle);
      if (reported !== null) {
        this.#alignment.reportWatermark(wiring.vertex, wiring.index, reported);
      }
    });
    for (const announcement of this.#alignment.announcements()) {
      const target = live.get(
        actorId(this.#graph, announcement.sourceId, announcement.subtask),
      );
      if (target?.built.source) {
        target.built.source.maxDesiredWatermark =
          announcement.maxAllowedWatermark;
      }
    }
  }
}
