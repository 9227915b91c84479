// A history of checkpoints that does not depend on the machine's speed:
// the runtime is stepped, `count` checkpoints are triggered and saved at
// chosen points, and the runtime is then dropped, as in a crash.

import type { LocalRuntime } from "../../src/actors/local/local_runtime.ts";

/**
 * Saves `count` checkpoints of a job that has not run yet, calling
 * `between` before each (to move a clock on, or let background reads
 * land), then stops the runtime without a final checkpoint.
 *
 * @returns The ids saved, oldest first.
 * @throws {Error} If the job ended before `count` checkpoints.
 */
export async function takeCheckpoints(
  runtime: LocalRuntime,
  count: number,
  between: () => Promise<void>,
): Promise<number[]> {
  const ids: number[] = [];
  await runtime.flushCheckpoints(); // reads the store's highest id
  try {
    while (ids.length < count) {
      await between();
      runtime.runUntilIdle();
      await runtime.flushCheckpoints();
      const id = runtime.triggerCheckpoint();
      if (id === null) {
        throw new Error(
          `Cannot take ${count} checkpoints as the job must still run: it ended after ${ids.length}`,
        );
      }
      while (runtime.latestCheckpoint?.id !== id) {
        runtime.runUntilIdle();
        await runtime.flushCheckpoints();
      }
      ids.push(id);
    }
  } finally {
    runtime.stop();
    await runtime.close();
  }
  return ids;
}
