// A sink that records each result with the processing time it arrived at,
// so tests can assert *when* a window fired, not only what it held.

import type { Clock } from "../../src/time/clock.ts";
import type { Sink } from "../../src/runtime/sink.ts";

/** One record as the sink saw it. */
export interface TimedRecord<T> {
  value: T;
  timestamp: number;
  /** Processing time at arrival. */
  at: number;
}

/** Creates a sink writing into `into`, stamping arrivals with `clock`. */
export function timedSink<T>(clock: Clock, into: TimedRecord<T>[]): Sink<T> {
  return {
    name: "timed",
    createWriter() {
      return {
        write(values, timestamps) {
          values.forEach((value, i) =>
            into.push({ value, timestamp: timestamps[i], at: clock.now() })
          );
        },
      };
    },
  };
}
