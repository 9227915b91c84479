// The session engine's timers: one due entry per row, and the sweep that
// runs them when a watermark comes, in the general engine's order.

import { DueQueue } from "./_due_queue.ts";
import { DueSweep } from "./_due_sweep.ts";
import type { SessionFiring } from "./_session_fire.ts";
import { DEAD, FIRED, PENDING, type SessionRows } from "./_session_rows.ts";

/**
 * The due entries of a session engine's rows, at the time of each row's
 * earliest timer when queued (see SessionRows' PENDING for the timers a
 * row's state implies), and how a watermark runs them.
 */
export class SessionTimers<T, K, ACC, OUT> {
  readonly #due = new DueQueue();
  readonly #sweep = new DueSweep();
  readonly #firing: SessionFiring<T, K, ACC, OUT>;
  readonly #lateness: number;
  readonly #drop: (row: number) => void;

  constructor(
    firing: SessionFiring<T, K, ACC, OUT>,
    lateness: number,
    drop: (row: number) => void,
  ) {
    this.#firing = firing;
    this.#lateness = lateness;
    this.#drop = drop;
  }

  /** Queues `row`'s earliest timer, at `time`; `id` is the row's. */
  push(time: number, id: number, row: number): void {
    this.#due.push(time, id, row);
  }

  /**
   * Drops every entry (the rows are replaced). Never during a sweep: the
   * operator refuses a restore from inside its calls, and the engine hands
   * over only from the record path.
   */
  clear(): void {
    this.#due.clear();
  }

  /**
   * Runs the timers of `rows` due at `watermark` in (time, id) order.
   * Every due entry leaves the queue at its row's true time (an end that
   * moved since it was queued puts it later: past the watermark, back in
   * the queue), the sweep sorts them once (see DueSweep), and they run in
   * that order, merged with the entries their fires queue and make due
   * (cleanup timers with allowed lateness).
   */
  fire(rows: SessionRows<K, ACC>, watermark: number): void {
    const due = this.#due;
    const sweep = this.#sweep;
    while (due.size > 0) {
      const time = due.topTime();
      if (!(time <= watermark)) break;
      const row = due.pop();
      const last = rows.end(row) - 1;
      if (last > time && rows.state(row) === PENDING) {
        if (last <= watermark) sweep.add(last, rows.ids[row], row);
        else due.push(last, rows.ids[row], row);
      } else sweep.add(time, rows.ids[row], row);
    }
    const n = sweep.size;
    if (n === 0) return;
    const order = sweep.sort();
    // The first entry not started: if a fire throws (with no rejectFire),
    // the entries after it go back to the queue, due as they were.
    let next = 0;
    try {
      while (next < n) {
        const at = order[next];
        const time = sweep.times[at];
        const id = sweep.ids[at];
        while (
          due.size > 0 &&
          (due.topTime() < time ||
            (due.topTime() === time && due.topId() < id))
        ) {
          this.#run(rows, due.topTime(), due.pop(), watermark);
        }
        next++;
        this.#run(rows, time, sweep.rows[at], watermark);
      }
    } finally {
      for (let i = next; i < n; i++) {
        const at = order[i];
        due.push(sweep.times[at], sweep.ids[at], sweep.rows[at]);
      }
      sweep.clear();
    }
    while (due.size > 0) {
      const time = due.topTime();
      if (!(time <= watermark)) break;
      this.#run(rows, time, due.pop(), watermark);
    }
  }

  // Runs the timer of `row` due at `time`. An entry whose row's earliest
  // timer moved later goes back at that time.
  #run(
    rows: SessionRows<K, ACC>,
    time: number,
    row: number,
    watermark: number,
  ): void {
    const lateness = this.#lateness;
    const last = rows.end(row) - 1;
    if (rows.state(row) === FIRED) {
      this.#drop(row);
      return;
    }
    if (last > time) {
      this.#due.push(last, rows.ids[row], row);
      return;
    }
    // The fire timer, then the cleanup timer; with lateness 0 they are
    // one, and the session goes once it fired (not when its emit threw
    // with no rejectFire: the general engine's cleanup is then not run).
    if (lateness === 0) {
      rows.setState(row, DEAD);
      this.#firing.fire(rows, row, watermark);
      this.#drop(row);
    } else if (last + lateness <= Number.MAX_SAFE_INTEGER) {
      rows.setState(row, FIRED);
      this.#due.push(last + lateness, rows.ids[row], row);
      this.#firing.fire(rows, row, watermark);
    } else {
      rows.setState(row, DEAD);
      this.#firing.fire(rows, row, watermark);
    }
  }
}
