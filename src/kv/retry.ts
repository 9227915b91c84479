/**
 * {@linkcode retryTransient}: retries of Deno KV calls that failed for a
 * passing reason, with bounded exponential backoff and full jitter.
 *
 * @module
 */

/** Options of {@linkcode retryTransient}. */
export interface RetryOptions {
  /**
   * Attempts in all, the first included.
   * @default {8}
   */
  readonly attempts?: number;
  /**
   * The backoff unit in milliseconds: the wait before attempt n + 1 is at
   * most `baseMs * 2^n` (so at most `2 * baseMs` before the second).
   * @default {10}
   */
  readonly baseMs?: number;
  /**
   * The largest backoff in milliseconds.
   * @default {1000}
   */
  readonly maxMs?: number;
  /**
   * Waits `ms` milliseconds; tests inject a recording one.
   * @default {setTimeout}
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * A number in [0, 1) for the jitter.
   * @default {Math.random}
   */
  readonly random?: () => number;
  /** What the call does, for the error message: `"commit actor 'job/map/0'"`. */
  readonly what?: string;
}

// SQLite's lock errors when several processes share one KV file, and the
// timeouts and dropped connections of a remote database (KV Connect, Deploy).
const TRANSIENT =
  /database is locked|database table is locked|SQLITE_BUSY|busy|timed out|timeout|connection (reset|closed|refused)|temporarily unavailable|EAGAIN/i;

/**
 * Whether an error is worth retrying: a lock or a timeout, not a bad
 * argument or a limit.
 *
 * @param error What was thrown.
 */
export function isTransient(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return TRANSIENT.test(message);
}

/**
 * A Deno KV call failed for a passing reason too often in a row.
 */
export class PersistentKvError extends Error {
  /** A stable code for programs to branch on. */
  readonly code = "KV_UNAVAILABLE";

  /**
   * Creates the error.
   *
   * @param message What failed and how often.
   * @param cause The last error.
   */
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "PersistentKvError";
  }
}

/**
 * Runs `call`, retrying it while it throws a transient error (see
 * {@linkcode isTransient}), waiting a random time up to `baseMs * 2^n`
 * (at most `maxMs`) before attempt n + 1. Other errors are thrown at once.
 *
 * @param call The call; it must be safe to repeat (a KV commit that threw
 * did not happen).
 * @param options Attempts and backoff.
 * @returns What `call` returns.
 * @throws {PersistentKvError} After `attempts` transient failures, naming
 * the call and the last error.
 *
 * @example
 * ```ts
 * import { retryTransient } from "./retry.ts";
 * import assert from "node:assert/strict";
 *
 * let calls = 0;
 * const value = await retryTransient(() => {
 *   if (++calls < 3) throw new Error("database is locked");
 *   return Promise.resolve(42);
 * }, { sleep: () => Promise.resolve() });
 * assert.deepEqual([value, calls], [42, 3]);
 * ```
 */
export async function retryTransient<T>(
  call: () => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 8;
  const base = options.baseMs ?? 10;
  const max = options.maxMs ?? 1_000;
  const sleep = options.sleep ??
    ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isTransient(error)) throw error;
      if (attempt >= attempts) {
        throw new PersistentKvError(
          `Cannot ${
            options.what ?? "reach Deno KV"
          } as the database must answer within ${attempts} attempts: current value is "${
            error instanceof Error ? error.message : String(error)
          }"`,
          error,
        );
      }
      await sleep(Math.floor(random() * Math.min(max, base * 2 ** attempt)));
    }
  }
}
