// Firing in the session engine: the window function's emit for a session,
// with what it is handed, as the general engine hands it.

import type { Clock } from "../time/mod.ts";
import type { OutputTag } from "./output_tag.ts";
import type { SessionRows } from "./_session_rows.ts";
import { TimeWindow } from "./time_window.ts";
import type {
  ProcessWindowContext,
  WindowFunction,
} from "./window_function.ts";
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
    const key = rows.keys[row] as K;
    const output = this.#output;
    // A session is one window of one key: its context and collector are
    // made here, as the general engine makes them (no PaneFire, which
    // serves the panes of a window), so a fire allocates only what the
    // window function is handed. Both stay bound to this window: a kept
    // one stamps this window's timestamp and counts toward its emitted.
    const timestamp = end - 1;
    let emitted = 0;
    const context: ProcessWindowContext = {
      window,
      currentWatermark: watermark,
      currentProcessingTime: this.#clock.now(),
      output<X>(tag: OutputTag<X>, value: X): void {
        output.sideOutput(tag as OutputTag<unknown>, value, timestamp);
      },
    };
    try {
      this.#fn.emit(key, context, contents, function collect(value: OUT) {
        output.collect(value, timestamp);
        emitted++;
      });
    } catch (error) {
      const reject = output.rejectFire;
      if (reject === undefined) throw error;
      reject(key, window, error, emitted);
    }
    this.#done();
  }
}
