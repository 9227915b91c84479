// One record's call in the async wait operator: its attempts, the work it
// spawned, and what it completed with.

/** A record whose call has not been emitted yet. */
export interface InFlight<IN, OUT> {
  readonly id: number;
  readonly value: IN;
  readonly timestamp: number;
  readonly key: unknown;
  attempt: number;
  generation: number;
  pending: number;
  results: OUT[];
  done: boolean;
  // Set when the call failed for good (retries spent) or `onTimeout`
  // threw: the record goes to the error policy when its completion is
  // processed.
  failure: { error: unknown } | null;
  deadline: number;
  retryAt: number;
}

/** A record's entry before its first attempt. */
export function newInFlight<IN, OUT>(
  id: number,
  value: IN,
  timestamp: number,
  key: unknown,
): InFlight<IN, OUT> {
  return {
    id,
    value,
    timestamp,
    key,
    attempt: 0,
    generation: 0,
    pending: 0,
    results: [],
    done: false,
    failure: null,
    deadline: Infinity,
    retryAt: Infinity,
  };
}

export /** The outputs of a call or of `onTimeout`: one, several or none. */
function toResults<OUT>(result: OUT | OUT[] | void): OUT[] {
  if (Array.isArray(result)) return result;
  return result === undefined ? [] : [result as OUT];
}
