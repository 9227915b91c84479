/**
 * {@linkcode ActorRecord}: what a runtime keeps of one actor it runs,
 * whichever way its input travels (a mailbox in memory, channel logs in
 * Deno KV): the subtask built for it, and whether it is paused or has
 * mail. Each runtime extends it with what differs.
 *
 * @module
 */

import type { SourceSubtask } from "../runtime/source_subtask.ts";
import type { Subtask } from "../runtime/subtask.ts";
import type { BuiltSubtask } from "./_subtask_factory.ts";

/** The state machine of an actor: an operator chain or a source. */
export type ActorMachine = Subtask | SourceSubtask<unknown>;

/** One actor a runtime runs: its built subtask, paused or not, with mail or not. */
export interface ActorRecord extends BuiltSubtask {
  /**
   * Whether it is paused (back-pressure, alignment, suspension): then it
   * neither processes input nor polls, and its activity clock stands still.
   */
  paused: boolean;
  /** Whether an operator asked for mail (an asynchronous call completed). */
  mail: boolean;
}

/**
 * A new record of a built subtask: running, without mail.
 *
 * @param built The subtask built for the actor.
 */
export function actorRecord(built: BuiltSubtask): ActorRecord {
  return { ...built, paused: false, mail: false };
}

/**
 * The actor's state machine.
 *
 * @param actor An actor.
 */
export function machineOf(actor: BuiltSubtask): ActorMachine {
  return actor.subtask ?? actor.source!;
}

/**
 * Pauses or resumes an actor, and its input-activity clock with it, so
 * idleness timeouts do not fire while it cannot read (FLINK-35886).
 *
 * @param actor An actor.
 * @param paused Whether it is paused now.
 */
export function setPaused(actor: ActorRecord, paused: boolean): void {
  if (paused === actor.paused) return;
  actor.paused = paused;
  if (paused) actor.activityClock.pause();
  else actor.activityClock.resume();
}

/**
 * Processing time of the actor's next timer, or `Infinity`.
 *
 * @param actor An actor.
 * @param nowMs Processing time now (a source's periodic emission counts from it).
 */
export function nextProcessingTimeOf(
  actor: BuiltSubtask,
  nowMs: number,
): number {
  return actor.source !== null
    ? actor.source.nextProcessingTime(nowMs)
    : actor.subtask!.nextProcessingTime();
}

/**
 * The actor's input watermark as status reports it: a source's is the
 * watermark it emitted.
 *
 * @param actor An actor.
 */
export function inputWatermarkOf(actor: BuiltSubtask): number {
  return actor.source !== null
    ? actor.source.currentWatermark
    : actor.subtask!.metrics.inputWatermark;
}

/**
 * The current values of the actor's gauges.
 *
 * @param actor An actor.
 */
export function gaugeValues(actor: BuiltSubtask): Record<string, number> {
  const gauges: Record<string, number> = {};
  for (const [name, read] of actor.gauges) gauges[name] = read();
  return gauges;
}
