// How a KV-runtime step applies the log entries it read: channel by
// channel, stopping each channel in front of a checkpoint barrier until
// every open channel is at that barrier, then applying all the barriers in
// the same step, so that no half-done alignment lives only in memory.

import type { StreamElement } from "../../runtime/stream_element.ts";
import type { Subtask } from "../../runtime/subtask.ts";
import { barrierOf } from "./channel_log.ts";

/** Where each input channel stands; changed in place as entries apply. */
export interface InputCursor {
  /** Per channel: the last entry applied. */
  readonly inputs: number[];
  /** Per channel: whether its `end` arrived. */
  readonly ended: boolean[];
}

/**
 * Applies entries read from every input channel to `subtask`.
 *
 * @param subtask The subtask.
 * @param cursor The channels' positions, advanced per applied entry.
 * @param entries Per channel, the entries after its position, in order.
 * @param afterEntry Awaited after each applied entry (back-pressure of
 * asynchronous operators).
 * @returns Whether anything was applied, and whether barriers were (more
 * input may wait behind them).
 */
export async function applyEntries(
  subtask: Subtask,
  cursor: InputCursor,
  entries: readonly (readonly StreamElement[][])[],
  afterEntry: () => Promise<void>,
): Promise<{ applied: boolean; aligned: boolean }> {
  let applied = false;
  const atBarrier: (number | null)[] = entries.map(() => null);
  for (let c = 0; c < entries.length; c++) {
    for (const entry of entries[c]) {
      const barrier = barrierOf(entry);
      if (barrier !== null) {
        atBarrier[c] = barrier;
        break;
      }
      for (const element of entry) {
        if (element.kind === "end") cursor.ended[c] = true;
        subtask.receive(c, element);
      }
      cursor.inputs[c]++;
      applied = true;
      await afterEntry();
    }
  }
  const id = atBarrier.find((b) => b !== null);
  if (
    id === undefined || id === null ||
    !atBarrier.every((b, c) => b === id || cursor.ended[c])
  ) return { applied, aligned: false };
  for (let c = 0; c < atBarrier.length; c++) {
    if (atBarrier[c] === null) continue;
    subtask.receive(c, { kind: "barrier", checkpointId: id });
    cursor.inputs[c]++;
  }
  return { applied: true, aligned: true };
}
