// The window operator's engine for event-time sessions of a fixed gap with
// the default trigger: what the general engine does with EventTimeTrigger,
// without a slot, TimeWindow, index entry or timer object per session.
//
// A session is a row (see SessionRow), found through its key's newest
// session; its timers are implied by its end and state, and one entry per
// row in a due queue ordered by (time, id) stands for them. A record that
// extends a session only moves its end: the entry, at an older time, is
// pushed again at the row's true time when it comes up, as the lazy path of
// the general engine does (see _session_lazy.ts). So a watermark fires in
// the general engine's order: by timestamp, then id.
//
// The engine takes the records of ordered input: one in or extending its
// key's newest pending session, one after it (a new newest session), and a
// late one whose window touches no session. Any other record hands over,
// one way: the engine's state goes to the general engine in its snapshot
// format, exactly what it would hold, and the record is processed there.

import type { Clock } from "../time/mod.ts";
import { requireWatermark } from "../time/validate.ts";
import { PaneFire } from "./_pane_fire_context.ts";
import {
  DEAD,
  DueQueue,
  FIRED,
  PENDING,
  rowsOf,
  SessionRow,
  slotOf,
  timerPairsOf,
  timesOf,
} from "./_session_rows.ts";
import { WATERMARK } from "./_timer_checks.ts";
import type { HandOverTo, WindowEngine } from "./_window_engine.ts";
import { MAX_WINDOW_END } from "./_window_bounds.ts";
import { EventTimeTrigger } from "./event_time_trigger.ts";
import type { OutputTag } from "./output_tag.ts";
import { EventTimeSessionWindows } from "./session.ts";
import { SnapshotGroups } from "./snapshot_groups.ts";
import { TimeWindow } from "./time_window.ts";
import { TimerService } from "./timer_service.ts";
import type { WindowFunction } from "./window_function.ts";
import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "./window_operator_snapshot.ts";
import type { WindowOperatorOptions } from "./window_operator_options.ts";
import type { WindowOutput } from "./window_output.ts";

type Row<K, ACC> = SessionRow<K, ACC>;

/** What a {@linkcode SessionEngine} is built from. */
export interface SessionEngineOptions<T, K, ACC, OUT> {
  gap: number;
  keySelector: (value: T) => K;
  windowFunction: WindowFunction<T, ACC, OUT, K>;
  allowedLatenessMs: number;
  lateDataTag: OutputTag<T> | null;
  clock: Clock;
  partitionOf?: (key: K) => number;
}

/** The session engine of one window operator (see the file's comment). */
export class SessionEngine<T, K, ACC, OUT> implements WindowEngine<T, K, ACC> {
  readonly #gap: number;
  readonly #keyOf: (value: T) => K;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #lateness: number;
  readonly #lateTag: OutputTag<T> | null;
  readonly #clock: Clock;
  readonly #output: WindowOutput<OUT>;
  readonly #done: () => void;
  readonly #handOverTo: HandOverTo<K, ACC>;
  #groups: SnapshotGroups<Row<K, ACC>, WindowSlotSnapshot<K, ACC>>;
  readonly #partOf: (row: Row<K, ACC>) => number;
  // Each key's newest session; Row.older leads to the others.
  #newest = new Map<K, Row<K, ACC>>();
  readonly #due = new DueQueue<Row<K, ACC>>();
  #watermark = -Infinity;
  #nextId = 0;
  #numRows = 0;
  #numLateRecordsDropped = 0;
  // The clock read for the sweep under way (see #fire).
  #now = NaN;
  // False once the engine handed over, until a restore.
  #active = true;
  lastFiredWindowEnd = -Infinity;

  constructor(
    options: SessionEngineOptions<T, K, ACC, OUT>,
    output: WindowOutput<OUT>,
    handOverTo: HandOverTo<K, ACC>,
  ) {
    this.#gap = options.gap;
    this.#keyOf = options.keySelector;
    this.#fn = options.windowFunction;
    this.#lateness = options.allowedLatenessMs;
    this.#lateTag = options.lateDataTag;
    this.#clock = options.clock;
    this.#output = output;
    this.#done = output.windowDone?.bind(output) ?? function none() {};
    this.#handOverTo = handOverTo;
    const partitionOf = options.partitionOf;
    this.#partOf = partitionOf === undefined
      ? () => 0
      : (row) => partitionOf(row.key);
    this.#groups = new SnapshotGroups(this.#partOf, slotOf);
  }

  get currentWatermark(): number {
    return this.#watermark;
  }

  get numLateRecordsDropped(): number {
    return this.#numLateRecordsDropped;
  }

  get numWindows(): number {
    return this.#numRows;
  }

  get numTimers(): number {
    let count = 0;
    for (const row of this.#rows()) {
      count += timesOf(row, this.#lateness).length;
    }
    return count;
  }

  processBatch(values: readonly T[], timestamps: ArrayLike<number>): number {
    const n = values.length;
    let i = 0;
    for (;;) {
      try {
        for (; i < n; i++) {
          if (!this.#processRecord(values[i], timestamps[i])) return i;
        }
        return n;
      } catch (error) {
        // The record left what the general engine's record would: nothing,
        // or (see #growLate) a handover.
        const reject = this.#output.rejectRecord;
        if (reject === undefined) throw error;
        reject(values[i], timestamps[i], error, i);
        if (!this.#active) return i + 1;
        i++;
      }
    }
  }

  processElement(value: T, timestamp: number): boolean {
    return this.#processRecord(value, timestamp);
  }

  // The path of most records, kept small enough to inline: a record in or
  // extending its key's newest session, pending and ahead of the watermark.
  #processRecord(value: T, timestamp: number): boolean {
    const key = this.#keyOf(value);
    const row = this.#newest.get(key);
    if (
      row === undefined || !(timestamp >= row.start && timestamp <= row.end) ||
      row.state !== PENDING || !(row.end - 1 > this.#watermark) ||
      !Number.isSafeInteger(timestamp)
    ) return this.#other(key, value, timestamp, row);
    const end = timestamp + this.#gap;
    if (end > row.end) {
      if (this.#lateness > 0 || end > MAX_WINDOW_END) {
        return this.#grow(row, value, end);
      }
      // The general engine grows the session before the add, and keeps it
      // grown (with its one timer moved) if the add throws.
      row.end = end;
      row.changed = true;
    }
    const fn = this.#fn;
    row.contents = fn.add(row.contents ?? fn.create(), value);
    row.changed = true;
    return true;
  }

  // A record after its key's newest session (or its key's first), or one
  // the engine does not take.
  #other(
    key: K,
    value: T,
    timestamp: number,
    row: Row<K, ACC> | undefined,
  ): boolean {
    if (!Number.isSafeInteger(timestamp)) return this.#handOver({ key });
    let end = timestamp + this.#gap;
    if (end > MAX_WINDOW_END) end = MAX_WINDOW_END;
    if (
      (row === undefined || timestamp > row.end) && end - 1 > this.#watermark
    ) {
      this.#open(key, value, timestamp, end, row);
      return true;
    }
    return this.#late(key, value, timestamp, end, row);
  }

  // A record that extends its session, off the inlined path: its end
  // clipped to the safe range (then maybe not past the session's), or
  // with allowed lateness, where an add that throws after its session
  // grew leaves the general engine's session with its fire timer but no
  // cleanup timer, which no row holds: the engine hands over that state,
  // then throws.
  #grow(row: Row<K, ACC>, value: T, end: number): boolean {
    const fn = this.#fn;
    if (end > MAX_WINDOW_END) end = MAX_WINDOW_END;
    if (end > row.end) {
      row.end = end;
      row.changed = true;
      if (this.#lateness > 0) {
        try {
          row.contents = fn.add(row.contents ?? fn.create(), value);
        } catch (error) {
          this.#handOver(undefined, row.id);
          throw error;
        }
        return true;
      }
    }
    row.contents = fn.add(row.contents ?? fn.create(), value);
    row.changed = true;
    return true;
  }

  // A new newest session of `key` (after `older`, if any): the id is taken
  // before the add, as the general engine takes it.
  #open(
    key: K,
    value: T,
    start: number,
    end: number,
    older: Row<K, ACC> | undefined,
  ): void {
    const id = this.#nextId++;
    const fn = this.#fn;
    const contents = fn.add(fn.create(), value);
    const row = new SessionRow(id, key, start, end, contents, older ?? null);
    if (older !== undefined) older.newer = row;
    this.#newest.set(key, row);
    this.#numRows++;
    this.#due.push(end - 1, id, row);
  }

  // A record the fast paths do not take: late if its window is late and
  // touches no session of its key (the general engine skips it), else the
  // general engine takes it.
  #late(
    key: K,
    value: T,
    timestamp: number,
    end: number,
    newest: Row<K, ACC> | undefined,
  ): boolean {
    if (!(end - 1 + this.#lateness <= this.#watermark)) {
      return this.#handOver({ key });
    }
    for (let row = newest ?? null; row !== null; row = row.older) {
      if (timestamp <= row.end && end >= row.start) {
        return this.#handOver({ key });
      }
    }
    if (this.#lateTag !== null) {
      this.#output.sideOutput(
        this.#lateTag as OutputTag<unknown>,
        value,
        timestamp,
      );
    } else {
      this.#numLateRecordsDropped++;
    }
    return true;
  }

  processWatermark(watermark: number): void {
    if (!(watermark > this.#watermark)) return;
    requireWatermark(watermark, WATERMARK);
    this.#watermark = watermark;
    this.#fireDue(watermark);
    this.#output.emitWatermark(watermark);
  }

  // Runs the timers due at `watermark` in (time, id) order. An entry whose
  // row's earliest timer moved later goes back at that time.
  #fireDue(watermark: number): void {
    this.#now = NaN;
    const due = this.#due;
    const lateness = this.#lateness;
    while (due.size > 0 && due.topTime() <= watermark) {
      const time = due.topTime();
      const row = due.pop();
      const last = row.end - 1;
      if (row.state === FIRED) {
        if (last + lateness > time) due.push(last + lateness, row.id, row);
        else this.#drop(row);
        continue;
      }
      if (last > time) {
        due.push(last, row.id, row);
        continue;
      }
      // The fire timer, then the cleanup timer; with lateness 0 they are
      // one, and the session goes once it fired (not when its emit threw
      // with no rejectFire: the general engine's cleanup is then not run).
      if (lateness === 0) {
        row.state = DEAD;
        this.#fire(row, watermark);
        this.#drop(row);
      } else if (last + lateness <= Number.MAX_SAFE_INTEGER) {
        row.state = FIRED;
        due.push(last + lateness, row.id, row);
        this.#fire(row, watermark);
      } else {
        row.state = DEAD;
        this.#fire(row, watermark);
      }
    }
  }

  // Emits a session as the general engine does. The clock is read once per
  // watermark's sweep (#now, NaN until read), not per session as the
  // general engine reads it: sessions fired in one sweep see one instant,
  // which differs from the general engine's only if the clock moves during
  // the sweep (e.g. a window function advancing a ManualClock), as in the
  // pane engine (see PaneFire).
  #fire(row: Row<K, ACC>, watermark: number): void {
    const contents = row.contents;
    if (contents === undefined) return;
    if (row.end > this.lastFiredWindowEnd) this.lastFiredWindowEnd = row.end;
    const window = new TimeWindow(row.start, row.end);
    const output = this.#output;
    const fire = new PaneFire(
      window,
      row.end - 1,
      watermark,
      this.#now === this.#now ? this.#now : (this.#now = this.#clock.now()),
      output,
    );
    try {
      this.#fn.emit(row.key, fire.context(), contents, fire.collect);
    } catch (error) {
      const reject = output.rejectFire;
      if (reject === undefined) throw error;
      reject(row.key, window, error, fire.emitted);
    }
    this.#done();
  }

  // Drops a session at its cleanup.
  #drop(row: Row<K, ACC>): void {
    const { older, newer } = row;
    if (older !== null) older.newer = newer;
    if (newer !== null) newer.older = older;
    else if (older !== null) this.#newest.set(row.key, older);
    else this.#newest.delete(row.key);
    this.#numRows--;
    this.#groups.removed(row);
  }

  // Every row, in no order.
  *#rows(): Generator<Row<K, ACC>> {
    for (const newest of this.#newest.values()) {
      for (let row: Row<K, ACC> | null = newest; row !== null;) {
        yield row;
        row = row.older;
      }
    }
  }

  // Every row in id order, the general engine's order of its slots.
  #sorted(): Row<K, ACC>[] {
    return [...this.#rows()].sort((a, b) => a.id - b.id);
  }

  slotGroups(): WindowSlotSnapshot<K, ACC>[][] {
    return this.#groups.groups(this.#sorted());
  }

  snapshotWithoutSlots(): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    return this.#state(this.#sorted(), -1);
  }

  #state(
    rows: Row<K, ACC>[],
    noCleanup: number,
  ): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    return {
      nextId: this.#nextId,
      timers: {
        currentWatermark: this.#watermark,
        eventTime: timerPairsOf(rows, this.#lateness, noCleanup),
        processingTime: [],
      },
      numLateRecordsDropped: this.#numLateRecordsDropped,
    };
  }

  // Hands the state over to the general engine (see HandOver), with the
  // key of the record it goes on with; returns false, the record not taken.
  #handOver(key?: { key: K }, noCleanup = -1): false {
    const rows = this.#sorted();
    const flags = new Map<number, Row<K, ACC>>();
    for (const row of rows) flags.set(row.id, row);
    this.#active = false;
    this.#handOverTo({
      snapshot: { ...this.#state(rows, noCleanup), slots: rows.map(slotOf) },
      lastFiredWindowEnd: this.lastFiredWindowEnd,
      groups: this.#groups,
      flags,
      noCleanup,
      key,
    });
    this.#clear();
    return false;
  }

  #clear(): void {
    this.#newest = new Map();
    this.#due.clear();
    this.#numRows = 0;
    this.#groups = new SnapshotGroups(this.#partOf, slotOf);
  }

  restore(
    snapshot: WindowOperatorSnapshot<K, ACC>,
    lastFiredWindowEnd: number,
  ): boolean {
    // A snapshot the timer service refuses is for the general engine to
    // refuse, with its own message.
    const timers = new TimerService();
    try {
      timers.restore(snapshot.timers);
    } catch {
      return false;
    }
    const flat = timers.snapshot();
    const rows = rowsOf(snapshot.slots, flat, this.#lateness);
    if (rows === null || !Number.isSafeInteger(snapshot.nextId)) return false;
    this.#clear();
    for (const row of rows) {
      if (row.newer === null) this.#newest.set(row.key, row);
      if (row.state !== DEAD) {
        this.#due.push(timesOf(row, this.#lateness)[0], row.id, row);
      }
    }
    this.#numRows = rows.length;
    this.#watermark = flat.currentWatermark;
    this.#nextId = snapshot.nextId;
    this.#numLateRecordsDropped = snapshot.numLateRecordsDropped;
    this.lastFiredWindowEnd = lastFiredWindowEnd;
    this.#active = true;
    return true;
  }
}

/**
 * The session engine of a window operator with these options, or null:
 * it takes exactly EventTimeSessionWindows with a fixed gap and
 * EventTimeTrigger (not subclasses, which may decide otherwise).
 *
 * @param options The operator's options.
 * @param output Receives results, side outputs and watermarks.
 * @param handOverTo Takes the engine's state when it hands over.
 */
export function sessionEngineOf<T, K, ACC, OUT>(
  options: WindowOperatorOptions<T, K, ACC, OUT>,
  output: WindowOutput<OUT>,
  handOverTo: HandOverTo<K, ACC>,
): SessionEngine<T, K, ACC, OUT> | null {
  const trigger = options.trigger;
  if (
    Object.getPrototypeOf(options.assigner) !==
      EventTimeSessionWindows.prototype ||
    (trigger !== undefined &&
      Object.getPrototypeOf(trigger) !== EventTimeTrigger.prototype)
  ) return null;
  const gap = (options.assigner as EventTimeSessionWindows<T>).gapMs;
  if (gap === null) return null;
  return new SessionEngine(
    {
      gap,
      keySelector: options.keySelector,
      windowFunction: options.windowFunction,
      // Checked by WindowOperator before.
      allowedLatenessMs: options.allowedLatenessMs ?? 0,
      lateDataTag: options.lateDataTag ?? null,
      clock: options.clock,
      partitionOf: options.partitionOf,
    },
    output,
    handOverTo,
  );
}
