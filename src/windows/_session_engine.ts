// The window operator's engine for event-time sessions of a fixed gap with
// the default trigger: what the general engine does with EventTimeTrigger,
// without a slot, TimeWindow, index entry or timer object per session.
//
// A session is a row (see SessionRows), found through its key's newest
// session; its timers are implied by its end and state, and one entry per
// row in a due queue ordered by (time, id) stands for them. A record that
// extends a session only moves its end: the entry, at an older time, runs
// at the row's true time when it comes up, as the lazy path of the general
// engine does (see _session_lazy.ts and SessionTimers). So a watermark
// fires in the general engine's order: by timestamp, then id.
//
// The engine takes the records of ordered input: one in or extending its
// key's newest pending session, one after it (a new newest session), and a
// late one whose window touches no session. Any other record hands over,
// one way: the engine's state goes to the general engine in its snapshot
// format, exactly what it would hold, and the record is processed there.

import { requireWatermark } from "../time/validate.ts";
import { SessionFiring } from "./_session_fire.ts";
import { SessionTimers } from "./_session_timers.ts";
import type { EngineOptions } from "./_engine_options.ts";
import { KeyRows } from "./_key_rows.ts";
import { lateRecord } from "./_late_record.ts";
import { isSafeTime } from "./_safe_time.ts";
import { CHANGED, NONE, PENDING, SessionRows, STATE } from "./_session_rows.ts";
import {
  restoreRows,
  type RowItem,
  SessionGroups,
  snapshotOf,
} from "./_session_snapshot.ts";
import { WATERMARK } from "./_timer_checks.ts";
import type { HandOverTo, WindowEngine } from "./_window_engine.ts";
import { MAX_WINDOW_END } from "./_window_bounds.ts";
import type { OutputTag } from "./output_tag.ts";
import type { WindowFunction } from "./window_function.ts";
import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "./window_operator_snapshot.ts";
import type { WindowOutput } from "./window_output.ts";

/** What a {@linkcode SessionEngine} is built from. */
export interface SessionEngineOptions<T, K, ACC, OUT>
  extends EngineOptions<T, K, ACC, OUT> {
  gap: number;
}

/** The session engine of one window operator (see the file's comment). */
export class SessionEngine<T, K, ACC, OUT> implements WindowEngine<T, K, ACC> {
  readonly #gap: number;
  readonly #keyOf: (value: T) => K;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #lateness: number;
  readonly #lateTag: OutputTag<T> | null;
  readonly #output: WindowOutput<OUT>;
  readonly #handOverTo: HandOverTo<K, ACC>;
  #rows = new SessionRows<K, ACC>();
  readonly #groups: SessionGroups<K, ACC>;
  // Each key's newest session; SessionRows.older leads to the others.
  #newest = new KeyRows<K>();
  readonly #timers: SessionTimers<T, K, ACC, OUT>;
  #watermark = -Infinity;
  #nextId = 0;
  #numLateRecordsDropped = 0;
  // False once the engine handed over, until a restore.
  #active = true;
  readonly #firing: SessionFiring<T, K, ACC, OUT>;

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
    this.#output = output;
    this.#firing = new SessionFiring(
      options.windowFunction,
      output,
      options.clock,
    );
    this.#timers = new SessionTimers(
      this.#firing,
      options.allowedLatenessMs,
      (row) => this.#drop(row),
    );
    this.#handOverTo = handOverTo;
    this.#groups = new SessionGroups(options.partitionOf, this.#rows);
  }

  get currentWatermark(): number {
    return this.#watermark;
  }

  get numLateRecordsDropped(): number {
    return this.#numLateRecordsDropped;
  }

  get lastFiredWindowEnd(): number {
    return this.#firing.lastFiredWindowEnd;
  }

  get numWindows(): number {
    return this.#rows.size;
  }

  get numTimers(): number {
    let count = 0;
    for (const row of this.#rows.live()) {
      count += this.#rows.timesOf(row, this.#lateness).length;
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
        // or (see #grow) a handover.
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
    if (row === undefined) return this.#other(key, value, timestamp, NONE);
    const rows = this.#rows;
    const bounds = rows.bounds;
    const last = bounds[2 * row + 1];
    const flags = rows.flags;
    if (
      !(timestamp >= bounds[2 * row] && timestamp <= last) ||
      (flags[row] & STATE) !== PENDING || !(last - 1 > this.#watermark) ||
      !isSafeTime(timestamp)
    ) return this.#other(key, value, timestamp, row);
    const end = timestamp + this.#gap;
    if (end > last) {
      if (this.#lateness > 0 || end > MAX_WINDOW_END) {
        return this.#grow(row, value, end);
      }
      // The general engine grows the session before the add, and keeps it
      // grown (with its one timer moved) if the add throws.
      bounds[2 * row + 1] = end;
      flags[row] |= CHANGED;
    }
    const fn = this.#fn;
    const contents = rows.contents;
    contents[row] = fn.add(contents[row] ?? fn.create(), value);
    flags[row] |= CHANGED;
    return true;
  }

  // A record after its key's newest session (or its key's first), or one
  // the engine does not take.
  #other(key: K, value: T, timestamp: number, row: number): boolean {
    if (!Number.isSafeInteger(timestamp)) return this.#handOver({ key });
    let end = timestamp + this.#gap;
    if (end > MAX_WINDOW_END) end = MAX_WINDOW_END;
    if (
      (row === NONE || timestamp > this.#rows.end(row)) &&
      end - 1 > this.#watermark
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
  #grow(row: number, value: T, end: number): boolean {
    const fn = this.#fn;
    const rows = this.#rows;
    const contents = rows.contents;
    if (end > MAX_WINDOW_END) end = MAX_WINDOW_END;
    if (end > rows.end(row)) {
      rows.bounds[2 * row + 1] = end;
      rows.flags[row] |= CHANGED;
      if (this.#lateness > 0) {
        try {
          contents[row] = fn.add(contents[row] ?? fn.create(), value);
        } catch (error) {
          this.#handOver(undefined, rows.ids[row]);
          throw error;
        }
        return true;
      }
    }
    contents[row] = fn.add(contents[row] ?? fn.create(), value);
    rows.flags[row] |= CHANGED;
    return true;
  }

  // A new newest session of `key` (after row `older`, if any): the id is
  // taken before the add, as the general engine takes it.
  #open(key: K, value: T, start: number, end: number, older: number): void {
    const id = this.#nextId++;
    const fn = this.#fn;
    const contents = fn.add(fn.create(), value);
    const rows = this.#rows;
    const row = rows.add(id, key, start, end, contents, older);
    if (older !== NONE) rows.newer[older] = row;
    this.#newest.set(key, row);
    this.#timers.push(end - 1, id, row);
  }

  // A record the fast paths do not take: late if its window is late and
  // touches no session of its key (the general engine skips it), else the
  // general engine takes it.
  #late(
    key: K,
    value: T,
    timestamp: number,
    end: number,
    newest: number,
  ): boolean {
    if (!(end - 1 + this.#lateness <= this.#watermark)) {
      return this.#handOver({ key });
    }
    const rows = this.#rows;
    for (let row = newest; row !== NONE; row = rows.older[row]) {
      if (timestamp <= rows.end(row) && end >= rows.start(row)) {
        return this.#handOver({ key });
      }
    }
    this.#numLateRecordsDropped += lateRecord(
      this.#output,
      this.#lateTag,
      value,
      timestamp,
    );
    return true;
  }

  processWatermark(watermark: number): void {
    if (!(watermark > this.#watermark)) return;
    requireWatermark(watermark, WATERMARK);
    this.#watermark = watermark;
    this.#timers.fire(this.#rows, watermark);
    this.#output.emitWatermark(watermark);
  }

  // Drops a session at its cleanup. A row in no snapshot group yet (all of
  // them until the first snapshot) has nothing to tell the groups.
  #drop(row: number): void {
    const rows = this.#rows;
    if (rows.parts[row] >= 0) this.#groups.removed(row);
    rows.remove(row, this.#newest);
  }

  slotGroups(): WindowSlotSnapshot<K, ACC>[][] {
    return this.#groups.slotGroups();
  }

  snapshotWithoutSlots(): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    return this.#snapshot(this.#rows.live(), -1);
  }

  #snapshot(
    live: number[],
    noCleanup: number,
  ): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    return snapshotOf(this.#rows, live, this.#lateness, {
      nextId: this.#nextId,
      watermark: this.#watermark,
      numLateRecordsDropped: this.#numLateRecordsDropped,
    }, noCleanup);
  }

  // Hands the state over to the general engine (see HandOver), with the
  // key of the record it goes on with; returns false, the record not taken.
  #handOver(key?: { key: K }, noCleanup = -1): false {
    const rows = this.#rows;
    const live = rows.live();
    const flags = new Map<number, RowItem>();
    for (const item of this.#groups.items(live)) {
      flags.set(rows.ids[item.row], item);
    }
    this.#active = false;
    this.#handOverTo({
      snapshot: {
        ...this.#snapshot(live, noCleanup),
        slots: live.map((row) => rows.slotOf(row)),
      },
      lastFiredWindowEnd: this.#firing.lastFiredWindowEnd,
      groups: this.#groups.groups,
      flags,
      noCleanup,
      key,
    });
    this.#reset(new SessionRows(), new KeyRows());
    return false;
  }

  #reset(rows: SessionRows<K, ACC>, newest: KeyRows<K>): void {
    this.#rows = rows;
    this.#newest = newest;
    this.#timers.clear();
    this.#groups.reset(rows);
  }

  restore(
    snapshot: WindowOperatorSnapshot<K, ACC>,
    lastFiredWindowEnd: number,
  ): boolean {
    const restored = restoreRows(snapshot, this.#lateness);
    if (restored === null) return false;
    const { rows, newest, counters } = restored;
    this.#reset(rows, newest);
    for (const row of rows.live()) {
      const first = rows.timesOf(row, this.#lateness)[0];
      if (first !== undefined) this.#timers.push(first, rows.ids[row], row);
    }
    this.#watermark = counters.watermark;
    this.#nextId = counters.nextId;
    this.#numLateRecordsDropped = counters.numLateRecordsDropped;
    this.#firing.lastFiredWindowEnd = lastFiredWindowEnd;
    this.#active = true;
    return true;
  }
}
