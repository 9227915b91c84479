// Which partition ends a reader still has to report (`SourceBatch.ended`):
// shared by every reader, which reports each end once, and again after a
// restore (the SourceReader contract in runtime/source.ts).

import type { SourceBatch } from "../../runtime/source.ts";

/**
 * The report state of a reader's partition ends. An end a poll reaches is
 * reported with that poll's records (`reportWith`); an end reached before
 * (a partition with no records, or read to its end before a restore) is
 * reported on its own by the next poll (`nextUnreported`, `endOnly`).
 *
 * Cost: `nextUnreported` scans the partitions; it is called once per poll.
 */
export class EndReports {
  readonly #reported: boolean[];
  readonly #ended: (partition: number) => boolean;

  /**
   * @param count The reader's number of partitions.
   * @param ended Whether a partition has ended, as the reader knows it now.
   */
  constructor(count: number, ended: (partition: number) => boolean) {
    this.#reported = new Array<boolean>(count).fill(false);
    this.#ended = ended;
  }

  /** Forgets every report: a restored reader reports the ends again. */
  reset(): void {
    this.#reported.fill(false);
  }

  /** The first ended partition whose end is not reported, or -1. */
  nextUnreported(): number {
    for (let p = 0; p < this.#reported.length; p++) {
      if (!this.#reported[p] && this.#ended(p)) return p;
    }
    return -1;
  }

  /**
   * Returns `batch`, marked ended if its poll reached the end of its
   * partition (the end is then reported).
   */
  reportWith<T>(batch: SourceBatch<T>): SourceBatch<T> {
    const p = batch.partition;
    if (this.#reported[p] || !this.#ended(p)) return batch;
    this.#reported[p] = true;
    return { ...batch, ended: true };
  }

  /** Reports the end of `partition` on its own: a batch without records. */
  endOnly<T>(partition: number): SourceBatch<T> {
    this.#reported[partition] = true;
    return { partition, values: [], timestamps: [], ended: true };
  }
}
