/**
 * Merging the watermarks of many splits of one source subtask into the
 * subtask's single watermark output, as Flink's `WatermarkOutputMultiplexer`
 * does, with the 2025–2026 fixes (FLINK-38454, FLINK-39586, FLINK-40504).
 *
 * @module
 */

import {
  describeValue,
  requireFunction,
  requireNonEmptyString,
  requireWatermark,
} from "./validate.ts";
import { CombinedWatermarkStatus } from "./combined_watermark_status.ts";
import { PartialWatermark } from "./partial_watermark.ts";
import type { WatermarkOutput } from "./watermark_output.ts";

/**
 * A {@linkcode WatermarkOutputMultiplexer}'s state as plain data, for
 * checkpoints that keep event time (`watermarkRecovery: "persist"`).
 */
export interface WatermarkOutputMultiplexerSnapshot {
  /** Each registered output's watermark and idle flag, in registration order. */
  outputs: { id: string; watermark: number; idle: boolean }[];
  /** The combined watermark as of the last recombination. */
  combinedWatermark: number;
  /** Whether every output was idle at the last recombination. */
  combinedIdle: boolean;
  /** Whether the underlying output was last told it is idle. */
  underlyingIdle: boolean;
}

/** One registered output: its partial and the two cached views on it. */
interface Registered {
  partial: PartialWatermark;
  immediate: WatermarkOutput;
  deferred: WatermarkOutput;
}

/**
 * Combines the watermark and idleness updates of several outputs (one per
 * split or partition) into one stream of updates to an underlying
 * {@linkcode WatermarkOutput}.
 *
 * Each output is registered under an id and can be written through two views,
 * which share its state:
 *
 * - the *immediate* output recombines at once when the output's watermark
 *   moves past the combined one, when it goes idle or active, or when it speaks
 *   again after being idle;
 * - the *deferred* output only records; nothing is combined until
 *   {@linkcode WatermarkOutputMultiplexer.onPeriodicEmit}.
 *
 * A source wires per-record (punctuated) watermarks to the immediate output and
 * periodic ones to the deferred output, runs every split's periodic emit and
 * then calls `onPeriodicEmit()` once.
 *
 * Combining follows {@linkcode CombinedWatermarkStatus} with the minimum: the
 * slowest active output holds the watermark back; when all outputs are idle
 * the maximum of all of them is flushed (FLINK-38454). What reaches the
 * underlying output:
 *
 * - `emitWatermark(w)` only when the combined watermark strictly advances, so
 *   never `-Infinity`, never twice the same value, never a regression;
 * - `markIdle()` once when the combined status becomes idle (all outputs idle,
 *   or none left after the watermark advanced: FLINK-39586), after the
 *   watermark flushed by the same update;
 * - `markActive()` once when it stops being idle (FLINK-40504), before any
 *   watermark of the same update.
 *
 * With no outputs, or only outputs that never reported, nothing is emitted.
 * Unregistering an output changes nothing until the next recombination.
 *
 * Cost: a recombination scans all outputs. Not safe for concurrent use.
 *
 * @example Two splits, then both idle
 * ```ts
 * import { WatermarkOutputMultiplexer } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const seen: unknown[] = [];
 * const multiplexer = new WatermarkOutputMultiplexer({
 *   emitWatermark: (w) => void seen.push(w),
 *   markIdle: () => void seen.push("idle"),
 *   markActive: () => void seen.push("active"),
 * });
 * for (const id of ["a", "b"]) multiplexer.registerNewOutput(id);
 * const [a, b] = ["a", "b"].map((id) => multiplexer.getImmediateOutput(id));
 * a.emitWatermark(5);
 * b.emitWatermark(2);
 * for (const output of [a, b]) output.markIdle();
 * assert.deepEqual(seen, [2, 5, "idle"]);
 * ```
 */
export class WatermarkOutputMultiplexer {
  readonly #underlying: WatermarkOutput;
  readonly #status = new CombinedWatermarkStatus();
  readonly #outputs = new Map<string, Registered>();
  /** What the underlying output was last told: it starts active. */
  #underlyingIdle = false;
  /** Bound once so that outputs can trigger a recombination without allocating. */
  readonly #recombine = (): void => this.#updateCombinedWatermark();

  /**
   * Creates a multiplexer with no outputs, which emits nothing until one is
   * registered and reports.
   *
   * @param underlying Receives the combined watermark and status changes.
   * @throws {TypeError} If `underlying` lacks `emitWatermark`, `markIdle` or
   *   `markActive`.
   */
  constructor(underlying: WatermarkOutput) {
    const action = "create WatermarkOutputMultiplexer";
    for (const method of ["emitWatermark", "markIdle", "markActive"] as const) {
      requireFunction(underlying?.[method], {
        action,
        param: `underlying.${method}`,
      });
    }
    this.#underlying = underlying;
  }

  /**
   * Registers an output, at `-Infinity` and active. It holds the combined
   * watermark at its current value until it reports a higher watermark or
   * goes idle.
   *
   * @param id The output's id, e.g. a split id.
   * @throws {TypeError} If `id` is not a string.
   * @throws {RangeError} If `id` is empty or an output is already registered
   *   under it.
   */
  registerNewOutput(id: string): void {
    const action = "register output";
    requireNonEmptyString(id, { action, param: "id" });
    if (this.#outputs.has(id)) {
      throw new RangeError(
        `Cannot ${action} as 'id' must not be registered already: current value is ${
          describeValue(id)
        }`,
      );
    }
    const partial = new PartialWatermark();
    this.#status.add(partial);
    this.#outputs.set(id, {
      partial,
      immediate: new ImmediateOutput(partial, this.#status, this.#recombine),
      deferred: new DeferredOutput(partial),
    });
  }

  /**
   * Removes an output. Nothing is recombined or emitted now: a removed slow
   * output lets the watermark advance at the next update, and a removed fast
   * one never makes it go back. Views obtained earlier keep accepting calls
   * but no longer count.
   *
   * @param id The output's id.
   * @returns `true` if an output was registered under `id`.
   */
  unregisterOutput(id: string): boolean {
    const registered = this.#outputs.get(id);
    if (registered === undefined) return false;
    this.#outputs.delete(id);
    this.#status.remove(registered.partial);
    return true;
  }

  /**
   * Returns the immediate view of an output: the same object on every call.
   *
   * @param id The output's id.
   * @returns An output whose updates may reach the underlying output at once.
   * @throws {RangeError} If no output is registered under `id`.
   */
  getImmediateOutput(id: string): WatermarkOutput {
    return this.#lookup(id, "get immediate output").immediate;
  }

  /**
   * Returns the deferred view of an output: the same object on every call.
   *
   * @param id The output's id.
   * @returns An output whose updates wait for `onPeriodicEmit()`.
   * @throws {RangeError} If no output is registered under `id`.
   */
  getDeferredOutput(id: string): WatermarkOutput {
    return this.#lookup(id, "get deferred output").deferred;
  }

  /** Combines all outputs, deferred updates included, and emits what changed. */
  onPeriodicEmit(): void {
    this.#updateCombinedWatermark();
  }

  /**
   * Returns every registered output's watermark and idle flag, the
   * combination and what the underlying output was last told. Unregistered
   * outputs are not in it.
   *
   * @returns Plain data, a fresh copy.
   */
  snapshotState(): WatermarkOutputMultiplexerSnapshot {
    const outputs: WatermarkOutputMultiplexerSnapshot["outputs"] = [];
    for (const [id, { partial }] of this.#outputs) {
      outputs.push({
        id,
        watermark: partial.getWatermark(),
        idle: partial.isIdle(),
      });
    }
    return {
      outputs,
      combinedWatermark: this.#status.getCombinedWatermark(),
      combinedIdle: this.#status.isIdle(),
      underlyingIdle: this.#underlyingIdle,
    };
  }

  /**
   * Puts back a snapshot, emitting nothing: afterwards the multiplexer
   * combines and emits exactly as the one the snapshot was taken from. Call
   * it on a multiplexer whose outputs have not reported yet (a restore), and
   * register (or unregister) the same outputs first: an output registered
   * here but absent from the snapshot keeps its fresh state.
   *
   * @param state What `snapshotState()` returned.
   * @throws {RangeError} If the snapshot names an output that is not
   *   registered, or holds a watermark that is not a safe integer or an
   *   infinity.
   * @throws {TypeError} If the snapshot is malformed.
   */
  restoreState(state: WatermarkOutputMultiplexerSnapshot): void {
    const action = "restore WatermarkOutputMultiplexer";
    if (!Array.isArray(state?.outputs)) {
      throw new TypeError(
        `Cannot ${action} as 'state.outputs' must be an array: current value is ${
          describeValue(state?.outputs)
        }`,
      );
    }
    if (typeof state.underlyingIdle !== "boolean") {
      throw new TypeError(
        `Cannot ${action} as 'state.underlyingIdle' must be a boolean: current value is ${
          describeValue(state.underlyingIdle)
        }`,
      );
    }
    const partials = state.outputs.map((output, i) => {
      const registered = this.#outputs.get(output?.id);
      if (registered === undefined) {
        throw new RangeError(
          `Cannot ${action} as 'state.outputs[${i}].id' must be registered: current value is ${
            describeValue(output?.id)
          }`,
        );
      }
      requireWatermark(output.watermark, {
        action,
        param: `state.outputs[${i}].watermark`,
      });
      return registered.partial;
    });
    this.#status.restore(state.combinedWatermark, state.combinedIdle);
    partials.forEach((partial, i) => {
      partial.setWatermark(state.outputs[i].watermark);
      partial.setIdle(state.outputs[i].idle === true);
    });
    this.#underlyingIdle = state.underlyingIdle;
  }

  #lookup(id: string, action: string): Registered {
    const registered = this.#outputs.get(id);
    if (registered === undefined) {
      throw new RangeError(
        `Cannot ${action} as 'id' must be registered: current value is ${
          describeValue(id)
        }`,
      );
    }
    return registered;
  }

  #updateCombinedWatermark(): void {
    const advanced = this.#status.updateCombinedWatermark();
    const idle = this.#status.isIdle();
    // FLINK-40504: going active is said explicitly. Classic Flink had no path
    // to markActive, so an idle source whose splits resumed below the flushed
    // watermark stayed idle downstream until its watermark passed it.
    if (!idle && this.#underlyingIdle) {
      this.#underlyingIdle = false;
      this.#underlying.markActive();
    }
    if (advanced) {
      this.#underlying.emitWatermark(this.#status.getCombinedWatermark());
    }
    // Watermark first, then idle, so the flushed maximum (FLINK-38454) is
    // delivered while the output still counts. Once per transition: classic
    // Flink repeated markIdle on every update while idle.
    if (idle && !this.#underlyingIdle) {
      this.#underlyingIdle = true;
      this.#underlying.markIdle();
    }
  }
}

/** Recombines at once when an update can change the combined status. */
class ImmediateOutput implements WatermarkOutput {
  readonly #partial: PartialWatermark;
  readonly #status: CombinedWatermarkStatus;
  readonly #recombine: () => void;

  constructor(
    partial: PartialWatermark,
    status: CombinedWatermarkStatus,
    recombine: () => void,
  ) {
    this.#partial = partial;
    this.#status = status;
    this.#recombine = recombine;
  }

  emitWatermark(watermark: number): void {
    const wasIdle = this.#partial.isIdle();
    const advanced = this.#partial.setWatermark(watermark);
    // Only a watermark past the combined one can move it (the common, cheap
    // case skips the scan). An output that was idle and speaks again may end
    // an all-idle period even below the combined watermark (FLINK-40504).
    if (
      (advanced && watermark > this.#status.getCombinedWatermark()) || wasIdle
    ) {
      this.#recombine();
    }
  }

  markIdle(): void {
    this.#partial.setIdle(true);
    // Always recombine: this output may have been the one holding the minimum.
    this.#recombine();
  }

  markActive(): void {
    this.#partial.setIdle(false);
    // Always recombine: this output counts again and may hold the minimum.
    this.#recombine();
  }
}

/** Records only; `onPeriodicEmit()` combines. */
class DeferredOutput implements WatermarkOutput {
  readonly #partial: PartialWatermark;

  constructor(partial: PartialWatermark) {
    this.#partial = partial;
  }

  emitWatermark(watermark: number): void {
    this.#partial.setWatermark(watermark);
  }

  markIdle(): void {
    this.#partial.setIdle(true);
  }

  markActive(): void {
    this.#partial.setIdle(false);
  }
}
