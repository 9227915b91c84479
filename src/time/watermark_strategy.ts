/**
 * How a stream gets timestamps and watermarks: a generator factory, a
 * timestamp assigner and alignment parameters, combined by builders.
 *
 * @module
 */

import { AscendingTimestampsWatermarks } from "./ascending_timestamps.ts";
import { BoundedOutOfOrdernessWatermarks } from "./bounded_out_of_orderness.ts";
import type { WatermarkGeneratorContext } from "./generator_context.ts";
import { NoWatermarksGenerator } from "./no_watermarks.ts";
import {
  recordTimestampAssigner,
  type TimestampAssigner,
} from "./timestamp_assigner.ts";
import type { WatermarkGenerator } from "./watermark_generator.ts";
import { WatermarksWithIdleness } from "./watermarks_with_idleness.ts";
import {
  requireFunction,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requirePositiveInteger,
} from "./validate.ts";

/**
 * Creates one generator per subtask (or per source partition).
 *
 * @param context The clock, subtask index and metrics of the instance.
 * @returns A fresh generator; never share one between calls.
 */
export type WatermarkGeneratorFactory<T> = (
  context: WatermarkGeneratorContext,
) => WatermarkGenerator<T>;

/**
 * Watermark alignment parameters (FLIP-182): sources of one group pause
 * reading when they get more than `maxDriftMs` ahead of the slowest.
 */
export interface WatermarkAlignmentParams {
  /** The alignment group; `""` when alignment is off. */
  readonly group: string;
  /** The allowed drift in milliseconds; `Infinity` when alignment is off. */
  readonly maxDriftMs: number;
  /** How often sources report and the coordinator announces, in milliseconds; `0` when off. */
  readonly updateIntervalMs: number;
}

/** Options of the {@linkcode WatermarkStrategy} constructor; the builders set them. */
export interface WatermarkStrategyOptions<T> {
  /**
   * Extracts each record's timestamp.
   * @default {recordTimestampAssigner}
   */
  timestampAssigner?: TimestampAssigner<T>;
  /**
   * Alignment parameters.
   * @default {{ group: "", maxDriftMs: Infinity, updateIntervalMs: 0 }}
   */
  alignment?: WatermarkAlignmentParams;
  /**
   * The idle timeout added by `withIdleness`, in milliseconds, for diagnosis.
   * @default {null}
   */
  idleTimeoutMs?: number | null;
}

const NO_ALIGNMENT: WatermarkAlignmentParams = Object.freeze({
  group: "",
  maxDriftMs: Infinity,
  updateIntervalMs: 0,
});

/**
 * Describes how a stream gets event timestamps and watermarks (Flink's
 * `WatermarkStrategy`). Immutable: each builder returns a new strategy that
 * wraps this one and changes one thing.
 *
 * Factories: {@linkcode WatermarkStrategy.forBoundedOutOfOrderness},
 * {@linkcode WatermarkStrategy.forMonotonousTimestamps},
 * {@linkcode WatermarkStrategy.forGenerator},
 * {@linkcode WatermarkStrategy.noWatermarks}. Builders:
 * {@linkcode WatermarkStrategy.withTimestampAssigner},
 * {@linkcode WatermarkStrategy.withIdleness},
 * {@linkcode WatermarkStrategy.withWatermarkAlignment}. All arguments are
 * checked when the strategy is built, not when a job runs.
 *
 * @typeParam T The record type.
 *
 * @example Bounded out-of-orderness with a timestamp field and idleness
 * ```ts
 * import { ManualClock, WatermarkStrategy } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * type Click = { page: string; at: number };
 * const strategy = WatermarkStrategy.forBoundedOutOfOrderness<Click>(5_000)
 *   .withTimestampAssigner((click) => click.at)
 *   .withIdleness(60_000);
 * const assign = strategy.createTimestampAssigner();
 * assert.equal(assign({ page: "/", at: 42_000 }, -Infinity), 42_000);
 * const context = { clock: new ManualClock(), subtaskIndex: 0, metrics: { gauge() {} } };
 * assert.ok(strategy.createWatermarkGenerator(context));
 * ```
 */
export class WatermarkStrategy<T> {
  readonly #factory: WatermarkGeneratorFactory<T>;
  readonly #assigner: TimestampAssigner<T>;
  readonly #alignment: WatermarkAlignmentParams;
  readonly #idleTimeoutMs: number | null;

  /**
   * Creates a strategy from a generator factory; prefer the static factories.
   *
   * @param factory Creates the generator of each subtask.
   * @param options Assigner, alignment and idleness, as the builders set them.
   * @throws {TypeError} If `factory` or the assigner is not a function.
   */
  constructor(
    factory: WatermarkGeneratorFactory<T>,
    options: WatermarkStrategyOptions<T> = {},
  ) {
    const action = "create WatermarkStrategy";
    this.#factory = requireFunction(factory, { action, param: "factory" });
    this.#assigner = requireFunction(
      options.timestampAssigner ?? recordTimestampAssigner,
      { action, param: "timestampAssigner" },
    );
    this.#alignment = options.alignment ?? NO_ALIGNMENT;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? null;
  }

  // --- Factories ---

  /**
   * Watermarks that trail the highest timestamp by a fixed bound
   * ({@linkcode BoundedOutOfOrdernessWatermarks}).
   *
   * @param maxOutOfOrdernessMs How late a record may be, in milliseconds.
   * @returns The strategy.
   * @throws {RangeError} If the bound is negative, fractional or not finite.
   */
  static forBoundedOutOfOrderness<T>(
    maxOutOfOrdernessMs: number,
  ): WatermarkStrategy<T> {
    requireNonNegativeInteger(maxOutOfOrdernessMs, {
      action: "create WatermarkStrategy.forBoundedOutOfOrderness",
      param: "maxOutOfOrdernessMs",
    });
    return new WatermarkStrategy<T>(function boundedOutOfOrderness() {
      return new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrdernessMs);
    });
  }

  /**
   * Watermarks one below the highest timestamp, for streams whose timestamps
   * never decrease ({@linkcode AscendingTimestampsWatermarks}).
   *
   * @returns The strategy.
   */
  static forMonotonousTimestamps<T>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(function ascendingTimestamps() {
      return new AscendingTimestampsWatermarks<T>();
    });
  }

  /**
   * Uses the given factory as-is: for custom, punctuated, time-lag or
   * adaptive generators.
   *
   * @param factory Creates one generator per subtask from its context.
   * @returns The strategy.
   * @throws {TypeError} If `factory` is not a function.
   */
  static forGenerator<T>(
    factory: WatermarkGeneratorFactory<T>,
  ): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(factory);
  }

  /**
   * No watermarks at all ({@linkcode NoWatermarksGenerator}): event time
   * advances only at the end of input.
   *
   * @returns The strategy.
   */
  static noWatermarks<T>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(function noWatermarks() {
      return new NoWatermarksGenerator<T>();
    });
  }

  // --- What a subtask calls ---

  /**
   * Creates the generator for one subtask or source partition.
   *
   * @param context The instance's clock, subtask index and metrics.
   * @returns A fresh generator.
   */
  createWatermarkGenerator(
    context: WatermarkGeneratorContext,
  ): WatermarkGenerator<T> {
    return this.#factory(context);
  }

  /**
   * Returns the timestamp assigner.
   *
   * @returns The assigner set by `withTimestampAssigner`, or {@linkcode recordTimestampAssigner}.
   */
  createTimestampAssigner(): TimestampAssigner<T> {
    return this.#assigner;
  }

  /** The alignment parameters; `maxDriftMs` is `Infinity` when alignment is off. */
  get alignmentParameters(): WatermarkAlignmentParams {
    return this.#alignment;
  }

  /** The idle timeout set by `withIdleness` (the last one), or `null`. */
  get idleTimeoutMs(): number | null {
    return this.#idleTimeoutMs;
  }

  // --- Builders ---

  /**
   * Returns a strategy that takes each record's timestamp from `assigner`.
   *
   * @param assigner Returns the event timestamp of a record, in epoch milliseconds.
   * @returns A new strategy; generator, idleness and alignment are unchanged.
   * @throws {TypeError} If `assigner` is not a function.
   */
  withTimestampAssigner(assigner: TimestampAssigner<T>): WatermarkStrategy<T> {
    requireFunction(assigner, {
      action: "set the timestamp assigner of WatermarkStrategy",
      param: "assigner",
    });
    return new WatermarkStrategy(this.#factory, {
      timestampAssigner: assigner,
      alignment: this.#alignment,
      idleTimeoutMs: this.#idleTimeoutMs,
    });
  }

  /**
   * Returns a strategy whose generators mark the stream idle after
   * `idleTimeoutMs` without records ({@linkcode WatermarksWithIdleness}, on
   * the context's input-activity clock).
   *
   * @param idleTimeoutMs Quiet time before the stream counts as idle, in milliseconds.
   * @returns A new strategy; assigner and alignment are unchanged.
   * @throws {RangeError} If `idleTimeoutMs` is zero, negative or not a safe integer.
   */
  withIdleness(idleTimeoutMs: number): WatermarkStrategy<T> {
    requirePositiveInteger(idleTimeoutMs, {
      action: "set idleness of WatermarkStrategy",
      param: "idleTimeoutMs",
    });
    const base = this.#factory;
    return new WatermarkStrategy<T>(
      function withIdleness(context) {
        return new WatermarksWithIdleness(
          base(context),
          idleTimeoutMs,
          context.clock,
        );
      },
      {
        timestampAssigner: this.#assigner,
        alignment: this.#alignment,
        idleTimeoutMs,
      },
    );
  }

  /**
   * Returns a strategy whose sources take part in watermark alignment: a
   * source subtask more than `maxDriftMs` ahead of the slowest of its group
   * stops reading until the group catches up (FLIP-182). Only sources created
   * with `env.fromSource` align; `assignTimestampsAndWatermarks` ignores it.
   *
   * @param group The alignment group shared by the sources that align.
   * @param maxDriftMs How far ahead of the group's minimum a source may run, in milliseconds.
   * @param updateIntervalMs How often watermarks are reported and limits announced.
   * @default updateIntervalMs 1000
   * @returns A new strategy; generator and assigner are unchanged.
   * @throws {TypeError} If `group` is not a non-empty string.
   * @throws {RangeError} If `maxDriftMs` is negative or `updateIntervalMs` not positive.
   */
  withWatermarkAlignment(
    group: string,
    maxDriftMs: number,
    updateIntervalMs = 1_000,
  ): WatermarkStrategy<T> {
    const action = "set watermark alignment of WatermarkStrategy";
    const alignment = Object.freeze({
      group: requireNonEmptyString(group, { action, param: "group" }),
      maxDriftMs: requireNonNegativeInteger(maxDriftMs, {
        action,
        param: "maxDriftMs",
      }),
      updateIntervalMs: requirePositiveInteger(updateIntervalMs, {
        action,
        param: "updateIntervalMs",
      }),
    });
    return new WatermarkStrategy(this.#factory, {
      timestampAssigner: this.#assigner,
      alignment,
      idleTimeoutMs: this.#idleTimeoutMs,
    });
  }
}

/**
 * Whether alignment is on for these parameters (Flink's `isEnabled()`).
 *
 * @param params Alignment parameters of a strategy.
 * @returns `true` when `maxDriftMs` is finite.
 */
export function isAlignmentEnabled(params: WatermarkAlignmentParams): boolean {
  return params.maxDriftMs < Infinity;
}
