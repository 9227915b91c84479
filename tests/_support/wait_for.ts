// Waiting on a condition in whole-process tests: other processes run in real
// time, so a test polls for what it waits on instead of sleeping for a
// guessed time. The deadline is only a safety net that turns a hang into a
// failure with a name; no assertion depends on how fast the machine is.

/** Options of {@linkcode waitFor}. */
export interface WaitForOptions {
  /**
   * Gives up after this much real time: a safety net, far above what any
   * machine needs.
   * @default {120_000}
   */
  readonly timeoutMs?: number;
  /**
   * Real time between two checks.
   * @default {20}
   */
  readonly pollMs?: number;
  /**
   * Gives up as soon as this settles (after one last check): e.g. the
   * status of the process that was to make the condition true, so that a
   * crash fails at once rather than at the deadline.
   */
  readonly unless?: Promise<unknown>;
}

/**
 * Calls `check` until it returns something other than `undefined`, `null`
 * or `false`, and returns that; a `check` that throws is called again (a
 * server not listening yet). Throws, naming `what`, once `timeoutMs` passed
 * or `options.unless` settled.
 *
 * @param what What is waited for, for the error message.
 * @param check Looks once; may be async.
 * @param options The safety-net deadline and the polling interval.
 * @returns The first value `check` returned that counts as done.
 */
export async function waitFor<T>(
  what: string,
  check: () =>
    | T
    | undefined
    | null
    | false
    | Promise<T | undefined | null | false>,
  options: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let gaveUp = false;
  options.unless?.then(
    () => gaveUp = true,
    () => gaveUp = true,
  );
  for (;;) {
    const last = gaveUp;
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) {
        return value;
      }
    } catch (error) {
      lastError = error;
    }
    if (last) {
      throw new Error(
        `Cannot wait for ${what} as it must happen before the process it waits on ends: it ended first${
          lastError === undefined ? "" : ` (last error: ${lastError})`
        }`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Cannot wait for ${what} as it must happen within ${timeoutMs} ms: it did not${
          lastError === undefined ? "" : ` (last error: ${lastError})`
        }`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20));
  }
}
