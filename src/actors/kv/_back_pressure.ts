// Back-pressure between KV-runtime actors, through their channel logs: a
// producer pauses while a consumer is `maxChannelLag` entries behind on
// one of its outputs, and deletes the entries its consumers applied. The
// consumers' positions are read from their committed meta, only when the
// producer's last reading says it may be behind or has entries to delete.

import { releasable } from "./_replay.ts";
import type { LiveActor } from "./_live_actor.ts";
import type { KvWorker } from "./_worker.ts";

/**
 * Whether a consumer is `maxChannelLag` entries behind on some output
 * channel; the consumers' positions are re-read only when it looks so.
 */
export async function isBlocked(
  worker: KvWorker,
  live: LiveActor,
): Promise<boolean> {
  const { meta, wiring } = live;
  const behind = (k: number) =>
    meta.outputs[k] - live.consumed[k] >= worker.maxLag;
  if (!wiring.outputs.some((_, k) => behind(k))) return false;
  await refreshConsumed(worker, live);
  return wiring.outputs.some((_, k) => behind(k));
}

/**
 * Reads where the consumers of an actor's outputs are: what they applied
 * (room to write) and what they no longer need (entries to delete).
 */
export async function refreshConsumed(
  worker: KvWorker,
  live: LiveActor,
): Promise<void> {
  const { wiring } = live;
  const metas = await Promise.all(
    wiring.outputs.map((o) => worker.metaOf(o.consumer)),
  );
  wiring.outputs.forEach((o, k) => {
    const consumer = metas[k];
    if (consumer === undefined) return;
    live.consumed[k] = Math.max(live.consumed[k], consumer.inputs[o.channel]);
    live.released[k] = Math.max(
      live.released[k],
      releasable(consumer, o.channel, worker.persist),
    );
  });
}

/** Whether an actor has log entries its consumers released to delete. */
export function trimDue(live: LiveActor): boolean {
  return live.meta.trimmed.some((t, k) => live.released[k] > t);
}
