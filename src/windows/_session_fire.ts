// Firing in the session engine: the window function's emit for a session,
// with what it is handed, as the general engine hands it.

import type { Clock } from "../time/mod.ts";
import { emitWindow } from "./_emit_window.ts";
import type { SessionRows } from "./_session_rows.ts";
import { TimeWindow } from "./time_window.ts";
import type { WindowFunction } from "./window_function.ts";
import type { WindowOutput } from "./window_output.ts";

/**
 * Emits the sessions a watermark fires. The clock is read once per fired
 * session, as the general engine reads it once per fired window, so a
 * window function that moves the clock (e.g. a ManualClock) sees the same
 * instants on both engines.
 */
export class SessionFiring<T, K, ACC, OUT> {
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #output: WindowOutput<OUT>;
  readonly #clock: Clock;
  readonly #done: () => void;
  /** The largest end of a window fired so far; `-Infinity` before the first. */
  lastFiredWindowEnd = -Infinity;

  constructor(
    fn: WindowFunction<T, ACC, OUT, K>,
    output: WindowOutput<OUT>,
    clock: Clock,
  ) {
    this.#fn = fn;
    this.#output = output;
    this.#clock = clock;
    this.#done = output.windowDone?.bind(output) ?? function none() {};
  }

  /** Emits the session of `row`, fired by `watermark`. */
  fire(rows: SessionRows<K, ACC>, row: number, watermark: number): void {
    const contents = rows.contents[row];
    if (contents === undefined) return;
    const end = rows.end(row);
    if (end > this.lastFiredWindowEnd) this.lastFiredWindowEnd = end;
    const window = new TimeWindow(rows.start(row), end);
    emitWindow(
      this.#fn,
      this.#output,
      rows.keys[row] as K,
      window,
      contents,
      watermark,
      this.#clock.now(),
    );
    this.#done();
  }
}
