// The event time of a source subtask, per partition (Flink's per-split
// watermarks): each partition has its own generator, whose
// `onEvent` goes to the partition's immediate output of a multiplexer and
// whose periodic emits go to its deferred output; one `onPeriodicEmit()`
// merges them into the emitter. A partition that ended releases its output.

import {
  isCheckpointedGenerator,
  WatermarkEmitter,
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkOutputMultiplexer,
  type WatermarkStatusOutput,
  type WatermarkStrategy,
} from "../time/mod.ts";
import type { OperatorContext } from "./stream_operator.ts";
import type { SourceSubtaskSnapshot } from "./source_subtask_snapshot.ts";
import type { PartitionState } from "./partition_state.ts";

/** One partition's generator and its outputs into the multiplexer. */
export interface Partition<T> {
  readonly generator: WatermarkGenerator<T>;
  readonly immediate: WatermarkOutput;
  readonly deferred: WatermarkOutput;
  /** Whether the partition ended and its output left the multiplexer. */
  released: boolean;
}

/** The partitions' generators, their multiplexer, and the emitter after it. */
export class SourcePartitions<T> {
  /** One entry per partition, in the reader's order. */
  readonly all: Partition<T>[] = [];
  /** The source's watermark and idleness, as emitted downstream. */
  readonly emitter: WatermarkEmitter;
  readonly #multiplexer: WatermarkOutputMultiplexer;
  readonly #names: readonly string[];
  readonly #interval: number;
  /** When the next periodic emission is due; `Infinity` for none. */
  nextPeriodic: number;
  /** Whether the input ended: every partition is finished. */
  #ended = false;

  /**
   * @param names The reader's partitions.
   * @param strategy Creates each partition's generator.
   * @param context The subtask's context: clocks, index, metrics.
   * @param output Receives the merged watermark and status.
   * @param interval The periodic-emission interval (0 for none).
   */
  constructor(
    names: readonly string[],
    strategy: WatermarkStrategy<T>,
    context: OperatorContext,
    output: WatermarkStatusOutput,
    interval: number,
  ) {
    this.#names = names;
    this.#interval = interval;
    this.emitter = new WatermarkEmitter(output);
    this.#multiplexer = new WatermarkOutputMultiplexer(this.emitter);
    for (const id of names) {
      this.#multiplexer.registerNewOutput(id);
      this.all.push({
        generator: strategy.createWatermarkGenerator({
          clock: context.activityClock,
          subtaskIndex: context.subtaskIndex,
          metrics: context.metrics,
        }),
        immediate: this.#multiplexer.getImmediateOutput(id),
        deferred: this.#multiplexer.getDeferredOutput(id),
        released: false,
      });
    }
    this.nextPeriodic = interval > 0
      ? (context.startMs ?? context.clock.now()) + interval
      : Infinity;
  }

  /** Runs the periodic emission if it is due at `now`; returns whether it ran. */
  emitPeriodic(now: number): boolean {
    if (now < this.nextPeriodic) return false;
    for (const partition of this.all) {
      if (partition.released) continue;
      partition.generator.onPeriodicEmit(partition.deferred);
    }
    this.#multiplexer.onPeriodicEmit();
    // Re-based on the current time, not the due time.
    this.nextPeriodic = now + this.#interval;
    return true;
  }

  /**
   * Releases an ended partition's output (Flink's `releaseOutputForSplit`);
   * `false` if it was released already.
   */
  release(index: number): boolean {
    const partition = this.all[index];
    if (partition.released) return false;
    partition.released = true;
    this.#multiplexer.unregisterOutput(this.#names[index]);
    return true;
  }

  /**
   * Recombines the partitions left at once. Flink's `unregisterOutput`
   * waits for the next periodic emit; with an interval of 0 that never
   * comes, and no deferred update is pending between two periodic emits,
   * so recombining now only applies a release.
   */
  recombine(): void {
    this.#multiplexer.onPeriodicEmit();
  }

  /**
   * Each partition's name, own watermark and status, in the reader's
   * order: read from the multiplexer only when asked (observers), never
   * on the record path.
   */
  states(): PartitionState[] {
    const outputs = new Map(
      this.#multiplexer.snapshotState().outputs.map((o) => [o.id, o]),
    );
    return this.#names.map((name, i) => {
      const output = outputs.get(name);
      if (this.#ended || this.all[i].released || output === undefined) {
        return { name, watermark: Infinity, status: "finished" };
      }
      return {
        name,
        watermark: output.watermark,
        status: output.idle ? "idle" : "active",
      };
    });
  }

  /** The end of input: a last periodic emit, then the watermark `Infinity`. */
  end(): void {
    this.#ended = true;
    let registered = false;
    for (const partition of this.all) {
      if (partition.released) continue;
      registered = true;
      partition.generator.onPeriodicEmit(partition.deferred);
    }
    // With every output released there is nothing to combine, and an empty
    // multiplexer would go idle (FLINK-39586) just before the end.
    if (registered) this.#multiplexer.onPeriodicEmit();
    this.emitter.emitWatermark(Infinity);
  }

  /** Adds the persist-mode event-time fields to a source's snapshot. */
  snapshotInto(
    snapshot: { -readonly [F in keyof SourceSubtaskSnapshot]?: unknown },
  ): void {
    snapshot.generators = this.all.map((p) =>
      isCheckpointedGenerator(p.generator) ? p.generator.snapshotState() : null
    );
    snapshot.emitter = this.emitter.snapshotState();
    snapshot.multiplexer = this.#multiplexer.snapshotState();
    snapshot.released = this.all.flatMap((p, i) =>
      p.released ? [this.#names[i]] : []
    );
    // Taken before a periodic emission due at this instant runs (the
    // runtime triggers checkpoints first): the restored source runs it.
    snapshot.nextPeriodicMs = this.nextPeriodic;
  }

  /** Puts back the event-time fields of a source's snapshot, where present. */
  restore(snapshot: SourceSubtaskSnapshot): void {
    if (snapshot.generators !== undefined) {
      this.all.forEach((p, i) => {
        if (isCheckpointedGenerator(p.generator)) {
          p.generator.restoreState(snapshot.generators![i]);
        }
      });
    }
    if (snapshot.emitter !== undefined) {
      this.emitter.restoreState(snapshot.emitter);
    }
    for (const name of snapshot.released ?? []) {
      const index = this.#names.indexOf(name);
      if (index < 0 || this.all[index].released) continue;
      this.all[index].released = true;
      this.#multiplexer.unregisterOutput(name);
    }
    if (snapshot.multiplexer !== undefined) {
      this.#multiplexer.restoreState(snapshot.multiplexer);
    }
    if (snapshot.nextPeriodicMs !== undefined) {
      this.nextPeriodic = snapshot.nextPeriodicMs;
    }
  }
}
