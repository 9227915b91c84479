// Opens one StreamOperator with manual clocks and records what it emits as
// short strings, so tests read like Flink's tables: "R(2)@2" for a record
// (value@timestamp), "W1" for a watermark, "idle"/"active" for a status,
// "side:late x@5" for a side output. The harness calls onProcessingTime the
// way Subtask does: once, when nextProcessingTime() is due.

import superjson from "superjson";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import type { WatermarkStatus } from "../../src/time/watermark_output.ts";
import type {
  OperatorContext,
  StreamOperator,
} from "../../src/runtime/stream_operator.ts";

/** Options of an {@link OperatorHarness}. */
export interface OperatorHarnessOptions<OUT> {
  /** The processing-time clock; a new ManualClock at 0 by default. */
  clock?: ManualClock;
  /** Renders a value inside "R(...)" and side outputs; JSON for objects. */
  render?: (value: OUT) => string;
}

function renderValue(value: unknown): string {
  return typeof value === "object" && value !== null
    ? JSON.stringify(value)
    : String(value);
}

/** An operator under test plus everything it emitted. */
export class OperatorHarness<IN, OUT> {
  /** Everything emitted so far, rendered, in order. */
  readonly emitted: string[] = [];
  /** The rendered records of each emitBatch call, in order. */
  readonly batches: string[][] = [];
  /** The gauges the operator registered. */
  readonly gauges = new Map<string, () => number>();
  /** How often the operator asked for its mail to be processed. */
  mailRequests = 0;
  /** The processing-time clock. */
  readonly clock: ManualClock;
  /** The input-activity clock over `clock`; pause it for back-pressure. */
  readonly activityClock: PausableClock;
  /** The operator. */
  readonly operator: StreamOperator<IN, OUT>;
  readonly #render: (value: unknown) => string;
  #taken = 0;

  constructor(
    operator: StreamOperator<IN, OUT>,
    options: OperatorHarnessOptions<OUT> = {},
  ) {
    this.operator = operator;
    this.clock = options.clock ?? new ManualClock(0);
    this.activityClock = new PausableClock(this.clock);
    this.#render = (options.render as (value: unknown) => string) ??
      renderValue;
  }

  /** Opens the operator with subtask 0 of 1. */
  open(): this {
    const gauges = this.gauges;
    const context: OperatorContext = {
      clock: this.clock,
      activityClock: this.activityClock,
      subtaskIndex: 0,
      parallelism: 1,
      metrics: {
        gauge(name, read) {
          gauges.set(name, read);
        },
      },
      requestMail: () => {
        this.mailRequests++;
      },
    };
    const { emitted, batches } = this;
    const render = this.#render;
    this.operator.open(context, {
      emitBatch(values, timestamps) {
        const batch = values.map((v, i) => `R(${render(v)})@${timestamps[i]}`);
        batches.push(batch);
        emitted.push(...batch);
      },
      emitWatermark(watermark) {
        emitted.push(`W${watermark}`);
      },
      emitWatermarkStatus(status: WatermarkStatus) {
        emitted.push(status);
      },
      emitSideOutput(tag, value, timestamp) {
        emitted.push(`side:${tag} ${render(value)}@${timestamp}`);
      },
    });
    return this;
  }

  /**
   * Lets settled promises run their callbacks, then processes the operator's
   * mail, as the runtime does between elements.
   */
  async mail(): Promise<this> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.operator.processMail?.();
    return this;
  }

  /** Processes one batch; timestamps default to `-Infinity` (none). */
  batch(values: IN[], timestamps?: number[]): this {
    this.operator.processBatch(
      values,
      timestamps ?? values.map(() => -Infinity),
    );
    return this;
  }

  /** Processes one record as a batch of one. */
  element(value: IN, timestamp = -Infinity): this {
    return this.batch([value], [timestamp]);
  }

  /** Processes an input watermark. */
  watermark(watermark: number): this {
    this.operator.processWatermark(watermark);
    return this;
  }

  /** Processes an input status. */
  status(status: WatermarkStatus): this {
    this.operator.processWatermarkStatus(status);
    return this;
  }

  /** Sets processing time and runs the operator's work if it is due. */
  setProcessingTime(ms: number): this {
    if (ms > this.clock.now()) this.clock.set(ms);
    const now = this.clock.now();
    if (this.operator.nextProcessingTime() <= now) {
      this.operator.onProcessingTime(now);
    }
    return this;
  }

  /** Advances processing time by `ms` and runs the work that is due. */
  advanceTime(ms: number): this {
    return this.setProcessingTime(this.clock.now() + ms);
  }

  /** Calls finish(). */
  finish(): this {
    this.operator.finish();
    return this;
  }

  /** Returns what was emitted since the previous call. */
  take(): string[] {
    const fresh = this.emitted.slice(this.#taken);
    this.#taken = this.emitted.length;
    return fresh;
  }

  /** The operator's snapshot after a superjson round trip, as a checkpoint would store it. */
  snapshot(): unknown {
    return superjson.parse(
      superjson.stringify(this.operator.snapshotState()),
    );
  }
}
