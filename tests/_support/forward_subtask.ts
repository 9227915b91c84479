// The smallest Subtask of the runtime's tests: subtask 0 of 1 on a
// ManualClock at 0, its output one forward edge of one channel.

import { forwardPartitioner } from "../../src/runtime/partitioner.ts";
import type { StreamOperator } from "../../src/runtime/stream_operator.ts";
import { Subtask } from "../../src/runtime/subtask.ts";
import type { SubtaskSend } from "../../src/runtime/subtask_options.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";

/**
 * A subtask of `operators` with one forward edge.
 *
 * @param operators The operator chain.
 * @param numInputChannels Its input channels.
 * @param send Receives what it sends.
 */
export function forwardSubtask(
  operators: StreamOperator<unknown, unknown>[],
  numInputChannels: number,
  send: SubtaskSend,
): Subtask {
  const clock = new ManualClock(0);
  return new Subtask(
    {
      operators,
      numInputChannels,
      edges: [{ partitioner: forwardPartitioner(0), numChannels: 1 }],
    },
    {
      clock,
      activityClock: new PausableClock(clock),
      subtaskIndex: 0,
      parallelism: 1,
      metrics: { gauge() {} },
    },
    send,
  );
}
