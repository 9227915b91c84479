// A KvLog's retry options, checked once with every default filled in.

import {
  requireNonNegativeInteger,
  requirePositiveInteger,
} from "../../time/validate.ts";
import type { KvLogRetryOptions } from "./kv_log_append.ts";

const DEFAULT_ATTEMPTS = 10;
const DEFAULT_BASE_MS = 10;
const DEFAULT_MAX_MS = 1_000;

/** The retry options with the defaults filled in; throws if out of range. */
export function checkRetry(
  retry: KvLogRetryOptions | undefined,
  action: string,
): Required<KvLogRetryOptions> {
  const options = retry ?? {};
  return {
    attempts: requirePositiveInteger(options.attempts ?? DEFAULT_ATTEMPTS, {
      action,
      param: "options.retry.attempts",
    }),
    baseMs: requireNonNegativeInteger(options.baseMs ?? DEFAULT_BASE_MS, {
      action,
      param: "options.retry.baseMs",
    }),
    maxMs: requireNonNegativeInteger(options.maxMs ?? DEFAULT_MAX_MS, {
      action,
      param: "options.retry.maxMs",
    }),
    sleep: options.sleep ??
      ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    random: options.random ?? Math.random,
  };
}
