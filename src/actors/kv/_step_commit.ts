// What one actor step of the KV runtime commits: its bookkeeping (Meta),
// and the operations of the step's one atomic write, which must fit one
// Deno KV commit.

import type { StreamElement } from "../../runtime/stream_element.ts";
import type { InputChannelStatus } from "../../runtime/subtask.ts";
import type { ValveSnapshot } from "../../time/mod.ts";
import type { Encoded } from "../_codec.ts";
import { encodeStructured } from "../_codec.ts";
import type { StorageOp } from "../storage.ts";
import { encodedKeySize, KV_LIMITS as LIMITS } from "../../kv/mod.ts";
import { logEntries, logKey } from "./channel_log.ts";
import type { ActorWiring } from "./_wiring.ts";

/** Deletions of applied log entries per step, at most. */
const TRIMS_PER_STEP = 64;
// A step writes up to three log entries per output channel (a periodic
// watermark, a barrier, records after it) besides its state, meta, a
// checkpoint snapshot and up to 64 deletions: this many operations at most.
const ENTRIES_PER_OUTPUT = 3;
const OTHER_OPS = 72;

/** What a subtask reports about itself, committed with every step. */
export interface CommittedStatus {
  inputWatermark: number;
  outputWatermark: number;
  idle: boolean;
  recordsIn: number;
  recordsOut: number;
  /** Each input channel as the valve saw it. */
  channels: InputChannelStatus[];
}

/**
 * What an actor commits with every step, next to its state. Sequence
 * numbers make redelivery harmless: a consumer reads entry `inputs[c] + 1`
 * next and never an entry twice.
 */
export interface Meta {
  /** Steps committed. */
  step: number;
  /** Per input channel: the last log entry applied. */
  inputs: number[];
  /** Per input channel: whether its `end` arrived. */
  ended: boolean[];
  /** Per output channel: the last log entry written. */
  outputs: number[];
  /** Per output channel: entries up to here are deleted. */
  trimmed: number[];
  /** Whether the subtask finished (its `end` is sent). */
  finished: boolean;
  /**
   * Whether, after it finished, its sinks wrote their final transaction
   * (only then is the job over for this actor).
   */
  sinksDone: boolean;
  /** The last checkpoint a source took part in. */
  triggered: number;
  /** The last checkpoint whose snapshot is stored under `["ack", id]`. */
  acked: number;
  /**
   * Per input channel: the last entry applied when the subtask last took
   * part in a checkpoint. In replay mode an actor taken over reads its
   * input again from here to rebuild event time, so producers keep these
   * entries. Missing in metas written before replay existed.
   */
  replayFrom?: number[];
  /**
   * A source's reader position when it last took part in a checkpoint
   * (unset: the reader's first position), replay mode only.
   */
  replayReader?: unknown;
  /** A source's records read since then, per partition (replay mode only). */
  replayCounts?: number[];
  /**
   * The valve at `replayFrom` (replay mode only): a replay starts from it,
   * as a channel idle since before then says so no more.
   */
  replayValve?: ValveSnapshot;
  /** The last state the service reports for this actor. */
  status: CommittedStatus;
}

/** The bookkeeping of an actor that never committed. */
export function freshMeta(wiring: ActorWiring): Meta {
  return {
    step: 0,
    inputs: wiring.inputs.map(() => 0),
    ended: wiring.inputs.map(() => false),
    outputs: wiring.outputs.map(() => 0),
    trimmed: wiring.outputs.map(() => 0),
    finished: false,
    sinksDone: false,
    triggered: 0,
    acked: 0,
    replayFrom: wiring.inputs.map(() => 0),
    status: {
      inputWatermark: -Infinity,
      outputWatermark: -Infinity,
      idle: false,
      recordsIn: 0,
      recordsOut: 0,
      channels: [],
    },
  };
}

/** What a step produced, for {@linkcode stepCommit}. */
export interface StepResult {
  /** The subtask's state and status after the step, unless only trimming. */
  readonly subtask: {
    readonly state: unknown;
    readonly status: CommittedStatus;
    readonly finished: boolean;
  } | null;
  /** Per output channel: the elements sent, in order. */
  readonly out: readonly (readonly StreamElement[])[];
  /** Snapshots taken for checkpoints, by checkpoint id. */
  readonly acks: readonly (readonly [number, Encoded])[];
  /**
   * Per output channel: the entries up to here may be deleted (the
   * consumer applied them and, in replay mode, will not read them again).
   */
  readonly released: readonly number[];
}

/**
 * The operations of a step's atomic write, and the bookkeeping it leaves:
 * the state, new log entries (a barrier an entry of its own), the
 * checkpoint snapshot (replacing the previous one), deletions of entries the
 * consumers applied (bounded per step), and the meta.
 *
 * @param meta The bookkeeping of the last committed step (not changed).
 * @param result What the step produced.
 */
export function stepCommit(
  meta: Meta,
  result: StepResult,
): { next: Meta; ops: StorageOp[] } {
  const next: Meta = structuredClone(meta);
  next.step++;
  const ops: StorageOp[] = [];
  if (result.subtask !== null) {
    // A finished subtask keeps its last state: its sinks finish after the
    // commit, and again (idempotently) after a take-over.
    next.finished = result.subtask.finished;
    next.status = result.subtask.status;
    ops.push({
      type: "put",
      key: ["state"],
      value: encodeStructured(result.subtask.state),
    });
  }
  result.out.forEach((elements, k) => {
    for (const entry of logEntries(elements)) {
      next.outputs[k]++;
      ops.push({
        type: "put",
        key: logKey(k, next.outputs[k]),
        value: encodeStructured(entry),
      });
    }
  });
  for (const [id, snapshot] of result.acks) {
    ops.push({ type: "put", key: ["ack", id], value: snapshot });
    if (next.acked > 0 && next.acked !== id) {
      ops.push({ type: "delete", key: ["ack", next.acked] });
    }
    next.acked = id;
  }
  let trims = 0;
  for (let k = 0; k < next.trimmed.length && trims < TRIMS_PER_STEP; k++) {
    while (next.trimmed[k] < result.released[k] && trims < TRIMS_PER_STEP) {
      next.trimmed[k]++;
      ops.push({ type: "delete", key: logKey(k, next.trimmed[k]) });
      trims++;
    }
  }
  ops.push({ type: "put", key: ["meta"], value: next });
  return { next, ops };
}

/**
 * Refuses a subtask whose step could exceed one Deno KV commit: too many
 * output channels for 1000 mutations, or for 80 KiB of written keys with
 * the job's key prefix.
 *
 * @param wiring The subtask.
 * @param base The job's KV-runtime prefix.
 * @param action What is refused, for the message ("create KvRuntime").
 * @throws {RangeError} If a step of the subtask may not fit.
 */
export function checkStepFits(
  wiring: ActorWiring,
  base: readonly string[],
  action: string,
): void {
  const outputs = wiring.outputs.length;
  const key = [...base, "a", wiring.id, "v", ...logKey(outputs, 1e15)];
  const mutations = ENTRIES_PER_OUTPUT * outputs + OTHER_OPS;
  const keyBytes = (ENTRIES_PER_OUTPUT * outputs + OTHER_OPS) *
    encodedKeySize(key);
  if (mutations <= LIMITS.mutations && keyBytes <= LIMITS.keyTotalBytes) {
    return;
  }
  throw new RangeError(
    `Cannot ${action} as subtask '${wiring.id}' must have few enough output channels for one step to fit a Deno KV commit (${LIMITS.mutations} mutations, ${LIMITS.keyTotalBytes} bytes of written keys; a step writes up to ${ENTRIES_PER_OUTPUT} log entries per channel): current value is ${outputs} channels, up to ${mutations} mutations and ${keyBytes} bytes of keys (a shorter job name or a lower parallelism downstream helps)`,
  );
}
