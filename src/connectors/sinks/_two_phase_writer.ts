// What the two-phase-commit writers of the KV sinks share: commits that
// run one after the other, the records a writer refuses when it closes a
// transaction, and the check of a restored snapshot's outer shape.

import { describeValue } from "../../time/validate.ts";

/** A record a writer left out of a transaction (see `takeRefused`). */
export interface Refused<T> {
  readonly value: T;
  readonly timestamp: number;
  readonly error: unknown;
}

/** The records a writer refused since they were last taken. */
export class RefusedRecords<T> {
  #records: Refused<T>[] = [];

  /** Notes that `value` was left out of its transaction for `error`. */
  add(value: T, timestamp: number, error: unknown): void {
    this.#records.push({ value, timestamp, error });
  }

  /** The records refused since the last call, each returned once. */
  take(): Refused<T>[] {
    const refused = this.#records;
    if (refused.length === 0) return [];
    this.#records = [];
    return refused;
  }

  /** Forgets them all (a restore). */
  clear(): void {
    this.#records = [];
  }
}

/**
 * Runs commits one after the other, in call order, so that a later
 * checkpoint's commit never overtakes an earlier one; a failed commit does
 * not stop the next.
 */
export class CommitQueue {
  #last: Promise<void> = Promise.resolve();

  /** Runs `commit` once the commits queued before it have settled. */
  run(commit: () => Promise<void>): Promise<void> {
    const run = this.#last.then(commit);
    this.#last = run.catch(() => {});
    return run;
  }
}

/**
 * The transactions of a restored writer snapshot `{ <field>, transactions }`,
 * after checking that it is one and that its `field` names this writer's
 * `expected` output. The transactions are typed as the caller's, unchecked:
 * checking them is the caller's.
 *
 * @throws {TypeError} If `state` is not such an object.
 * @throws {RangeError} If it belongs to another output.
 */
export function restoredTransactions<TX>(
  state: unknown,
  { action, field, expected }: {
    action: string;
    field: "output" | "table";
    expected: string;
  },
): TX[] {
  const snapshot = state as Record<string, unknown> | null;
  if (
    typeof snapshot !== "object" || snapshot === null ||
    !Array.isArray(snapshot.transactions)
  ) {
    throw new TypeError(
      `Cannot ${action} as 'state' must be { ${field}, transactions }: current value is ${
        describeValue(state)
      }`,
    );
  }
  if (snapshot[field] !== expected) {
    throw new RangeError(
      `Cannot ${action} as 'state.${field}' must be this sink's ${field} ${
        describeValue(expected)
      }: current value is ${describeValue(snapshot[field])}`,
    );
  }
  return snapshot.transactions as TX[];
}
