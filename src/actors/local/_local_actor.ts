// The local runtime's actor: the shared actor record plus a mailbox in
// memory and the mailboxes it sends to; and how a job's actors are built
// and wired, edge by edge, and what status says of one.

import type { Clock } from "../../time/clock.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import type { StreamElement } from "../../runtime/stream_element.ts";
import type { ErrorPolicy } from "../../runtime/dead_letter.ts";
import type { SnapshotOptions } from "../../runtime/stream_operator.ts";
import { buildSubtask, edgeChannelOffsets } from "../_subtask_factory.ts";
import {
  type ActorRecord,
  actorRecord,
  gaugeValues,
  inputWatermarkOf,
  machineOf,
} from "../actor_record.ts";
import type { SubtaskStatus } from "../actor_runtime.ts";
import type { AlignmentReporter } from "../alignment_reporter.ts";

/** One element in a mailbox, on one of the receiver's input channels. */
export interface Message {
  readonly channel: number;
  readonly element: StreamElement;
}

/** Where one output channel goes: the receiving actor and its channel offset. */
export interface Target {
  readonly actor: LocalActor;
  readonly channelOffset: number;
}

/** An actor of the local runtime. */
export interface LocalActor extends ActorRecord {
  /** Elements to process, from `head` on (taken ones are cleared). */
  readonly mailbox: Message[];
  head: number;
  /** Per edge, per channel: the receiving actor and its channel offset. */
  targets: Target[][];
  /** Stopped from taking input by `LocalRuntime.suspend`. */
  suspended: boolean;
  /** Its source vertex, if it is an aligned source; else `null`. */
  alignmentSource: string | null;
}

/** What the runtime gives every actor it builds. */
export interface LocalActorHooks {
  readonly clock: Clock;
  readonly persistWatermarks: boolean;
  readonly errorPolicy: ErrorPolicy;
  readonly quarantine: ReadonlySet<string>;
  readonly alignment: AlignmentReporter;
  /** An operator has mail: wake the runtime if it waits. */
  wake(): void;
  /** The `snapshotParts` hook of an actor. */
  snapshotParts(actorId: string): SnapshotOptions["parts"];
  /** An actor's snapshot for a checkpoint. */
  onSnapshot(actorId: string, checkpointId: number, snapshot: unknown): void;
}

/**
 * Builds every actor of the job, vertices in the graph's order (upstream
 * first), and wires each upstream actor's edges to the downstream mailboxes.
 */
export function buildLocalActors(
  graph: JobGraph,
  hooks: LocalActorHooks,
): LocalActor[] {
  const actors: LocalActor[] = [];
  const byVertex = new Map<string, LocalActor[]>();
  for (const vertex of graph.vertices) {
    const ofVertex: LocalActor[] = [];
    for (let index = 0; index < vertex.parallelism; index++) {
      // Assigned once below; the subtask's callbacks need the binding first.
      // deno-lint-ignore prefer-const
      let actor: LocalActor;
      const id = `${graph.jobName}/${vertex.id}/${index}`;
      const built = buildSubtask(graph, vertex, index, {
        clock: hooks.clock,
        persistWatermarks: hooks.persistWatermarks,
        errorPolicy: hooks.errorPolicy,
        quarantine: hooks.quarantine,
        send: (edge, channel, element) => {
          const target = actor.targets[edge][channel];
          target.actor.mailbox.push({
            channel: target.channelOffset + index,
            element,
          });
        },
        requestMail: () => {
          actor.mail = true;
          hooks.wake();
        },
        snapshotParts: hooks.snapshotParts(id),
        onSnapshot: (checkpointId, snapshot) =>
          hooks.onSnapshot(id, checkpointId, snapshot),
      });
      actor = {
        ...actorRecord(built),
        mailbox: [],
        head: 0,
        targets: [],
        suspended: false,
        alignmentSource: hooks.alignment.isAligned(vertex.id)
          ? vertex.id
          : null,
      };
      ofVertex.push(actor);
    }
    byVertex.set(vertex.id, ofVertex);
    actors.push(...ofVertex);
  }
  const offsets = edgeChannelOffsets(graph);
  graph.edges.forEach((edge, e) => {
    const downstream = byVertex.get(edge.to)!;
    for (const actor of byVertex.get(edge.from)!) {
      actor.targets.push(
        downstream.map((d) => ({ actor: d, channelOffset: offsets[e] })),
      );
    }
  });
  return actors;
}

/** What `LocalRuntime.status()` says of one actor at processing time `now`. */
export function localStatusOf(actor: LocalActor, now: number): SubtaskStatus {
  const metrics = machineOf(actor).metrics;
  return {
    id: actor.id,
    operator: actor.vertex.id,
    subtask: actor.index,
    inputWatermark: inputWatermarkOf(actor),
    outputWatermark: metrics.outputWatermark,
    idle: metrics.idle,
    recordsIn: metrics.recordsIn,
    recordsOut: metrics.recordsOut,
    mailboxDepth: actor.mailbox.length - actor.head,
    watermarkLagMs: now - metrics.outputWatermark,
    paused: actor.paused,
    gauges: gaugeValues(actor),
  };
}
