// Where a subtask's operator chain sends its output: each operator's output
// is the next operator's input, and the tail's goes out on the subtask's
// edges. Records are routed by each edge's partitioner; watermarks,
// statuses and barriers go to every channel of every edge. Side outputs
// are buffered during one input element and routed before the next
// watermark or status, so they never overtake or fall behind it.

import type { WatermarkStatus } from "../time/mod.ts";
import { recordBatch, type StreamElement } from "./stream_element.ts";
import type {
  OperatorOutput,
  RejectRecord,
  StreamOperator,
} from "./stream_operator.ts";
import type { SubtaskEdge, SubtaskSend } from "./subtask_options.ts";
import type { SubtaskMetrics } from "./subtask_metrics.ts";
import type { RecordGuard } from "./_record_guard.ts";

/** The output edges of one subtask, and the side outputs buffered for them. */
export class ChainOutput {
  readonly #edges: readonly SubtaskEdge[];
  readonly #send: SubtaskSend;
  readonly #guard: RecordGuard;
  readonly #rejectKey: readonly RejectRecord[];
  readonly #metrics: SubtaskMetrics;
  readonly #side = new Map<string, [unknown[], number[]]>();
  /** The chain tail's output: routes records, broadcasts event time. */
  readonly tail: OperatorOutput<unknown>;

  /**
   * @param edges The subtask's output edges.
   * @param send Delivers elements to downstream channels.
   * @param guard The subtask's guard (whether a batch is its input).
   * @param rejectKey One reject function per edge, for its partitioner.
   * @param metrics The subtask's counters, kept up to date here.
   */
  constructor(
    edges: readonly SubtaskEdge[],
    send: SubtaskSend,
    guard: RecordGuard,
    rejectKey: readonly RejectRecord[],
    metrics: SubtaskMetrics,
  ) {
    this.#edges = edges;
    this.#send = send;
    this.#guard = guard;
    this.#rejectKey = rejectKey;
    this.#metrics = metrics;
    this.tail = this.#tailOutput();
  }

  /** Sends `element` on every channel of every edge. */
  broadcast(element: StreamElement): void {
    for (let e = 0; e < this.#edges.length; e++) {
      for (let c = 0; c < this.#edges[e].numChannels; c++) {
        this.#send(e, c, element);
      }
    }
  }

  /** Routes the side outputs buffered since the last call. */
  flushSideOutputs(): void {
    if (this.#side.size === 0) return;
    for (const [tag, [values, timestamps]] of this.#side) {
      this.#route(tag, values, timestamps);
    }
    this.#side.clear();
  }

  #route(
    tag: string | undefined,
    values: unknown[],
    timestamps: number[],
  ): void {
    for (let e = 0; e < this.#edges.length; e++) {
      const edge = this.#edges[e];
      if (edge.sideOutputTag !== tag) continue;
      const send = this.#send;
      this.#guard.edgeAligned = values === this.#guard.input;
      edge.partitioner.route(
        values,
        timestamps,
        edge.numChannels,
        function toChannel(c, v, t) {
          send(e, c, recordBatch(v, t));
        },
        this.#rejectKey[e],
      );
    }
  }

  #tailOutput(): OperatorOutput<unknown> {
    return {
      emitBatch: (values, timestamps) => {
        if (values.length === 0) return;
        this.#metrics.recordsOut += values.length;
        this.#route(undefined, values, timestamps);
      },
      emitWatermark: (watermark) => {
        this.flushSideOutputs();
        this.#metrics.outputWatermark = watermark;
        this.broadcast({ kind: "watermark", watermark });
      },
      emitWatermarkStatus: (status: WatermarkStatus) => {
        this.flushSideOutputs();
        this.#metrics.idle = status === "idle";
        this.broadcast({ kind: "status", status });
      },
      emitSideOutput: (tag, value, timestamp) => {
        let buffer = this.#side.get(tag);
        if (buffer === undefined) {
          buffer = [[], []];
          this.#side.set(tag, buffer);
        }
        buffer[0].push(value);
        buffer[1].push(timestamp);
      },
    };
  }
}

/**
 * Operator `next` as the output of the one before it; side outputs leave
 * the chain at once, through the chain's output.
 */
export function inputOf(
  next: StreamOperator<unknown, unknown>,
  tail: OperatorOutput<unknown>,
  guard: RecordGuard,
  index: number,
): OperatorOutput<unknown> {
  const aligned = guard.aligned;
  return {
    emitBatch(values, timestamps) {
      if (values.length === 0) return;
      // Whether `next` sees the subtask's input batch itself: its dead
      // letters then get exact input positions.
      aligned[index] = values === guard.input;
      next.processBatch(values, timestamps);
    },
    emitWatermark(watermark) {
      next.processWatermark(watermark);
    },
    emitWatermarkStatus(status) {
      next.processWatermarkStatus(status);
    },
    emitSideOutput(tag, value, timestamp) {
      tail.emitSideOutput(tag, value, timestamp);
    },
  };
}
