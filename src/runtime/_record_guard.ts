// The error policy at work inside one subtask: operators hand the records their user code threw on
// to `reject`, which sets them aside as dead letters, or, under "fail",
// throws `RecordFailedError` unless the record's strike is quarantined.
//
// Nothing here runs on the happy path but the few stores that tell where
// the input is (numbers and array references, no strings): positions, ids,
// strikes and letters are built only when a record is rejected.

import type { Clock } from "../time/mod.ts";
import {
  type DeadLetter,
  type ErrorPolicy,
  RecordFailedError,
} from "./dead_letter.ts";
import { cut, printable } from "./printable_text.ts";
import type { RejectRecord } from "./stream_operator.ts";

/** How a dead letter names an operator, and what its id hashes for it. */
export interface GuardedOperator {
  /** The operator's uid, or its name: `DeadLetter.operator`. */
  readonly label: string;
  /**
   * What tells it apart in the job (its uid, or its positional id): two
   * operators of one name (two maps) failing on one record get two ids.
   */
  readonly key: string;
}

/** What a {@linkcode RecordGuard} is made of. */
export interface RecordGuardOptions {
  /** The job's error policy. */
  readonly policy: ErrorPolicy;
  /**
   * Under `"fail"`: strikes (`RecordFailedError.strike`) and sites
   * (`RecordFailedError.site`) whose records are set aside this time.
   */
  readonly quarantine: ReadonlySet<string>;
  /** Processing time: `DeadLetter.at`. */
  readonly clock: Clock;
  /** The subtask index. */
  readonly subtaskIndex: number;
}

/** What the subtask is working on, for positions (see `RecordGuard.cause`). */
export const CAUSE = {
  records: 0,
  watermark: 1,
  status: 2,
  processingTime: 3,
  mail: 4,
  end: 5,
  replay: 6,
  barrier: 7,
} as const;

/**
 * The dead letters of one subtask, and where its input is.
 *
 * The owner (the subtask) keeps the input fields current: for each input
 * batch it sets `input` (the batch's array), `unit` and `base` (the
 * channel, or the source partition, and how many of its records came
 * before); for other work, `cause` and `causeValue`. Operators whose
 * current batch is the input batch itself (`aligned`) get the exact
 * position (`"channel 1, record 230"`); others get a position for people
 * only. Only a source's partition offset is part of a letter's id: every
 * other letter is identified by its operator, subtask, timestamp and
 * value (its content), as a channel position downstream does not survive
 * a restore (see below).
 *
 * Quarantine under `"fail"` matches a record by its strike, never by its
 * position: the operator, the subtask, the timestamp and the value; or
 * every record that fails at an operator subtask, by its site, when the
 * runtime could not recognise a record by its content. A
 * position downstream counts the records of one channel, and names the
 * same record after a restore only if the upstream emits in the same
 * order, which a source subtask interleaving partitions by fetch timing
 * does not; so the record that failed could come back at another
 * position, miss the quarantine and fail again, for ever.
 */
export class RecordGuard {
  readonly #policy: ErrorPolicy;
  readonly #quarantine: ReadonlySet<string>;
  readonly #clock: Clock;
  readonly #subtask: number;
  #letters: DeadLetter[] = [];
  /** The input batch being processed, or `null`. */
  input: readonly unknown[] | null = null;
  /** Source partition names when positions are partition offsets; else channels. */
  partitions: readonly string[] | null = null;
  /** The input channel (or partition index) of `input`. */
  unit = 0;
  /** How many records of `unit` came before `input`. */
  base = 0;
  /** What the subtask is working on, one of {@linkcode CAUSE}. */
  cause: number = CAUSE.records;
  /** The watermark or processing time of `cause`. */
  causeValue = 0;
  /** Per operator of the chain: whether its current batch is `input`. */
  readonly aligned: boolean[] = [];
  /** Whether the batch the output edges are routing is `input`. */
  edgeAligned = false;

  /**
   * @param options The policy, the quarantine, the clock and the subtask.
   */
  constructor(options: RecordGuardOptions) {
    this.#policy = options.policy;
    this.#quarantine = options.quarantine;
    this.#clock = options.clock;
    this.#subtask = options.subtaskIndex;
  }

  /**
   * The reject function of operator `index` of the chain (see
   * `OperatorContext.reject`).
   *
   * @param index The operator's index in the chain.
   * @param operator How letters name it.
   */
  rejecter(index: number, operator: GuardedOperator): RejectRecord {
    this.aligned[index] = false;
    const aligned = this.aligned;
    const reject = this.reject.bind(this);
    return function rejectRecord(value, timestamp, error, at) {
      reject(operator, aligned[index], value, timestamp, error, at);
    };
  }

  /**
   * Sets a record aside, or throws under `"fail"`.
   *
   * @param operator Who rejects it.
   * @param aligned Whether `at` indexes the input batch itself.
   * @param value The record (or, for a timer or a window, what fired).
   * @param timestamp Its event timestamp (`NaN` if it has none).
   * @param error What was thrown.
   * @param at Its index in the operator's current batch, if it came in one.
   * @throws {RecordFailedError} Under `"fail"`, for a strike not quarantined.
   */
  reject(
    operator: GuardedOperator,
    aligned: boolean,
    value: unknown,
    timestamp: number,
    error: unknown,
    at?: number,
  ): void {
    // A downstream operator failing under "fail" unwinds through the
    // operators that emitted to it: their guards must let it pass.
    if (error instanceof RecordFailedError) throw error;
    // A replay rebuilds event time from input already applied: the record
    // was set aside (or quarantined) when it first came.
    if (this.cause === CAUSE.replay) return;
    const exact = at !== undefined && aligned && this.cause === CAUSE.records &&
      this.input !== null;
    const position = exact ? this.#inputPosition(at) : this.#looseOrigin(at);
    const parts = [
      operator.key,
      String(this.#subtask),
      "",
      String(timestamp),
      describe(value),
    ];
    // The content identity, independent of the position: the id of every
    // letter but one at a source's partition offset. A channel position
    // downstream is for people only: it names the same record after a
    // restore only if the upstream emits in the same order, which a source
    // interleaving partitions by fetch timing does not, and the record
    // would get a second letter.
    const strike = letterId(parts);
    let id = strike;
    if (exact && this.partitions !== null) {
      parts[2] = position;
      id = letterId(parts);
    }
    // The operator subtask: quarantined as a whole when a record failed
    // there twice in a row after the same restore with other content
    // (ingestion time, a map adding a random id), so it is not recognised.
    const site = `site:${operator.key}|${this.#subtask}`;
    const quarantined = this.#policy === "fail" &&
      (this.#quarantine.has(strike) || this.#quarantine.has(site));
    const letter: DeadLetter = {
      id,
      operator: operator.label,
      subtask: this.#subtask,
      value,
      timestamp,
      error: errorOf(error),
      position,
      reason: this.#policy === "dead-letter" ? "dead-letter" : "quarantined",
      at: this.#clock.now(),
    };
    if (this.#policy === "fail" && !quarantined) {
      throw new RecordFailedError(letter, strike, { cause: error, site });
    }
    this.#letters.push(letter);
  }

  /** The letters set aside since the last call, oldest first. */
  take(): DeadLetter[] {
    const letters = this.#letters;
    if (letters.length === 0) return [];
    this.#letters = [];
    return letters;
  }

  #inputPosition(at: number): string {
    const n = this.base + at;
    return this.partitions === null
      ? `channel ${this.unit}, record ${n}`
      : `partition ${this.partitions[this.unit]}, offset ${n}`;
  }

  // A record the chain made (after a filter, a window's output) or work
  // that is not a record (a timer): where the subtask was, for people.
  #looseOrigin(at: number | undefined): string {
    const item = at === undefined ? "" : `, item ${at}`;
    switch (this.cause) {
      case CAUSE.records:
        if (this.input === null) return `input${item}`;
        return this.partitions === null
          ? `channel ${this.unit}, batch from record ${this.base}${item}`
          : `partition ${
            this.partitions[this.unit]
          }, batch from offset ${this.base}${item}`;
      case CAUSE.watermark:
        return `watermark ${this.causeValue}${item}`;
      case CAUSE.status:
        return `watermark status change${item}`;
      case CAUSE.processingTime:
        return `processing time ${this.causeValue}${item}`;
      case CAUSE.mail:
        return `asynchronous result${item}`;
      case CAUSE.end:
        return `end of input${item}`;
      case CAUSE.barrier:
        return `checkpoint ${this.causeValue}${item}`;
      default:
        return `replay${item}`;
    }
  }
}

/** Rethrows: the reject of an operator outside a subtask (the old behaviour). */
export function rethrowRecord(
  _value: unknown,
  _timestamp: number,
  error: unknown,
): never {
  throw error;
}

const GUARDS = new WeakMap<object, RecordGuard>();

/**
 * Ties a subtask to its guard, so that the source subtask wrapping it
 * rejects through the same one (its timestamp assigner) and positions its
 * input (partition offsets) without a public method.
 *
 * @param owner The subtask.
 * @param guard Its guard.
 */
export function setGuard(owner: object, guard: RecordGuard): void {
  GUARDS.set(owner, guard);
}

/**
 * The guard of a subtask (see {@linkcode setGuard}).
 *
 * @param owner The subtask.
 * @returns Its guard.
 */
export function guardOf(owner: object): RecordGuard {
  return GUARDS.get(owner)!;
}

/**
 * A letter's id: 64 bits of two FNV-1a lanes over the parts, as 16 hex
 * digits. Cheap and synchronous, and only computed for rejected records.
 */
export function letterId(parts: readonly string[]): string {
  const text = parts.join("|");
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return hex(a) + hex(b);
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

/** The record as text for its id: JSON when it has one, else `String()`. */
function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? printable(value);
  } catch {
    // BigInt, cycles, a getter that throws: still deterministic.
    return printable(value);
  }
}

// What is kept of an error's name and message: it goes into the letter,
// the strike and the failure records, each a storage value of bounded size.
const MAX_ERROR_CHARS = 2_048;

function errorOf(error: unknown): DeadLetter["error"] {
  let name: string;
  let message: string;
  try {
    name = error instanceof Error ? String(error.name) : typeof error;
    message = error instanceof Error ? String(error.message) : printable(error);
  } catch {
    name = typeof error;
    message = "(an error that cannot be printed)";
  }
  return {
    name: cut(name, MAX_ERROR_CHARS),
    message: cut(message, MAX_ERROR_CHARS),
  };
}

/**
 * A batch without the records at `rejected` (ascending indices): what an
 * operator emits after setting them aside. Only on the failure path.
 *
 * @param values The records.
 * @param timestamps Their timestamps.
 * @param rejected The indices to leave out, ascending.
 * @returns Fresh arrays.
 */
export function withoutRejected<T>(
  values: readonly T[],
  timestamps: readonly number[],
  rejected: readonly number[],
): [T[], number[]] {
  const keptValues: T[] = [];
  const keptTimestamps: number[] = [];
  let r = 0;
  for (let i = 0; i < values.length; i++) {
    if (r < rejected.length && rejected[r] === i) {
      r++;
      continue;
    }
    keptValues.push(values[i]);
    keptTimestamps.push(timestamps[i]);
  }
  return [keptValues, keptTimestamps];
}
