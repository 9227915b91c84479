// Replay-based reconstruction of event time in the KV runtime
// (`watermarkRecovery: "replay"`): an actor whose committed state holds no
// event time, taken up by a worker, reads the input it had applied since
// its last checkpoint again, emitting nothing, as the local runtime gets
// by rewinding to that checkpoint.

import type { SourceReader } from "../../runtime/source.ts";
import type { SourceSubtask } from "../../runtime/source_subtask.ts";
import type { StreamElement } from "../../runtime/stream_element.ts";
import type { Subtask } from "../../runtime/subtask.ts";
import type { Meta } from "./_step_commit.ts";

/** Records a replaying reader polls at most at once. */
const REPLAY_BATCH = 1024;
// Polls in a row that bring nothing the replay needs before it gives up:
// a reader that cannot give the records again (they expired) must not
// keep the actor from running.
const FRUITLESS_POLLS = 1_000;

/** What {@linkcode replayEventTime} works on. */
export interface ReplayTarget {
  /** The actor id, for the log. */
  readonly actor: string;
  /** Its committed bookkeeping. */
  readonly meta: Meta;
  /** Its source, restored from its committed state, if it is one. */
  readonly source: SourceSubtask<unknown> | null;
  /** Its operator chain, restored from its committed state, otherwise. */
  readonly subtask: Subtask | null;
  /** A second reader of the source's partitions. */
  createReader(): SourceReader<unknown>;
  /** Reads the entries after `applied` of input channel `c` (a bounded run). */
  readEntries(c: number, applied: number): Promise<StreamElement[][]>;
  /** The processing time. */
  readonly now: number;
  /** Where a replay that could not read everything says so. */
  log(line: string): void;
}

/**
 * Rebuilds the event time of a restored actor: a source's generators from
 * the records read since its last checkpoint (a second reader, restored
 * at the checkpoint's positions, reads them again partition by partition,
 * as many as were read), an operator chain's valve and watermarks from the
 * log entries applied since its last checkpoint. Nothing is emitted but
 * the rebuilt watermark, once, at the end (see `Subtask.endReplay`).
 *
 * @param target The actor and how to read its input again.
 */
export async function replayEventTime(target: ReplayTarget): Promise<void> {
  if (target.source !== null) await replaySource(target, target.source);
  else await replayChannels(target, target.subtask!);
}

async function replaySource(
  target: ReplayTarget,
  source: SourceSubtask<unknown>,
): Promise<void> {
  const { meta, now } = target;
  const remaining = [...(meta.replayCounts ?? [])];
  let left = remaining.reduce((sum, n) => sum + n, 0);
  if (left === 0) return;
  const total = left;
  const reader = target.createReader();
  source.beginReplay();
  try {
    if (meta.replayReader !== undefined) {
      reader.restoreState(meta.replayReader, { exact: true });
    }
    for (let fruitless = 0; left > 0 && fruitless < FRUITLESS_POLLS;) {
      await reader.ready?.();
      const batch = reader.poll(now, REPLAY_BATCH);
      if (batch === null) {
        if (reader.finished || reader.nextAvailableAt(now) > now) break;
        fruitless++;
        continue;
      }
      const take = Math.min(
        remaining[batch.partition] ?? 0,
        batch.values.length,
      );
      if (take === 0) {
        fruitless++;
        continue;
      }
      fruitless = 0;
      source.replayBatch(
        take === batch.values.length ? batch : {
          partition: batch.partition,
          values: batch.values.slice(0, take),
          timestamps: batch.timestamps.slice(0, take),
        },
      );
      remaining[batch.partition] -= take;
      left -= take;
    }
  } finally {
    source.endReplay();
    await reader.close?.();
  }
  if (left > 0) {
    target.log(
      `weir: actor '${target.actor}' rebuilt its event time from ${
        total - left
      } of the ${total} records read since its last checkpoint: the source could not give the others again`,
    );
  }
}

async function replayChannels(
  target: ReplayTarget,
  subtask: Subtask,
): Promise<void> {
  const { meta } = target;
  subtask.beginReplay(meta.replayValve);
  try {
    for (let c = 0; c < meta.inputs.length; c++) {
      const to = meta.inputs[c];
      for (let at = meta.replayFrom?.[c] ?? to; at < to;) {
        const entries = await target.readEntries(c, at);
        if (entries.length === 0) {
          target.log(
            `weir: actor '${target.actor}' rebuilt its event time without entries ${
              at + 1
            } to ${to} of input channel ${c}: they were deleted`,
          );
          break;
        }
        for (const entry of entries.slice(0, to - at)) {
          for (const element of entry) subtask.receive(c, element);
        }
        at += entries.length;
      }
    }
  } finally {
    subtask.endReplay();
  }
}

/**
 * Adds the records a source read since the last commit to the counts a
 * replay reads again.
 *
 * @param work The meta the step commits.
 * @param live Where the counts at the last commit are kept.
 * @param read The source's records read per partition now.
 */
export function countReplay(
  work: Meta,
  live: { readBase: readonly number[] },
  read: readonly number[],
): void {
  const counts = work.replayCounts ?? read.map(() => 0);
  for (let p = 0; p < read.length; p++) {
    counts[p] += read[p] - (live.readBase[p] ?? 0);
  }
  work.replayCounts = counts;
  live.readBase = [...read];
}

/**
 * Makes this step where a replay-mode take-over starts (a job without
 * periodic checkpoints has no checkpoint to read its input again from):
 * the input applied so far is not read again, the valve is kept as it is,
 * a source's generators start afresh.
 *
 * @param work The meta the step commits.
 * @param live The actor, and where its source's counts at the last commit are kept.
 */
export function cutReplay(
  work: Meta,
  live: {
    readonly source: SourceSubtask<unknown> | null;
    readonly subtask: Subtask | null;
    readBase: readonly number[];
  },
): void {
  const { source, subtask } = live;
  if (source !== null) {
    work.replayReader = source.readerPosition;
    work.replayCounts = source.recordsRead.map(() => 0);
    live.readBase = [...source.recordsRead];
  } else {
    work.replayFrom = [...work.inputs];
    work.replayValve = subtask!.snapshotValve();
  }
}

/**
 * How far a producer may delete the entries of its channel to `consumer`:
 * what the consumer applied, except in replay mode, where a consumer that
 * may be taken over reads its input again from its last checkpoint.
 *
 * @param consumer The consumer's committed meta.
 * @param channel The channel's index among the consumer's inputs.
 * @param persist Whether the job persists event time.
 * @returns The last entry that may be deleted.
 */
export function releasable(
  consumer: Meta,
  channel: number,
  persist: boolean,
): number {
  const applied = consumer.inputs[channel];
  if (persist || consumer.finished) return applied;
  return Math.min(applied, consumer.replayFrom?.[channel] ?? applied);
}
