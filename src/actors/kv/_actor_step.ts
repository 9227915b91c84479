// One step of a KV-runtime actor: timers first, then a bounded run of input
// log entries (or polls of its source), then the results of asynchronous
// calls, and ONE atomic commit of all of it with the lease check (see
// `_step_commit.ts`). A step that did nothing commits nothing.

import type { SourceSubtask } from "../../runtime/source_subtask.ts";
import type { Subtask } from "../../runtime/subtask.ts";
import { applyEntries } from "./_barrier_alignment.ts";
import { isBlocked, refreshConsumed, trimDue } from "./_back_pressure.ts";
import { commitWithLetters } from "./_dead_letter_outbox.ts";
import {
  type ActorMachine,
  machineOf,
  nextProcessingTimeOf,
  setPaused,
} from "../actor_record.ts";
import { type LiveActor, statusOf } from "./_live_actor.ts";
import { drop } from "./_ownership.ts";
import { countReplay, cutReplay } from "./_replay.ts";
import { type Meta, stepCommit } from "./_step_commit.ts";
import { startReadAhead, takeInput } from "./_read_ahead.ts";
import { logKey } from "./channel_log.ts";
import { ENTRIES_PER_CHANNEL, type KvWorker } from "./_worker.ts";

/** Polls of a source per step, at most. */
const POLLS_PER_STEP = 16;

/**
 * Runs one step of an actor; commits it if it did anything.
 *
 * @returns Whether a step was committed.
 * @throws {AtomicConflictError} If the commit failed its lease check.
 */
export async function stepActor(
  worker: KvWorker,
  live: LiveActor,
): Promise<boolean> {
  const machine = machineOf(live);
  // The step works on a copy: the committed meta changes only when the
  // commit succeeds (others, e.g. a producer trimming, read it meanwhile).
  const work = structuredClone(live.meta);
  if (work.finished) {
    if (work.sinksDone) return await trimOnly(worker, live);
    // The final transactions of the sinks, after the step that finished
    // the subtask was committed (by this worker, or one that died since).
    if (!(await worker.retry("renew a lease", () => live.lease.renew()))) {
      drop(worker, live, "its lease was taken over");
      return false;
    }
    await machine.notifyCheckpointComplete(Infinity);
    await machine.settle();
    work.sinksDone = true;
    await commit(worker, live, null, work);
    await worker.failures.succeeded(live.wiring.id);
    return true;
  }
  // Sinks commit the transactions of completed checkpoints (again after
  // a take-over: commits are idempotent), once this step's commit has
  // shown that the lease is still held: a fenced worker commits nothing.
  const completed = worker.coordinatorState?.completed ?? 0;
  const notify = completed > live.notified;
  const now = worker.clock.now();
  const { source, subtask } = live;
  // Paused by back-pressure, or held by watermark alignment.
  const blocked = (source?.shouldWait ?? false) ||
    await isBlocked(worker, live);
  setPaused(live, blocked);
  // Steps in flight: a source waits for the reads it has in flight (one
  // per partition, started by its last step) so that its one commit, a
  // round trip to KV, carries all of them instead of the first to land.
  if (worker.overlapSteps && source !== null && !blocked) await source.ready();
  // Timers first, then input, as the local runtime orders a round.
  let worked = false;
  if (nextProcessingTimeOf(live, now) <= now) {
    if (source !== null) {
      // A periodic emission changes state (schedule, idleness countdowns)
      // even when it emits nothing: in persist mode it is committed, as
      // every step is, so that a take-over resumes event time exactly.
      // Output it emitted is committed below in either mode.
      worked = source.onProcessingTime(now) && worker.persist;
    } else {
      subtask!.onProcessingTime(now);
      worked = true;
    }
  }
  if (!blocked) {
    if (source !== null) {
      worked = pollSource(worker, live, source, now, work) || worked;
    } else if (live.dirty) {
      live.dirty = false;
      worked = (await readInputs(worker, live, subtask!, work)) || worked;
    }
  }
  worked = (await drainMail(live, machine)) || worked;
  if (live.acks.length > 0 || machine.finished || notify) worked = true;
  // Output to commit: what a periodic emission sent, or what a replay
  // handed on when the actor was taken up.
  if (live.out.some((o) => o.length > 0)) worked = true;
  if (!worked && !trimDue(live)) return false;
  if (worker.cutEveryStep) cutReplay(work, live);
  else if (!worker.persist && source !== null) {
    countReplay(work, live, source.recordsRead);
  }
  await commit(worker, live, machine, work);
  if (notify) {
    live.notified = completed;
    await machine.notifyCheckpointComplete(completed);
  }
  await worker.failures.succeeded(live.wiring.id);
  return true;
}

/** A source's step: takes part in a requested checkpoint, then polls. */
function pollSource(
  worker: KvWorker,
  live: LiveActor,
  source: SourceSubtask<unknown>,
  now: number,
  work: Meta,
): boolean {
  let worked = false;
  const pending = worker.coordinatorState?.pending ?? null;
  if (pending !== null && pending > work.triggered) {
    work.triggered = pending;
    const position = worker.persist ? undefined : source.readerPosition;
    if (source.triggerCheckpoint(pending) && position !== undefined) {
      // A replay now starts here: nothing was read yet in this step.
      work.replayReader = position;
      work.replayCounts = source.recordsRead.map(() => 0);
      live.readBase = [...source.recordsRead];
    }
    worked = true;
  }
  for (let i = 0; i < POLLS_PER_STEP && !source.finished; i++) {
    if (!source.poll(now)) break;
    worked = true;
  }
  return worked;
}

/**
 * Reads the next entries of every input channel and applies them; stops
 * a channel in front of a barrier until every open channel is at that
 * barrier, then applies all the barriers at once (alignment within one
 * step, so nothing of it lives only in memory).
 */
async function readInputs(
  worker: KvWorker,
  live: LiveActor,
  subtask: Subtask,
  meta: Meta,
): Promise<boolean> {
  const { batches, ahead } = await takeInput(worker, live, meta);
  const { applied, aligned } = await applyEntries(
    subtask,
    meta,
    batches,
    () => waitWhileBackPressured(live, subtask),
  );
  // The checkpoint's cut: a replay reads the input again from here.
  if (aligned && !worker.persist) {
    meta.replayFrom = [...meta.inputs];
    meta.replayValve = subtask.snapshotValve();
  }
  // More input may wait behind the barriers, or past what was read (or
  // read ahead, before the producers' latest commits).
  if (
    ahead || aligned ||
    batches.some((b) => b.length === ENTRIES_PER_CHANNEL)
  ) {
    live.dirty = true;
  }
  return applied;
}

/** An asynchronous operator is full: lets its calls complete first. */
async function waitWhileBackPressured(
  live: LiveActor,
  subtask: Subtask,
): Promise<void> {
  while (subtask.backPressured) {
    await nextMail(live);
    live.mail = false;
    subtask.processMail();
  }
}

/**
 * Waits until no asynchronous call is in flight, letting results in:
 * a step commits only settled state, so a take-over never loses a call.
 */
async function drainMail(
  live: LiveActor,
  machine: ActorMachine,
): Promise<boolean> {
  let worked = false;
  for (;;) {
    if (live.mail) {
      live.mail = false;
      machine.processMail();
      worked = true;
    }
    if (machine.inFlight === 0) return worked;
    await nextMail(live);
  }
}

function nextMail(live: LiveActor): Promise<void> {
  if (live.mail) return Promise.resolve();
  return new Promise((resolve) => {
    live.wake = () => {
      live.wake = null;
      resolve();
    };
  });
}

/** A finished actor only deletes what its consumers applied. */
async function trimOnly(worker: KvWorker, live: LiveActor): Promise<boolean> {
  if (live.meta.outputs.every((seq, k) => live.meta.trimmed[k] >= seq)) {
    return false;
  }
  await refreshConsumed(worker, live);
  if (!trimDue(live)) return false;
  await commit(worker, live, null, structuredClone(live.meta));
  return true;
}

/** The one atomic commit of a step. */
async function commit(
  worker: KvWorker,
  live: LiveActor,
  machine: ActorMachine | null,
  work: Meta,
): Promise<void> {
  const { wiring, storage } = live;
  const { next, ops } = stepCommit(work, {
    subtask: machine === null ? null : {
      state: live.source?.snapshot() ?? live.subtask!.snapshot(0, true),
      status: statusOf(live),
      finished: machine.finished,
    },
    out: live.out,
    acks: live.acks,
    released: live.released,
  });
  live.out = wiring.outputs.map(() => []);
  live.acks = [];
  // The new log entries: past the last one written, so nothing is there
  // to read before the commit.
  const absent = next.outputs.flatMap((seq, k) =>
    Array.from(
      { length: seq - work.outputs[k] },
      (_, i) => logKey(k, work.outputs[k] + 1 + i),
    )
  );
  // With the letters the step set aside, exactly once with it.
  await commitWithLetters({
    actor: wiring.id,
    storage,
    ops,
    absent,
    letters: machineOf(live).takeDeadLetters(),
    recorder: worker.letters,
    checks: [live.lease.check],
    retry: (what, call) => worker.retry(what, call),
  });
  live.meta = next;
  startReadAhead(worker, live);
  for (const output of wiring.outputs) {
    const consumer = worker.live.get(output.consumer);
    if (consumer !== undefined) consumer.dirty = true;
  }
}
