/**
 * The parameters of the Nexmark generator, with Beam's defaults except for
 * the rate.
 *
 * @module
 */

/** Beam's `BASE_TIME`: 2015-07-15T00:00:00Z in epoch milliseconds. */
export const BASE_TIME = 1_436_918_400_000;

/**
 * The generator's parameters, as accepted by {@linkcode nexmarkConfig} (every
 * field optional) and as returned by it (every field set and checked).
 */
export interface NexmarkConfig {
  /**
   * Events to generate over all sub-generators.
   * @default {100_000} (Beam)
   */
  readonly numEvents: number;
  /**
   * Event-time rate over all generators, in events per second of event time:
   * it sets the gap between timestamps, not how fast events are produced.
   * @default {10_000_000} (Flink's V1 runs; Beam's default is 10_000)
   */
  readonly firstEventRate: number;
  /**
   * Parallel timelines the rate is spread over: each generator's gap between
   * events is `numEventGenerators` times the overall gap.
   * @default {1}
   */
  readonly numEventGenerators: number;
  /**
   * Event time of the first event, in epoch milliseconds.
   * @default {1_436_918_400_000} Beam's `BASE_TIME`
   */
  readonly baseTime: number;
  /**
   * A bid goes to the current hot auction unless `nextInt(hotAuctionRatio)`
   * draws 0.
   * @default {2}
   */
  readonly hotAuctionRatio: number;
  /**
   * An auction is by the current hot seller unless `nextInt(hotSellersRatio)`
   * draws 0.
   * @default {4}
   */
  readonly hotSellersRatio: number;
  /**
   * A bid is by the current hot bidder unless `nextInt(hotBiddersRatio)`
   * draws 0.
   * @default {4}
   */
  readonly hotBiddersRatio: number;
  /**
   * Auctions a cold bid may pick from, counting back from the newest; also
   * sets auction lengths.
   * @default {100}
   */
  readonly numInFlightAuctions: number;
  /**
   * People a cold bid or auction may pick from, counting back from the newest.
   * @default {1000}
   */
  readonly numActivePeople: number;
  /**
   * Events per out-of-order group; 1 keeps event time in order.
   * @default {1}
   */
  readonly outOfOrderGroupSize: number;
  /**
   * Id of the first event; also the first seed.
   * @default {0}
   */
  readonly firstEventId: number;
  /**
   * Average size a person is padded to with `extra`, in bytes.
   * @default {200}
   */
  readonly avgPersonByteSize: number;
  /**
   * Average size an auction is padded to with `extra`, in bytes.
   * @default {500}
   */
  readonly avgAuctionByteSize: number;
  /**
   * Average size a bid is padded to with `extra`, in bytes.
   * @default {100}
   */
  readonly avgBidByteSize: number;
}

const DEFAULTS: NexmarkConfig = {
  numEvents: 100_000,
  firstEventRate: 10_000_000,
  numEventGenerators: 1,
  baseTime: BASE_TIME,
  hotAuctionRatio: 2,
  hotSellersRatio: 4,
  hotBiddersRatio: 4,
  numInFlightAuctions: 100,
  numActivePeople: 1000,
  outOfOrderGroupSize: 1,
  firstEventId: 0,
  avgPersonByteSize: 200,
  avgAuctionByteSize: 500,
  avgBidByteSize: 100,
};

// Bounds handed to java.util.Random.nextInt must stay below 2^31 - 1, where
// Beam's LongGenerator would switch to nextLong; the +10/+11 are Beam's id
// leads added to numActivePeople and numInFlightAuctions.
const MAX_INT = 0x7fffffff;
const LIMITS: Partial<Record<keyof NexmarkConfig, number>> = {
  firstEventRate: 1_000_000_000,
  hotAuctionRatio: MAX_INT,
  hotSellersRatio: MAX_INT,
  hotBiddersRatio: MAX_INT,
  numInFlightAuctions: MAX_INT - 12,
  numActivePeople: MAX_INT - 11,
};

/**
 * The gap between two events of one generator, in nanoseconds: Beam's
 * `((1e6 + rate / 2) / rate) * numEventGenerators` with 1e9 for 1e6.
 *
 * Beam works in whole microseconds, which round to 0 above 2 M events/s: at
 * the default 10 M/s every event would be at `baseTime`. Nanoseconds give
 * 100 ns there, and exactly Beam's timestamps whenever the rate divides 1e6
 * (e.g. Beam's default 10 000/s: 100 µs).
 *
 * @param config A checked config.
 * @returns A positive integer.
 */
export function interEventDelayNs(config: NexmarkConfig): number {
  const rate = config.firstEventRate;
  return Math.floor((1e9 + Math.floor(rate / 2)) / rate) *
    config.numEventGenerators;
}

/**
 * Events between an auction and the one `numInFlightAuctions` auctions
 * later (Beam's `numEventsForAuctions`, 1666 by default): sets how long
 * auctions run.
 *
 * @param config A checked config.
 * @returns A non-negative integer.
 */
export function auctionHorizonEvents(config: NexmarkConfig): number {
  return Math.floor(config.numInFlightAuctions * 50 / 3);
}

/**
 * Fills in defaults and checks a generator config, once, so the generator's
 * hot path can trust it.
 *
 * Every field must be a safe integer; `baseTime`, `firstEventId` may be 0
 * (and `baseTime` negative), the rest must be positive. Beyond that,
 * `firstEventRate` is at most 1e9 (a 1 ns gap), ratios and pools stay below
 * 2^31 (Java `int` bounds), and timestamps and ids must stay exact: the last
 * `(event number + auction horizon) * delayNs` and
 * `firstEventId + numEvents` must be safe integers.
 *
 * @param options Fields to override; the rest take their defaults.
 * @returns A frozen, complete config.
 * @throws {RangeError} Naming the field and its value when a field is a
 *   number but not an integer, or out of range.
 * @throws {TypeError} Naming the field and its value when a field is not a
 *   number.
 *
 * @example Beam's rate with the other defaults
 * ```ts
 * import { nexmarkConfig } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const config = nexmarkConfig({ firstEventRate: 10_000 });
 * assert.equal(config.numActivePeople, 1000);
 * assert.throws(() => nexmarkConfig({ numEvents: -1 }), /'numEvents'/);
 * ```
 */
export function nexmarkConfig(
  options: Partial<NexmarkConfig> = {},
): NexmarkConfig {
  const config: Record<keyof NexmarkConfig, number> = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof NexmarkConfig)[]) {
    const value: unknown = options[key] ?? DEFAULTS[key];
    const mayBeZero = key === "firstEventId";
    const mayBeNegative = key === "baseTime";
    const limit = LIMITS[key] ?? Number.MAX_SAFE_INTEGER;
    if (
      typeof value !== "number" || !Number.isSafeInteger(value) ||
      (!mayBeNegative && (value < 0 || (value === 0 && !mayBeZero))) ||
      value > limit
    ) {
      const rule = mayBeNegative
        ? "a safe integer"
        : mayBeZero
        ? "a non-negative safe integer"
        : limit < Number.MAX_SAFE_INTEGER
        ? `a positive integer of at most ${limit}`
        : "a positive safe integer";
      fail(key, rule, value);
    }
    config[key] = value;
  }
  const delayNs = interEventDelayNs(config);
  // The largest event number timed: the last one, shuffled up to a group
  // further, plus an auction's horizon.
  const lastNumber = config.numEvents + config.outOfOrderGroupSize +
    auctionHorizonEvents(config);
  if (lastNumber * delayNs > Number.MAX_SAFE_INTEGER) {
    fail(
      "numEvents",
      `at most ${
        Math.floor(Number.MAX_SAFE_INTEGER / delayNs) -
        config.outOfOrderGroupSize - auctionHorizonEvents(config)
      } at this rate (timestamps must stay exact)`,
      config.numEvents,
    );
  }
  // Auction lengths are drawn with nextInt(2 * horizonMs).
  if (2 * Math.ceil(auctionHorizonEvents(config) * delayNs / 1e6) >= MAX_INT) {
    fail(
      "firstEventRate",
      "high enough for auctions to last under 2^31 ms",
      config.firstEventRate,
    );
  }
  if (config.firstEventId + config.numEvents > Number.MAX_SAFE_INTEGER) {
    fail(
      "firstEventId",
      "at most 2^53 - 1 - numEvents",
      config.firstEventId,
    );
  }
  return Object.freeze(config);
}

// A number out of range is a RangeError, anything else a TypeError.
function fail(key: string, rule: string, value: unknown): never {
  const message =
    `Cannot configure the Nexmark generator as '${key}' must be ${rule}: current value is ${
      typeof value === "string" ? JSON.stringify(value) : String(value)
    }`;
  throw typeof value === "number"
    ? new RangeError(message)
    : new TypeError(message);
}
