/**
 * The demo job of `deno task dev`: clicks per page per 10 seconds from
 * generated traffic (4 partitions, 20 clicks/s each, up to 1 s out of
 * order), at parallelism 2. Partition 3 falls silent for 20 s of every
 * minute; `withIdleness(5_000)` keeps event time moving without it, which
 * the dashboard shows as that subtask going idle and back.
 *
 * A job file is a module whose default export receives a {@linkcode JobContext};
 * its `settings` export says how it runs (flags on the command line override
 * each setting).
 *
 * @module
 */

import {
  ConsoleSink,
  GeneratorSource,
  type JobContext,
  type JobSettings,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../src/mod.ts";

/** A generated click. */
export interface Click {
  /** The page clicked. */
  page: string;
  /** Event time, epoch milliseconds. */
  at: number;
}

const PAGES = ["/home", "/pricing", "/docs", "/blog", "/about"];

/** Two subtasks per operator; event time rebuilt by replay on a restore. */
export const settings: JobSettings = { parallelism: 2 };

/**
 * Builds the demo job.
 *
 * @param context The job context of the command line.
 */
export default function liveClicks({ env }: JobContext): void {
  env.fromSource(
    new GeneratorSource<Click>({
      ratePerSecond: 20,
      partitions: 4,
      generate(index, partition, now) {
        if (partition === 3 && now % 60_000 < 20_000) return null;
        const lag = (index * 7_919 + partition * 131) % 1_000;
        return {
          page: PAGES[(index + partition) % PAGES.length],
          at: now - lag,
        };
      },
    }),
    WatermarkStrategy.forBoundedOutOfOrderness<Click>(1_000)
      .withTimestampAssigner((click) => click.at)
      .withIdleness(5_000),
    "clicks",
  )
    .keyBy((click) => click.page)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate<number, number, string>(
      {
        createAccumulator: () => 0,
        add: (_c, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (page, ctx, [n], out) =>
        out(`${new Date(ctx.window.start).toISOString()} ${page} ${n}`),
    )
    .sinkTo(new ConsoleSink<string>({ format: (line) => `window ${line}` }));
}
