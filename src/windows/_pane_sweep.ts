// Firing in the pane engine: the window function's emit for a pane, and
// the sweep a watermark makes over the due windows (fire, then cleanup).

import type { Clock } from "../time/mod.ts";
import type { PaneIndex } from "./_pane_index.ts";
import { PaneFire } from "./_pane_fire_context.ts";
import { CLEAN, FIRE, GONE, type PaneWindow } from "./_pane_window.ts";
import type { WindowFunction } from "./window_function.ts";
import type { WindowOutput } from "./window_output.ts";

/** What a {@linkcode PaneSweep} works with: its engine's parts. */
export interface PaneSweepParts<T, K, ACC, OUT> {
  windows: PaneIndex<K, ACC>;
  windowFunction: WindowFunction<T, ACC, OUT, K>;
  output: WindowOutput<OUT>;
  clock: Clock;
  allowedLatenessMs: number;
  /** Called with the snapshot group of each pane dropped that had one. */
  removed: (part: number) => void;
}

/** Fires and cleans up the panes of a pane engine. */
export class PaneSweep<T, K, ACC, OUT> {
  readonly #windows: PaneIndex<K, ACC>;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #output: WindowOutput<OUT>;
  readonly #clock: Clock;
  readonly #lateness: number;
  readonly #removed: (part: number) => void;
  readonly #done: () => void;
  /** The largest end of a window fired so far; `-Infinity` before the first. */
  lastFiredWindowEnd = -Infinity;
  /** Panes dropped so far. */
  numDropped = 0;
  // The id of the pane whose emit threw (without rejectFire), so that a
  // failed sweep cleans up only what the general engine's timers before
  // that pane's fire timer clean.
  #failedId = 0;

  constructor(parts: PaneSweepParts<T, K, ACC, OUT>) {
    this.#windows = parts.windows;
    this.#fn = parts.windowFunction;
    const output = this.#output = parts.output;
    this.#clock = parts.clock;
    this.#lateness = parts.allowedLatenessMs;
    this.#removed = parts.removed;
    this.#done = output.windowDone?.bind(output) ?? function none() {};
  }

  /** Fires pane `p` of `w` now (a record within the allowed lateness). */
  fireNow(w: PaneWindow<K, ACC>, p: number, watermark: number): void {
    this.#emit(w, p, this.#fireOf(w, watermark));
  }

  // The clock is read here, once per fired window (see PaneFire).
  #fireOf(w: PaneWindow<K, ACC>, watermark: number): PaneFire<OUT> {
    return new PaneFire(
      w.window,
      w.maxTimestamp,
      watermark,
      this.#clock.now(),
      this.#output,
    );
  }

  // Emits pane `p` of `w`, fired by `fire`.
  #emit(w: PaneWindow<K, ACC>, p: number, fire: PaneFire<OUT>): void {
    const contents = w.contents[p];
    if (contents === undefined) return;
    const end = w.window.end;
    if (end > this.lastFiredWindowEnd) this.lastFiredWindowEnd = end;
    fire.emitted = 0;
    try {
      this.#fn.emit(w.keys[p], fire.context(), contents, fire.collect);
    } catch (error) {
      // One try per pane fired, not per record.
      const reject = this.#output.rejectFire;
      if (reject === undefined) {
        this.#failedId = w.ids[p];
        throw error;
      }
      reject(w.keys[p], w.window, error, fire.emitted);
    }
    this.#done();
  }

  /** Fires and cleans up every window due at `watermark`, in end order. */
  sweep(watermark: number): void {
    const order = this.#windows.order;
    // The windows fired so far: if a window function throws (and there is
    // no rejectFire), those are cleaned up and the others stay due. The
    // windows swept before are not looked at again: only a record fires
    // them (at once), so a long allowed lateness costs no sweep per
    // watermark.
    let done = Math.min(this.#windows.swept, order.length);
    let failed = false;
    try {
      for (let i = done; i < order.length; i = done) {
        const w = order[i];
        if (w.maxTimestamp > watermark) break;
        let last = i;
        if (w.due) {
          last = i + 1 < order.length &&
              order[i + 1].maxTimestamp === w.maxTimestamp
            ? this.#fireTies(order, i, watermark)
            : i;
          if (last === i) this.#fire(w, watermark);
        }
        done = last + 1;
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // The general engine runs its timers in (timestamp, id) order and
      // stops at the failing fire timer: cleanups after it stay pending.
      const limit = failed ? order[done].maxTimestamp : Infinity;
      this.#dropGone(order, watermark, done, limit, this.#failedId);
    }
  }

  // Fires the panes of `w` whose fire timer is pending, in id order; with
  // lateness 0 that timer is also the cleanup, and the pane goes.
  #fire(w: PaneWindow<K, ACC>, watermark: number): void {
    const pending = this.#lateness === 0 ? FIRE | CLEAN : FIRE;
    const cleaned = this.#lateness === 0 ? GONE : 0;
    const bits = w.bits;
    w.marked = false;
    let fire: PaneFire<OUT> | null = null;
    const n = w.size;
    for (let p = 0; p < n; p++) {
      const b = bits[p];
      if ((b & pending) === 0) continue;
      bits[p] = b & ~pending;
      fire ??= this.#fireOf(w, watermark);
      this.#emit(w, p, fire);
      bits[p] |= cleaned;
    }
    w.due = false;
  }

  // Windows that share their maxTimestamp (only those clipped to the end
  // of the safe range): their panes fire in id order across windows.
  // Returns the index of the last of them.
  #fireTies(
    order: PaneWindow<K, ACC>[],
    first: number,
    watermark: number,
  ): number {
    const time = order[first].maxTimestamp;
    let last = first;
    while (last + 1 < order.length && order[last + 1].maxTimestamp === time) {
      last++;
    }
    const pending = this.#lateness === 0 ? FIRE | CLEAN : FIRE;
    const cleaned = this.#lateness === 0 ? GONE : 0;
    const due: [number, PaneWindow<K, ACC>, number][] = [];
    for (let i = first; i <= last; i++) {
      const w = order[i];
      w.marked = false;
      for (let p = 0; p < w.size; p++) {
        if ((w.bits[p] & pending) !== 0) due.push([w.ids[p], w, p]);
      }
    }
    due.sort((a, b) => a[0] - b[0]);
    for (const [, w, p] of due) {
      w.bits[p] &= ~pending;
      this.#emit(w, p, this.#fireOf(w, watermark));
      w.bits[p] |= cleaned;
    }
    for (let i = first; i <= last; i++) order[i].due = false;
    return last;
  }

  // Drops the panes cleaned up at `watermark` in the first `done` windows
  // (and those a throw left GONE in the next), and the windows left empty.
  // Cleanup times grow with the end, so the cleaned windows come first.
  // After a throw, only cleanups before the failing fire timer (at
  // `limit`, of pane `limitId`) count.
  #dropGone(
    order: PaneWindow<K, ACC>[],
    watermark: number,
    done: number,
    limit: number,
    limitId: number,
  ): void {
    let emptied = 0;
    // A throw among tied windows (see #fireTies) may leave panes GONE in
    // any of them, not only the first.
    let last = done;
    while (
      last + 1 < order.length &&
      order[last + 1].maxTimestamp === order[done].maxTimestamp
    ) last++;
    for (let i = 0; i <= last && i < order.length; i++) {
      const w = order[i];
      if (w.cleanup > watermark || w.cleanup > limit) break;
      const cleaning = i < done;
      if (cleaning) {
        const bits = w.bits;
        const ids = w.ids;
        const all = w.cleanup < limit;
        w.marked = false;
        for (let p = 0; p < w.size; p++) {
          if ((bits[p] & CLEAN) !== 0 && (all || ids[p] < limitId)) {
            bits[p] = GONE;
          }
        }
      } else if (this.#lateness > 0) {
        // With lateness, only a cleanup marks panes GONE.
        continue;
      }
      const before = w.size;
      w.sweepGone(this.#removed);
      this.numDropped += before - w.size;
      if (cleaning && w.size === 0) {
        w.dropped = true;
        emptied++;
        this.#windows.room = before;
      }
    }
    if (emptied > 0) this.#windows.sweepDropped();
    this.#windows.swept = done - emptied;
  }
}
