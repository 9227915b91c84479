/**
 * The engine-equals-kernel check of every benchmark run: the results of a
 * query's job against those of its hand-written loop, in the query's
 * order-free form.
 *
 * @module
 */

import { type NexmarkQuery, sortedJson } from "./query.ts";

/**
 * Where two canonical forms first differ, or `null` when they are equal.
 *
 * Arrays are compared element by element (as JSON); anything else as a
 * whole.
 *
 * @param engine The engine's results, canonical.
 * @param kernel The kernel's results, canonical.
 * @returns A line naming the first difference, or `null`.
 */
export function firstDifference(
  engine: unknown,
  kernel: unknown,
): string | null {
  if (Array.isArray(engine) && Array.isArray(kernel)) {
    const n = Math.min(engine.length, kernel.length);
    for (let i = 0; i < n; i++) {
      const a = JSON.stringify(engine[i]);
      const b = JSON.stringify(kernel[i]);
      if (a !== b) return `at ${i}: engine ${a}, kernel ${b}`;
    }
    if (engine.length !== kernel.length) {
      return `engine has ${engine.length} results, kernel ${kernel.length}; first unmatched: ${
        JSON.stringify(
          engine.length > kernel.length ? engine[n] : kernel[n],
        )
      }`;
    }
    return null;
  }
  const a = JSON.stringify(engine);
  const b = JSON.stringify(kernel);
  return a === b ? null : `engine ${a}, kernel ${b}`;
}

/**
 * Checks that the engine's results equal the kernel's, as the query's
 * `canonical` form says (sorted JSON by default).
 *
 * @param query The query.
 * @param engine The engine's results, in any order.
 * @param kernel The kernel's results, in any order.
 * @throws {Error} Naming the query and the first difference.
 */
export function checkResults<OUT, IN>(
  query: NexmarkQuery<OUT, IN>,
  engine: readonly OUT[],
  kernel: readonly OUT[],
): void {
  const canonical = query.canonical ?? sortedJson;
  const difference = firstDifference(canonical(engine), canonical(kernel));
  if (difference !== null) {
    throw new Error(
      `Benchmark check failed as ${query.name}'s engine results differ from its kernel's: ${difference}`,
    );
  }
}
