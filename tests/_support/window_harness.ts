// Drives a WindowOperator with explicit records and watermarks and records
// what it emits as short strings, so tests read like Flink's tables:
// "(key2,3)@2999" for a result, "late key2:1@1998" for the late side output,
// "W2999" for a forwarded watermark.

import superjson from "superjson";
import { ManualClock } from "../../src/time/clock.ts";
import { reduceWindow } from "../../src/windows/window_function.ts";
import {
  WindowOperator,
  type WindowOperatorOptions,
} from "../../src/windows/window_operator.ts";
import type { WindowAssigner } from "../../src/windows/window_assigner.ts";
import type { ProcessWindowFunction } from "../../src/windows/window_function.ts";

/** A record of the tests: `[key, value]`. */
export type KV = [string, number];

/** Options of {@link windowHarness}; the key selector is fixed to `kv[0]`. */
export type HarnessOptions<ACC, OUT> =
  & Omit<WindowOperatorOptions<KV, string, ACC, OUT>, "keySelector" | "clock">
  & { clock?: ManualClock };

/** An operator under test plus what it emitted. */
export class WindowHarness<ACC, OUT> {
  /** Everything emitted so far, rendered. */
  readonly emitted: string[] = [];
  /** The operator; replaced by `snapshotAndRestore()`. */
  operator: WindowOperator<KV, string, ACC, OUT>;
  /** The processing-time clock. */
  readonly clock: ManualClock;
  readonly #options: WindowOperatorOptions<KV, string, ACC, OUT>;
  readonly #render: (value: OUT) => string;
  #taken = 0;

  constructor(
    options: HarnessOptions<ACC, OUT>,
    render: (value: OUT) => string,
  ) {
    this.clock = options.clock ?? new ManualClock(0);
    this.#options = {
      ...options,
      keySelector: (kv) => kv[0],
      clock: this.clock,
    };
    this.#render = render;
    this.operator = this.#create();
  }

  #create(): WindowOperator<KV, string, ACC, OUT> {
    const emitted = this.emitted;
    const render = this.#render;
    return new WindowOperator(this.#options, {
      collect: (value, ts) => emitted.push(`${render(value)}@${ts}`),
      sideOutput: (tag, value, ts) => {
        const [k, v] = value as KV;
        emitted.push(`${tag.id} ${k}:${v}@${ts}`);
      },
      emitWatermark: (w) => emitted.push(`W${w}`),
    });
  }

  /** Processes `key:value@timestamp`. */
  element(key: string, value: number, timestamp: number): this {
    this.operator.processElement([key, value], timestamp);
    return this;
  }

  /** Processes a watermark. */
  watermark(watermark: number): this {
    this.operator.processWatermark(watermark);
    return this;
  }

  /** Returns what was emitted since the last call, without watermarks. */
  take(): string[] {
    const fresh = this.emitted.slice(this.#taken).filter((e) =>
      !e.startsWith("W")
    );
    this.#taken = this.emitted.length;
    return fresh;
  }

  /** Snapshots through superjson text and restores into a fresh operator. */
  snapshotAndRestore(): this {
    const text = superjson.stringify(this.operator.snapshot());
    this.operator = this.#create();
    this.operator.restore(superjson.parse(text));
    return this;
  }
}

/** A harness summing values per key, emitting `(key,sum)`. */
export function sumHarness(
  assigner: WindowAssigner<KV>,
  options: Omit<
    HarnessOptions<{ value?: KV }, KV>,
    "assigner" | "windowFunction"
  > = {},
): WindowHarness<{ value?: KV }, KV> {
  return new WindowHarness(
    {
      ...options,
      assigner,
      windowFunction: reduceWindow<KV, string>((a, b) => [a[0], a[1] + b[1]]),
    },
    ([key, sum]) => `(${key},${sum})`,
  );
}

/** A harness summing values per session, emitting `(key-sum,start,end)`. */
export function sessionSumHarness(
  assigner: WindowAssigner<KV>,
  options: Omit<
    HarnessOptions<{ value?: KV }, string>,
    "assigner" | "windowFunction"
  > = {},
): WindowHarness<{ value?: KV }, string> {
  const describe: ProcessWindowFunction<KV, string, string> = (
    key,
    ctx,
    [sum],
    out,
  ) => out(`(${key}-${sum[1]},${ctx.window.start},${ctx.window.end})`);
  return new WindowHarness(
    {
      ...options,
      assigner,
      windowFunction: reduceWindow<KV, string, string>(
        (a, b) => [a[0], a[1] + b[1]],
        describe,
      ),
    },
    (s) => s,
  );
}
