// The context of the keyed process operator (keyed_process.ts): the key's
// state with its bookkeeping for incremental snapshots, its timers and side
// outputs, re-pointed at each record and timer.

import type { Clock } from "../../time/mod.ts";
import { describeValue } from "../../time/validate.ts";
import type { SnapshotGroups } from "../../windows/snapshot_groups.ts";
import type { OutputTag } from "../../windows/mod.ts";
import type { OperatorOutput } from "../stream_operator.ts";
import type { KeyedTimers } from "./_keyed_timers.ts";
import { KeyedUndo } from "./_keyed_undo.ts";
import type { Entry } from "./_keyed_entry.ts";
import type { KeyedTimerContext } from "./keyed_process_function.ts";

// The actions named by the messages of the timer checks.
const REGISTER_EVENT = "register event-time timer";
const DELETE_EVENT = "delete event-time timer";
const REGISTER_PROCESSING = "register processing-time timer";
const DELETE_PROCESSING = "delete processing-time timer";

// The message names the key: timers are per key.
function badTimestamp(action: string, key: unknown, timestamp: unknown): never {
  const message = `Cannot ${action} for key ${
    describeValue(key)
  } as 'timestamp' must be a safe integer: current value is ${
    describeValue(timestamp)
  }`;
  throw typeof timestamp === "number"
    ? new RangeError(message)
    : new TypeError(message);
}

/** The reused context: re-pointed at each record and timer, so calls allocate nothing. */
export class Context<K, S> implements KeyedTimerContext<K, S> {
  key: K = undefined as K;
  timestamp = -Infinity;
  currentWatermark = -Infinity;
  timeDomain: "event_time" | "processing_time" = "event_time";
  /** The timestamp outputs get: the record's, an event timer's, or none. */
  outputTimestamp = -Infinity;
  /** Set when the operator opens. */
  target: OperatorOutput<unknown> | null = null;
  /** Set when the operator opens. */
  clock: Clock | null = null;
  readonly #states: Map<K, Entry<K, S>>;
  readonly #groups: SnapshotGroups<Entry<K, S>, [K, S]>;
  readonly #eventTimers: KeyedTimers<K>;
  readonly #processingTimers: KeyedTimers<K>;
  /** What the current call changed, to undo it if it throws. */
  readonly undo: KeyedUndo<K, S>;

  constructor(
    states: Map<K, Entry<K, S>>,
    groups: SnapshotGroups<Entry<K, S>, [K, S]>,
    eventTimers: KeyedTimers<K>,
    processingTimers: KeyedTimers<K>,
  ) {
    this.#states = states;
    this.#groups = groups;
    this.#eventTimers = eventTimers;
    this.#processingTimers = processingTimers;
    this.undo = new KeyedUndo(states, groups);
  }

  get currentProcessingTime(): number {
    return this.clock!.now();
  }

  get state(): S | undefined {
    const entry = this.#states.get(this.key);
    if (entry === undefined) return undefined;
    entry.changed = true;
    return entry.state;
  }

  // Arrows, so that `const { setState } = ctx` still works.
  setState = (value: S | undefined): void => {
    if (value === undefined) return this.clearState();
    this.undo.beforeStateChange(this.key);
    const entry = this.#states.get(this.key);
    if (entry === undefined) {
      this.#states.set(this.key, {
        key: this.key,
        state: value,
        part: -1,
        changed: true,
      });
    } else {
      entry.state = value;
      entry.changed = true;
    }
  };

  clearState = (): void => {
    const entry = this.#states.get(this.key);
    if (entry === undefined) return;
    this.undo.beforeStateChange(this.key);
    this.#states.delete(this.key);
    this.#groups.removed(entry);
  };

  registerEventTimeTimer = (timestamp: number): void => {
    if (!Number.isSafeInteger(timestamp)) {
      badTimestamp(REGISTER_EVENT, this.key, timestamp);
    }
    if (this.#eventTimers.add(this.key, timestamp)) {
      this.undo.timerChanged(this.#eventTimers, this.key, timestamp, true);
    }
  };

  deleteEventTimeTimer = (timestamp: number): void => {
    if (!Number.isSafeInteger(timestamp)) {
      badTimestamp(DELETE_EVENT, this.key, timestamp);
    }
    if (this.#eventTimers.delete(this.key, timestamp)) {
      this.undo.timerChanged(this.#eventTimers, this.key, timestamp, false);
    }
  };

  registerProcessingTimeTimer = (timestamp: number): void => {
    if (!Number.isSafeInteger(timestamp)) {
      badTimestamp(REGISTER_PROCESSING, this.key, timestamp);
    }
    if (this.#processingTimers.add(this.key, timestamp)) {
      this.undo.timerChanged(this.#processingTimers, this.key, timestamp, true);
    }
  };

  deleteProcessingTimeTimer = (timestamp: number): void => {
    if (!Number.isSafeInteger(timestamp)) {
      badTimestamp(DELETE_PROCESSING, this.key, timestamp);
    }
    if (this.#processingTimers.delete(this.key, timestamp)) {
      this.undo.timerChanged(
        this.#processingTimers,
        this.key,
        timestamp,
        false,
      );
    }
  };

  output = <X>(tag: OutputTag<X> | string, value: X): void => {
    this.target!.emitSideOutput(
      typeof tag === "string" ? tag : tag.id,
      value,
      this.outputTimestamp,
    );
  };
}
