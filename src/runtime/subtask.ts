/**
 * One parallel instance of a chain of operators: the deterministic state
 * machine that the actor runtimes drive.
 *
 * @module
 */

import {
  type PausableClock,
  type PausableClockSnapshot,
  StatusWatermarkValve,
  type ValveSnapshot,
  type WatermarkStatus,
} from "../time/mod.ts";
import { END, recordBatch, type StreamElement } from "./stream_element.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  SnapshotOptions,
  StreamOperator,
} from "./stream_operator.ts";
import type { Partitioner } from "./partitioner.ts";
import { ReplayGate } from "./_replay_gate.ts";
import type { DeadLetter, ErrorPolicy } from "./dead_letter.ts";
import type { OperatorDescriptor } from "./job_graph.ts";
import { CAUSE, type RecordGuard } from "./_record_guard.ts";
import { guardChain } from "./_guard_chain.ts";

/** One output edge of a subtask: the channels of one downstream operator. */
export interface SubtaskEdge {
  /** How records are spread over the channels. */
  readonly partitioner: Partitioner<unknown>;
  /** The downstream parallelism. */
  readonly numChannels: number;
  /** When set, the edge carries this side output instead of the main output. */
  readonly sideOutputTag?: string;
  /**
   * The downstream operator (its uid, or its positional id): a record whose
   * key the partitioner cannot take (the key selector throws, the key
   * cannot be hashed) is set aside by this subtask as a dead letter of
   * operator `"<target> key"`.
   * @default {"edge <index>"}
   */
  readonly target?: string;
}

/**
 * Sends one element to one channel of one edge.
 *
 * @param edge The index into the subtask's edges.
 * @param channel The downstream subtask index.
 * @param element The element; shared, never modify it.
 */
export type SubtaskSend = (
  edge: number,
  channel: number,
  element: StreamElement,
) => void;

/** Options of a {@linkcode Subtask}. */
export interface SubtaskOptions {
  /** The operator chain, head first; at least one operator. */
  readonly operators: readonly StreamOperator<unknown, unknown>[];
  /** How many upstream subtasks feed this one. */
  readonly numInputChannels: number;
  /** The output edges. */
  readonly edges: readonly SubtaskEdge[];
  /**
   * How the input channels' watermarks combine.
   * @default {"min"}
   */
  readonly inputPolicy?: "min" | "max";
  /**
   * Whether snapshots keep event-time progress (`watermarkRecovery: "persist"`).
   * @default {true}
   */
  readonly persistWatermarks?: boolean;
  /**
   * Stores large groups of operator state apart, for incremental
   * checkpoints (see {@linkcode SnapshotOptions.parts}); given by a runtime.
   */
  readonly snapshotParts?: SnapshotOptions["parts"];
  /**
   * Receives the subtask's snapshot when checkpoint barriers are aligned,
   * before the barrier is forwarded.
   */
  readonly onSnapshot?: (
    checkpointId: number,
    snapshot: SubtaskSnapshot,
  ) => void;
  /**
   * What to do with a record whose processing throws (see
   * {@linkcode ErrorPolicy}): set it aside as a dead letter, or throw
   * `RecordFailedError` out of `receive` (or whatever step processed it).
   * @default {"dead-letter"}
   */
  readonly errorPolicy?: ErrorPolicy;
  /**
   * Under `"fail"`: the strikes (`RecordFailedError.strike`) of records
   * that failed once, before the restore that built this subtask; the
   * records are set aside (`"quarantined"`) this time instead of failing
   * again, wherever they come in the input; and sites
   * (`RecordFailedError.site`) where every record that fails is set aside.
   * @default {new Set()}
   */
  readonly quarantine?: ReadonlySet<string>;
  /**
   * The chain's operators as the job graph describes them
   * (`JobVertex.operators`, one per operator, head first): dead letters
   * name an operator by its uid, or its name. Without them, by class name.
   * @default {undefined}
   */
  readonly descriptors?: readonly OperatorDescriptor[];
}

/** A subtask's state at a checkpoint, as plain data. */
export interface SubtaskSnapshot {
  /** Each operator's snapshot, head first. */
  readonly operators: unknown[];
  /** The valve's state, in persist mode only. */
  readonly valve?: ValveSnapshot;
  /** Which input channels had ended. */
  readonly ended: boolean[];
  /**
   * The last watermark and status the chain sent downstream, in persist
   * mode only: a restored subtask reports them (status, lag) before its
   * watermark next moves.
   */
  readonly output?: { readonly watermark: number; readonly idle: boolean };
  /**
   * The input-activity clock, in persist mode only: idleness countdowns
   * are readings of it, so a restore must put its lag back.
   */
  readonly activityClock?: PausableClockSnapshot;
  /**
   * How many records came on each input channel, in both recovery modes:
   * dead letters' positions (`"channel 1, record 230"`) and ids count from
   * it, so a restored subtask names a record as the one before did. Absent
   * in snapshots of older versions, and dropped when a rescale changes the
   * channels: counts then start again at 0.
   */
  readonly received?: number[];
}

/** One input channel of a subtask, for diagnosis. */
export interface InputChannelStatus {
  /** The channel's last watermark. */
  watermark: number;
  /** Whether the channel is idle. */
  idle: boolean;
  /** Whether it takes part in the minimum (see `StatusWatermarkValve`). */
  aligned: boolean;
  /** Whether the channel has ended. */
  ended: boolean;
  /** Whether it is held by checkpoint barrier alignment. */
  blocked: boolean;
}

/** Counters and gauges of a subtask, read by the runtime's metrics. */
export interface SubtaskMetrics {
  /** Records received. */
  recordsIn: number;
  /** Records sent on the main output. */
  recordsOut: number;
  /** The merged input watermark. */
  inputWatermark: number;
  /** The last watermark sent downstream. */
  outputWatermark: number;
  /** Whether the subtask's output is idle. */
  idle: boolean;
}

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
 * Side outputs are buffered during one input element and routed before the
 * next watermark or status, so they never overtake or fall behind it.
 *
 * Error policy (DESIGN: "Errors in user code and poison records"): each
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
  readonly #operators: readonly StreamOperator<unknown, unknown>[];
  readonly #edges: readonly SubtaskEdge[];
  readonly #send: SubtaskSend;
  readonly #valve: StatusWatermarkValve;
  readonly #ended: boolean[];
  #numEnded = 0;
  #finished = false;
  readonly #side = new Map<string, [unknown[], number[]]>();
  readonly #snapshotOptions: SnapshotOptions;
  readonly #onSnapshot: SubtaskOptions["onSnapshot"];
  readonly #activityClock: PausableClock;
  readonly #pending: Promise<unknown>[] = [];
  // Barrier alignment: the checkpoint being aligned, which channels delivered
  // its barrier, and what arrived on those channels since (held back).
  #aligning: number | null = null;
  readonly #barrierSeen: boolean[];
  readonly #held: StreamElement[][];
  // Event-time replay (see beginReplay): where each operator's input comes
  // from (the valve for the head, the tail last), how far replayed records
  // and watermarks go, and what reached that boundary.
  readonly #inputs: OperatorOutput<unknown>[] = [];
  readonly #replay: ReplayGate;
  // The error policy: dead letters, and where the input is (positions).
  readonly #guard: RecordGuard;
  readonly #rejectKey: readonly RejectRecord[];
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
    this.#operators = options.operators;
    this.#edges = options.edges;
    this.#send = send;
    const operators = options.operators;
    const chain = guardChain(this, options, context);
    const guard = this.#guard = chain.guard;
    this.#rejectKey = chain.edges;
    this.#received = new Array(options.numInputChannels).fill(0);
    this.#replay = new ReplayGate(operators);
    const tail = this.#replay.gate(operators.length, this.#tailOutput());
    for (let i = 0; i < operators.length; i++) {
      this.#inputs.push(
        this.#replay.gate(i, inputOf(operators[i], tail, guard, i)),
      );
    }
    this.#inputs.push(tail);
    const head = this.#inputs[0];
    const metrics = this.metrics;
    this.#valve = new StatusWatermarkValve(options.numInputChannels, {
      emitWatermark(watermark) {
        metrics.inputWatermark = watermark;
        head.emitWatermark(watermark);
      },
      emitWatermarkStatus(status) {
        head.emitWatermarkStatus(status);
      },
    }, { policy: options.inputPolicy ?? "min" });
    this.#ended = new Array(options.numInputChannels).fill(false);
    this.#barrierSeen = new Array(options.numInputChannels).fill(false);
    this.#held = Array.from({ length: options.numInputChannels }, () => []);
    this.#snapshotOptions = {
      watermarks: options.persistWatermarks ?? true,
      parts: options.snapshotParts,
    };
    this.#onSnapshot = options.onSnapshot;
    this.#activityClock = context.activityClock;
    for (let i = 0; i < operators.length; i++) {
      operators[i].open(chain.contexts[i], this.#inputs[i + 1]);
    }
  }

  /** Whether every input ended and `end` was sent downstream. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Processes one element from one input channel.
   *
   * @param channel The upstream subtask index.
   * @param element The element.
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
      this.#replayElement(channel, element);
      return;
    }
    // Aligned checkpoints: after a channel delivered the barrier, its input
    // waits until every channel has (reference §6 rule 6).
    if (this.#barrierSeen[channel]) {
      this.#held[channel].push(element);
      return;
    }
    switch (element.kind) {
      case "records":
        this.metrics.recordsIn += element.values.length;
        this.#receiveRecords(channel, element.values, element.timestamps);
        break;
      case "watermark":
        this.#flushSideOutputs();
        this.#guard.cause = CAUSE.watermark;
        this.#guard.causeValue = element.watermark;
        this.#valve.inputWatermark(element.watermark, channel);
        break;
      case "status":
        this.#flushSideOutputs();
        this.#guard.cause = CAUSE.status;
        this.#valve.inputWatermarkStatus(element.status, channel);
        break;
      case "end":
        if (this.#ended[channel]) break;
        this.#ended[channel] = true;
        if (++this.#numEnded === this.#ended.length) this.#finishIfDrained();
        else if (this.#aligning !== null) this.#completeAlignmentIfReady();
        break;
      case "barrier":
        this.#receiveBarrier(channel, element.checkpointId);
        break;
    }
    this.#flushSideOutputs();
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
    this.#operators[0].processBatch(values, timestamps);
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
    this.#replay.end(this.#inputs);
    this.#flushSideOutputs();
  }

  #replayElement(channel: number, element: StreamElement): void {
    // Records set aside when they first came are skipped again, silently.
    this.#guard.cause = CAUSE.replay;
    switch (element.kind) {
      case "records":
        this.#inputs[0].emitBatch(element.values, element.timestamps);
        break;
      case "watermark":
        this.#valve.inputWatermark(element.watermark, channel);
        break;
      case "status":
        this.#valve.inputWatermarkStatus(element.status, channel);
        break;
    }
  }

  #receiveBarrier(channel: number, checkpointId: number): void {
    if (this.#aligning === null) this.#aligning = checkpointId;
    else if (checkpointId !== this.#aligning) {
      throw new RangeError(
        `Cannot align checkpoint barriers as barrier ${checkpointId} must not arrive while checkpoint ${this.#aligning} is aligning: current value is channel ${channel}`,
      );
    }
    this.#barrierSeen[channel] = true;
    this.#completeAlignmentIfReady();
  }

  #completeAlignmentIfReady(): void {
    for (let c = 0; c < this.#ended.length; c++) {
      if (!this.#barrierSeen[c] && !this.#ended[c]) return;
    }
    const checkpointId = this.#aligning!;
    this.#flushSideOutputs();
    this.#onSnapshot?.(checkpointId, this.snapshot(checkpointId));
    this.#broadcast({ kind: "barrier", checkpointId });
    this.#aligning = null;
    this.#barrierSeen.fill(false);
    // Release what the blocked channels held, in channel order; it may hold
    // the next barrier, which starts the next alignment.
    for (let c = 0; c < this.#held.length; c++) {
      const held = this.#held[c].splice(0);
      for (const element of held) this.receive(c, element);
    }
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
    // A sink closing its transaction (writing held records, encoding its
    // rows) may set records aside: they are positioned at the checkpoint.
    if (!step) {
      this.#guard.cause = CAUSE.barrier;
      this.#guard.causeValue = checkpointId;
    }
    const options = step
      ? { ...this.#snapshotOptions, step }
      : this.#snapshotOptions;
    const snapshot: SubtaskSnapshot = {
      operators: this.#operators.map((op) =>
        op.snapshotState(checkpointId, options)
      ),
      ended: [...this.#ended],
      received: [...this.#received],
    };
    if (this.#snapshotOptions.watermarks) {
      const persisted = snapshot as {
        -readonly [F in keyof SubtaskSnapshot]: SubtaskSnapshot[F];
      };
      persisted.valve = this.#valve.snapshot();
      persisted.output = {
        watermark: this.metrics.outputWatermark,
        idle: this.metrics.idle,
      };
      persisted.activityClock = this.#activityClock.snapshotState();
    }
    return snapshot;
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
    if (snapshot.operators.length !== this.#operators.length) {
      throw new RangeError(
        `Cannot restore Subtask as 'operators' must hold ${this.#operators.length} snapshots: current value holds ${snapshot.operators.length}`,
      );
    }
    this.#operators.forEach((op, i) => {
      if (snapshot.operators[i] !== undefined) {
        op.restoreState(snapshot.operators[i]);
      }
    });
    if (snapshot.valve !== undefined) {
      this.#valve.restore(snapshot.valve);
      this.metrics.inputWatermark = snapshot.valve.outputWatermark;
    }
    if (snapshot.output !== undefined) {
      this.metrics.outputWatermark = snapshot.output.watermark;
      this.metrics.idle = snapshot.output.idle;
    }
    if (snapshot.activityClock !== undefined) {
      this.#activityClock.restoreState(snapshot.activityClock);
    }
    // After a rescale the channels differ: their counts start again.
    if (snapshot.received?.length === this.#received.length) {
      this.#received.splice(0, Infinity, ...snapshot.received);
    }
    for (let c = 0; c < this.#ended.length; c++) {
      if (snapshot.ended[c] && !this.#ended[c]) {
        this.#ended[c] = true;
        this.#numEnded++;
      }
    }
  }

  /**
   * Tells every operator that checkpoint `checkpointId` is complete, so
   * two-phase sinks commit, and waits for their work.
   *
   * @param checkpointId The completed (or restored) checkpoint.
   */
  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await Promise.all(
      this.#operators.map((op) => op.notifyCheckpointComplete?.(checkpointId)),
    );
  }

  /** Lets operators emit what completed asynchronously (their mail). */
  processMail(): void {
    this.#guard.cause = CAUSE.mail;
    for (const operator of this.#operators) operator.processMail?.();
    this.#flushSideOutputs();
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
      blocked: this.#barrierSeen[c],
    }));
  }

  /** Whether an operator is full: the runtime stops delivering input until it drains. */
  get backPressured(): boolean {
    for (const operator of this.#operators) {
      if (operator.isBackPressured?.()) return true;
    }
    return false;
  }

  /** Asynchronous calls in flight in the operators. */
  get inFlight(): number {
    let count = 0;
    for (const operator of this.#operators) count += operator.inFlight?.() ?? 0;
    return count;
  }

  /** Waits for asynchronous work started by the operators (e.g. a sink's final commit). */
  async settle(): Promise<void> {
    await Promise.all(this.#pending.splice(0));
  }

  /**
   * Runs the operators' processing-time work due at `now`.
   *
   * @param now The current processing time in milliseconds.
   */
  onProcessingTime(now: number): void {
    this.#guard.cause = CAUSE.processingTime;
    this.#guard.causeValue = now;
    for (const operator of this.#operators) {
      if (operator.nextProcessingTime() <= now) operator.onProcessingTime(now);
    }
    this.#flushSideOutputs();
  }

  /** The earliest processing time at which an operator has work, or `Infinity`. */
  nextProcessingTime(): number {
    let next = Infinity;
    for (const operator of this.#operators) {
      const due = operator.nextProcessingTime();
      if (due < next) next = due;
    }
    return next;
  }

  /** Finishes the operators head to tail, then ends every output channel. */
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
    for (const operator of this.#operators) {
      const work = (operator.finish as () => unknown)();
      if (work instanceof Promise) this.#pending.push(work);
    }
    this.#flushSideOutputs();
    this.#broadcast(END);
    this.#finished = true;
  }

  #broadcast(element: StreamElement): void {
    for (let e = 0; e < this.#edges.length; e++) {
      for (let c = 0; c < this.#edges[e].numChannels; c++) {
        this.#send(e, c, element);
      }
    }
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

  #flushSideOutputs(): void {
    if (this.#side.size === 0) return;
    for (const [tag, [values, timestamps]] of this.#side) {
      this.#route(tag, values, timestamps);
    }
    this.#side.clear();
  }

  #tailOutput(): OperatorOutput<unknown> {
    return {
      emitBatch: (values, timestamps) => {
        if (values.length === 0) return;
        this.metrics.recordsOut += values.length;
        this.#route(undefined, values, timestamps);
      },
      emitWatermark: (watermark) => {
        this.#flushSideOutputs();
        this.metrics.outputWatermark = watermark;
        this.#broadcast({ kind: "watermark", watermark });
      },
      emitWatermarkStatus: (status: WatermarkStatus) => {
        this.#flushSideOutputs();
        this.metrics.idle = status === "idle";
        this.#broadcast({ kind: "status", status });
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
function inputOf(
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
