// An actor a KV-runtime worker runs now: the shared actor record (its
// subtask built in memory, paused or with mail), plus its lease, its
// committed bookkeeping and what the step in progress has sent. It exists
// only while the worker holds the lease; dropped, it is rebuilt from the
// last commit by whichever worker takes the actor up.

import type { StreamElement } from "../../runtime/stream_element.ts";
import type { Encoded } from "../_codec.ts";
import {
  type ActorRecord,
  inputWatermarkOf,
  machineOf,
} from "../actor_record.ts";
import type { KvStorage } from "./kv_storage.ts";
import type { Lease } from "./lease.ts";
import type { ActorWiring } from "./_wiring.ts";
import type { CommittedStatus, Meta } from "./_step_commit.ts";
import type { ReadAhead } from "./_read_ahead.ts";

/**
 * An actor this worker holds the lease of, and its step buffers. Its
 * `paused` says it was held by back-pressure or watermark alignment at its
 * last step.
 */
export interface LiveActor extends ActorRecord {
  readonly wiring: ActorWiring;
  readonly lease: Lease;
  readonly storage: KvStorage;
  /** Its bookkeeping as last committed (a step works on a copy). */
  meta: Meta;
  /** Per output channel: elements sent in this step. */
  out: StreamElement[][];
  /** Snapshots taken for checkpoints in this step. */
  acks: [number, Encoded][];
  /** Per output channel: the consumer's last applied entry, as last read. */
  consumed: number[];
  /** Per output channel: entries up to here may be deleted, as last read. */
  released: number[];
  /** A source's records read per partition at the last commit (replay mode). */
  readBase: readonly number[];
  recordsInBase: number;
  recordsOutBase: number;
  /** Resolves the step waiting for mail, if one is. */
  wake: (() => void) | null;
  /** Whether its input channels may hold entries not read yet. */
  dirty: boolean;
  /** Its next input, read since its last commit; see `_read_ahead.ts`. */
  readAhead: ReadAhead | null;
  /** The last completed checkpoint the subtask was told of. */
  notified: number;
}

/** What an actor reports about itself now, as its next step commits it. */
export function statusOf(live: LiveActor): CommittedStatus {
  const metrics = machineOf(live).metrics;
  return {
    inputWatermark: inputWatermarkOf(live),
    outputWatermark: metrics.outputWatermark,
    idle: metrics.idle,
    recordsIn: live.recordsInBase + metrics.recordsIn,
    recordsOut: live.recordsOutBase + metrics.recordsOut,
    channels: live.subtask?.inputChannels() ?? [],
  };
}
