// The status of a KV-runtime job as any process reads it: every actor's
// status as last committed (the owned ones as they are now), who runs it,
// what waits in its input channels, and whether it is stuck after failures.

import type { KvSubtaskStatus } from "./kv_subtask_status.ts";
import { gaugeValues } from "../actor_record.ts";
import type { Meta } from "./_step_commit.ts";
import { statusOf } from "./_live_actor.ts";
import { readLeases } from "./_ownership.ts";
import type { KvWorker } from "./_worker.ts";

/**
 * Every actor's status as last committed (owned ones as they are now),
 * with its input channels.
 */
export async function readStatus(
  worker: KvWorker,
): Promise<KvSubtaskStatus[]> {
  const now = worker.clock.now();
  const { wirings } = worker;
  const [metas, leases, failures] = await Promise.all([
    Promise.all(
      wirings.map((w) =>
        worker.live.get(w.id)?.meta ??
          worker.readerOf(w.id).get<Meta>(["meta"])
      ),
    ),
    readLeases(worker),
    worker.failures.read(),
  ]);
  const metaOf = new Map(wirings.map((w, i) => [w.id, metas[i]]));
  return wirings.map((w, i) => {
    const live = worker.live.get(w.id);
    const status = live !== undefined ? statusOf(live) : metas[i]?.status;
    const lease = leases.get(w.id);
    const owner = lease !== undefined && lease.expiresAt > now
      ? lease.owner
      : null;
    // Stopped after failures, and not run again since by any worker.
    const failure = failures.get(w.id);
    const stuck = owner === null && failure?.resumedAt === undefined
      ? failure
      : undefined;
    return {
      id: w.id,
      operator: w.vertex,
      subtask: w.index,
      inputWatermark: status?.inputWatermark ?? -Infinity,
      outputWatermark: status?.outputWatermark ?? -Infinity,
      idle: status?.idle ?? false,
      recordsIn: status?.recordsIn ?? 0,
      recordsOut: status?.recordsOut ?? 0,
      // Log entries written to its inputs and not applied yet: what a
      // mailbox holds in the local runtime.
      mailboxDepth: w.inputs.reduce(
        (sum, input, c) =>
          sum +
          Math.max(
            0,
            (metaOf.get(input.producer)?.outputs[input.out] ?? 0) -
              (metas[i]?.inputs[c] ?? 0),
          ),
        0,
      ),
      watermarkLagMs: now - (status?.outputWatermark ?? -Infinity),
      paused: live?.paused ?? false,
      worker: owner,
      ...(stuck === undefined ? {} : { stuck }),
      gauges: live === undefined ? {} : gaugeValues(live),
      inputChannels: status?.channels ?? w.inputs.map(() => ({
        watermark: -Infinity,
        idle: false,
        aligned: true,
        ended: false,
        blocked: false,
      })),
    };
  });
}
