/**
 * One parallel instance of a chain of operators: the deterministic state
 * machine that the actor runtimes drive.
 *
 * @module
 */

import type { StatusWatermarkValve, ValveSnapshot } from "../time/mod.ts";
import { END, type StreamElement } from "./stream_element.ts";
import type { OperatorContext, StreamOperator } from "./stream_operator.ts";
import type { SubtaskOptions, SubtaskSend } from "./subtask_options.ts";
import type { SubtaskSnapshot } from "./subtask_snapshot.ts";
import type { InputChannelStatus, SubtaskMetrics } from "./subtask_metrics.ts";
import type { DeadLetter } from "./dead_letter.ts";
import { CAUSE, type RecordGuard } from "./_record_guard.ts";
import { guardChain } from "./_guard_chain.ts";
import { ChainOutput } from "./_chain_output.ts";
import { OperatorChain } from "./_operator_chain.ts";
import type { ReplayGate } from "./_replay_gate.ts";
import { BarrierAlignment } from "./_barrier_alignment.ts";
import {
  restoreSubtask,
  snapshotOptionsOf,
  snapshotSubtask,
  type SubtaskParts,
} from "./_subtask_state.ts";

export type {
  SubtaskEdge,
  SubtaskOptions,
  SubtaskSend,
} from "./subtask_options.ts";
export type { SubtaskSnapshot } from "./subtask_snapshot.ts";
export type { InputChannelStatus, SubtaskMetrics } from "./subtask_metrics.ts";

/**
 * A subtask: a {@linkcode StatusWatermarkValve} over its input channels, an
 * operator chain, and partitioned outputs.
 *
 * Records go to the head operator in batches; watermarks and statuses pass
 * the valve, whose merged result goes to the head operator; each operator
 * hands its output to the next; the tail's records are routed by each edge's
 * partitioner, while its watermarks and statuses go to every channel of every
 * edge. When every input channel has ended, the operators finish head to
 * tail and `end` is sent on every channel.
 *
 * Error policy: each
 * operator gets its own `OperatorContext.reject`, and each output edge's
 * partitioner one for the keys it cannot place. A record set aside becomes
 * a dead letter (see {@linkcode Subtask.takeDeadLetters}) whose position is
 * `"channel <c>, record <n>"`, `n` counting the records received on
 * channel `c` (kept in snapshots); under `"fail"` the step throws
 * `RecordFailedError` unless the record's strike is quarantined.
 *
 * Not thread safe; the runtime calls one method at a time.
 */
export class Subtask {
  readonly #head: StreamOperator<unknown, unknown>;
  readonly #out: ChainOutput;
  readonly #valve: StatusWatermarkValve;
  readonly #ended: boolean[];
  #numEnded = 0;
  #finished = false;
  readonly #parts: SubtaskParts;
  readonly #onSnapshot: SubtaskOptions["onSnapshot"];
  readonly #alignment: BarrierAlignment;
  readonly #chain: OperatorChain;
  readonly #replay: ReplayGate;
  // The error policy: dead letters, and where the input is (positions).
  readonly #guard: RecordGuard;
  readonly #received: number[];
  /** The subtask's counters. */
  readonly metrics: SubtaskMetrics = {
    recordsIn: 0,
    recordsOut: 0,
    inputWatermark: -Infinity,
    outputWatermark: -Infinity,
    idle: false,
  };

  /**
   * Wires the chain and opens every operator.
   *
   * @param options Operators, inputs, edges and input policy.
   * @param context Clocks, subtask index, parallelism and metrics.
   * @param send Delivers elements to downstream channels.
   * @throws {RangeError} If the chain is empty or there are no input channels.
   */
  constructor(
    options: SubtaskOptions,
    context: OperatorContext,
    send: SubtaskSend,
  ) {
    if (options.operators.length === 0) {
      throw new RangeError(
        "Cannot create Subtask as 'operators' must hold at least one operator: current value is []",
      );
    }
    const operators = options.operators;
    this.#head = operators[0];
    const chain = guardChain(this, options, context);
    const guard = this.#guard = chain.guard;
    this.#received = new Array(options.numInputChannels).fill(0);
    this.#out = new ChainOutput(
      options.edges,
      send,
      guard,
      chain.edges,
      this.metrics,
    );
    this.#chain = new OperatorChain(operators, this.#out, guard);
    this.#replay = this.#chain.replay;
    this.#valve = this.#chain.valve(options, this.metrics);
    this.#ended = new Array(options.numInputChannels).fill(false);
    this.#alignment = new BarrierAlignment(options.numInputChannels);
    this.#onSnapshot = options.onSnapshot;
    this.#parts = {
      operators,
      guard,
      valve: this.#valve,
      metrics: this.metrics,
      activityClock: context.activityClock,
      ended: this.#ended,
      received: this.#received,
      options: snapshotOptionsOf(options),
    };
    this.#chain.open(chain.contexts);
  }

  /** Whether every input ended and `end` was sent downstream. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Processes one element (`element`) from input channel `channel` (the
   * upstream subtask index).
   */
  receive(channel: number, element: StreamElement): void {
    if (!(channel >= 0 && channel < this.#ended.length)) {
      throw new RangeError(
        `Cannot receive an element as 'channel' must be an integer from 0 to ${
          this.#ended.length - 1
        }: current value is ${channel}`,
      );
    }
    if (this.#replay.replaying) {
      // Records set aside when they first came are skipped again, silently.
      this.#guard.cause = CAUSE.replay;
      this.#chain.replayElement(this.#valve, channel, element);
      return;
    }
    // Aligned checkpoints: after a channel delivered the barrier, its input
    // waits until every channel has.
    if (this.#alignment.blocked(channel)) {
      this.#alignment.hold(channel, element);
      return;
    }
    switch (element.kind) {
      case "records":
        this.metrics.recordsIn += element.values.length;
        this.#receiveRecords(channel, element.values, element.timestamps);
        break;
      case "watermark":
        this.#out.flushSideOutputs();
        this.#guard.cause = CAUSE.watermark;
        this.#guard.causeValue = element.watermark;
        this.#valve.inputWatermark(element.watermark, channel);
        break;
      case "status":
        this.#out.flushSideOutputs();
        this.#guard.cause = CAUSE.status;
        this.#valve.inputWatermarkStatus(element.status, channel);
        break;
      case "end":
        if (this.#ended[channel]) break;
        this.#ended[channel] = true;
        if (++this.#numEnded === this.#ended.length) this.#finishIfDrained();
        else if (this.#alignment.aligning) this.#completeAlignmentIfReady();
        break;
      case "barrier":
        this.#alignment.receiveBarrier(channel, element.checkpointId);
        this.#completeAlignmentIfReady();
        break;
    }
    this.#out.flushSideOutputs();
  }

  /**
   * The records this subtask set aside under its error policy since the
   * last call (see {@linkcode SubtaskOptions.errorPolicy}): the runtime
   * writes them to the job's dead-letter log. The subtask keeps them until
   * taken, so a runtime takes them after every step (and before a
   * snapshot it persists, so none is lost to a crash: a restore sets the
   * same records aside again, with the same ids).
   *
   * @returns The letters, oldest first; the subtask keeps none.
   */
  takeDeadLetters(): DeadLetter[] {
    return this.#guard.take();
  }

  // The head operator gets the batch; its position (channel, count) is kept
  // for dead letters. A source subtask positions its input itself.
  #receiveRecords(
    channel: number,
    values: unknown[],
    timestamps: number[],
  ): void {
    const guard = this.#guard;
    if (guard.partitions === null) {
      guard.unit = channel;
      guard.base = this.#received[channel];
    }
    this.#received[channel] += values.length;
    guard.cause = CAUSE.records;
    guard.input = values;
    guard.aligned[0] = true;
    this.#head.processBatch(values, timestamps);
    guard.input = null;
  }

  /**
   * Starts rebuilding event time by replay (the KV runtime's
   * `watermarkRecovery: "replay"`, when an actor restored without event
   * time is taken over): until {@linkcode Subtask.endReplay}, `receive`
   * takes the input the subtask had already applied since its last
   * checkpoint again, and emits nothing.
   *
   * Watermarks and statuses rebuild the valve and pass the operators that
   * keep no records (`replayRole`) up to the first one that does; records
   * run only through operators that generate watermarks (and the stateless
   * ones before them), so no state of records is changed and no record is
   * counted twice. Barriers and ends are skipped: the restored state holds
   * their effect.
   *
   * @param valve The valve as it was where the replayed input starts (see
   * {@linkcode Subtask.snapshotValve}): a channel that went idle before
   * that point sends nothing more to say so. Without it, every channel
   * starts active at `-Infinity`.
   */
  beginReplay(valve?: ValveSnapshot): void {
    if (valve !== undefined) {
      this.#valve.restore(valve);
      this.metrics.inputWatermark = valve.outputWatermark;
    }
    this.#replay.begin(
      valve && { watermark: valve.outputWatermark, status: valve.outputStatus },
    );
  }

  /**
   * The valve's state: each channel's watermark and status, and what it
   * handed on. The KV runtime keeps it where a replay starts (see
   * {@linkcode Subtask.beginReplay}).
   *
   * @returns Plain data, a copy.
   */
  snapshotValve(): ValveSnapshot {
    return this.#valve.snapshot();
  }

  /**
   * Ends a replay: the watermark and status that reached the first operator
   * keeping records (or the output) are handed on for real, once, as the
   * next input would have. Anything they fire is output; downstream drops
   * a watermark it already has.
   */
  endReplay(): void {
    // What the rebuilt watermark fires is processed for real: its rejects
    // count again.
    this.#guard.cause = CAUSE.watermark;
    this.#guard.causeValue = this.metrics.inputWatermark;
    this.#replay.end(this.#chain.inputs);
    this.#out.flushSideOutputs();
  }

  #completeAlignmentIfReady(): void {
    const checkpointId = this.#alignment.ready(this.#ended);
    if (checkpointId === null) return;
    this.#out.flushSideOutputs();
    this.#onSnapshot?.(checkpointId, this.snapshot(checkpointId));
    this.#out.broadcast({ kind: "barrier", checkpointId });
    this.#alignment.release((c, element) => this.receive(c, element));
  }

  /**
   * Returns the subtask's state: every operator's snapshot and, in persist
   * mode, the valve's channel watermarks and statuses.
   *
   * @param checkpointId The checkpoint the snapshot belongs to.
   * @param step Whether it is a step snapshot of the KV runtime, which cuts
   * nothing (see `SnapshotOptions.step`).
   * @returns Plain data; operators' parts may share live objects, so copy it
   * before processing more input.
   */
  snapshot(checkpointId: number, step = false): SubtaskSnapshot {
    return snapshotSubtask(this.#parts, checkpointId, step);
  }

  /**
   * Puts back a snapshot taken from an equally configured subtask; emits
   * nothing. Without a valve snapshot (replay mode), event time restarts at
   * `-Infinity`; with one (persist mode) the metrics show the restored
   * input and output watermarks and idleness at once, and the
   * input-activity clock resumes with its lag. An operator whose snapshot
   * is `undefined` (one the checkpoint did not have, see
   * `assignOperatorState`) starts empty.
   *
   * @param snapshot The snapshot.
   * @throws {RangeError} If the operator count differs.
   */
  restore(snapshot: SubtaskSnapshot): void {
    this.#numEnded += restoreSubtask(this.#parts, snapshot);
  }

  /**
   * Tells every operator that checkpoint `checkpointId` is complete, so
   * two-phase sinks commit, and waits for their work.
   *
   * @param checkpointId The completed (or restored) checkpoint.
   */
  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await this.#chain.notifyCheckpointComplete(checkpointId);
  }

  /** Lets operators emit what completed asynchronously (their mail). */
  processMail(): void {
    this.#guard.cause = CAUSE.mail;
    this.#chain.processMail();
    this.#out.flushSideOutputs();
    this.#finishIfDrained();
  }

  /**
   * Each input channel as the valve sees it, for diagnostics (the service's
   * `explain`): its last watermark (`-Infinity` before the first), whether
   * it is idle, whether it counts towards the merged watermark (`aligned`),
   * whether it ended, and whether it is blocked by checkpoint barrier
   * alignment. Read-only; a scan of the channels per call.
   *
   * @returns One entry per channel, in channel order.
   */
  inputChannels(): InputChannelStatus[] {
    return this.#ended.map((ended, c) => ({
      watermark: this.#valve.channelWatermark(c),
      idle: this.#valve.channelStatus(c) === "idle",
      aligned: this.#valve.channelAligned(c),
      ended,
      blocked: this.#alignment.blocked(c),
    }));
  }

  /** Whether an operator is full: the runtime stops delivering input until it drains. */
  get backPressured(): boolean {
    return this.#chain.backPressured;
  }

  /** Asynchronous calls in flight in the operators. */
  get inFlight(): number {
    return this.#chain.inFlight;
  }

  /** Waits for asynchronous work started by the operators (e.g. a sink's final commit). */
  async settle(): Promise<void> {
    await this.#chain.settle();
  }

  /** Runs the operators' processing-time work due at `now` (milliseconds). */
  onProcessingTime(now: number): void {
    this.#guard.cause = CAUSE.processingTime;
    this.#guard.causeValue = now;
    this.#chain.onProcessingTime(now);
    this.#out.flushSideOutputs();
  }

  /** The earliest processing time at which an operator has work, or `Infinity`. */
  nextProcessingTime(): number {
    return this.#chain.nextProcessingTime();
  }

  /**
   * Finishes once every input ended and no asynchronous call is in flight:
   * Flink's `endInput` waits for the async queue to drain.
   */
  #finishIfDrained(): void {
    if (this.#finished || this.#numEnded < this.#ended.length) return;
    if (this.inFlight > 0) return;
    this.#finish();
  }

  #finish(): void {
    this.#guard.cause = CAUSE.end;
    this.#chain.finish();
    this.#out.flushSideOutputs();
    this.#out.broadcast(END);
    this.#finished = true;
  }
}
