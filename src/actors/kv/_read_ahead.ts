// An actor's next input, read while the rest of the worker's round goes
// on: once a step has committed, its consumer positions are final, so
// the entries after them may be read at once instead of at the start of
// the next step (one round trip to KV less per step when KV is far). It
// is only ever started from committed positions, after the commit that
// made them so: a step whose commit failed leaves none behind (the actor
// is dropped with it), and a step uses it only if it starts from exactly
// those positions. Log entries never change once written, so what it read
// is the log's prefix; entries written after it are read by a later step.
// It is one attempt: a read that failed is not retried in the background
// (the step reads afresh, with retries), and the worker loop tracks it so
// that nothing of it outlives a settle or the shutdown.

import type { StreamElement } from "../../runtime/stream_element.ts";
import { readEntries } from "./channel_log.ts";
import { ENTRIES_PER_CHANNEL, type KvWorker } from "./_worker.ts";
import type { LiveActor } from "./_live_actor.ts";
import type { Meta } from "./_step_commit.ts";

/** Input entries read ahead from committed positions. */
export interface ReadAhead {
  /** Per input channel: the last entry applied when it was started. */
  readonly from: readonly number[];
  /** Per input channel: the entries after `from`; `null` if a read failed. */
  readonly entries: Promise<StreamElement[][][] | null>;
}

/**
 * Reads the entries after `meta.inputs` of every open input channel, each
 * retried while Deno KV fails transiently, or once (`once`).
 */
function readInputEntries(
  worker: KvWorker,
  live: LiveActor,
  meta: Meta,
  once = false,
): Promise<StreamElement[][][]> {
  return Promise.all(live.wiring.inputs.map((input, c) => {
    if (meta.ended[c]) return Promise.resolve([] as StreamElement[][]);
    const applied = meta.inputs[c];
    if (!once) return worker.readEntries(input.producer, input.out, applied);
    return readEntries(worker.readerOf(input.producer), input.out, {
      applied,
      max: ENTRIES_PER_CHANNEL,
    });
  }));
}

/**
 * Starts reading an actor's next input from its committed positions, if
 * the worker overlaps steps and the actor reads channels.
 */
export function startReadAhead(worker: KvWorker, live: LiveActor): void {
  live.readAhead = null;
  if (!worker.overlapSteps || live.subtask === null) return;
  const meta = live.meta;
  if (meta.finished || meta.ended.every((e) => e)) return;
  live.readAhead = {
    from: [...meta.inputs],
    // A failed read is not an error of the step: it reads again itself.
    entries: readInputEntries(worker, live, meta, true).catch(() => null),
  };
}

/**
 * The entries a step applies: those read ahead if they start where the
 * step does and hold any, else a read now. Whether they were read ahead
 * (so more may have been written since: the actor stays dirty).
 */
export async function takeInput(
  worker: KvWorker,
  live: LiveActor,
  meta: Meta,
): Promise<{ batches: StreamElement[][][]; ahead: boolean }> {
  const ahead = live.readAhead;
  live.readAhead = null;
  if (ahead !== null && ahead.from.every((a, c) => a === meta.inputs[c])) {
    const batches = await ahead.entries;
    if (batches !== null && batches.some((b) => b.length > 0)) {
      return { batches, ahead: true };
    }
  }
  return { batches: await readInputEntries(worker, live, meta), ahead: false };
}
