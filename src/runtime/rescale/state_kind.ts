/**
 * The kind of an operator's state: how a rescale splits it over another
 * parallelism, and whether a restore may drop it. Each operator class
 * declares its kind (a static `stateKind`), the API copies it into the job
 * graph's operator descriptors, and the rescale pipeline reads it there;
 * nothing is guessed from the state's shape.
 *
 * @module
 */

/**
 * How an operator's state is split over another parallelism:
 *
 * - `"stateless"`: no state (`null`); map, filter, flat map, pass-through.
 * - `"windows"`: a window operator's windows, by key group.
 * - `"keyed"`: a keyed process operator's keys and timers, by key group.
 * - `"watermark"`: a process operator's watermark; every subtask takes the
 *   lowest.
 * - `"generator"`: a timestamps and watermarks operator's generator, which
 *   starts afresh, and its emitter, which keeps the lowest watermark.
 * - `"transactions"`: a two-phase sink writer's pending transactions (a
 *   list, or an object whose `transactions` is one); all go to subtask 0.
 * - `"source"`: a source's read positions, by partition.
 * - `"pinned"`: state that belongs to its subtask (an async operator's
 *   records in flight): restored only at the same parallelism.
 */
export type StateKind =
  | "stateless"
  | "windows"
  | "keyed"
  | "watermark"
  | "generator"
  | "transactions"
  | "source"
  | "pinned";

/**
 * Whether dropping state of this kind loses nothing but event-time
 * progress, which the records that follow rebuild: no state, a process
 * operator's watermark, or a timestamps and watermarks operator's generator
 * and emitter.
 *
 * @param kind The operator's state kind; `undefined` if it declares none.
 * @returns `true` if state of this kind may be dropped without losing records.
 */
export function onlyEventTime(kind: StateKind | undefined): boolean {
  return kind === "stateless" || kind === "watermark" || kind === "generator";
}

/**
 * The state kind of each operator name the API records in a checkpoint's
 * fingerprint (`state.operator`): an operator of the checkpoint that the
 * restoring job no longer has can be asked nothing, so its kind comes from
 * that record. Fingerprints stay as they were on disk.
 */
const RECORDED_KINDS: Readonly<Record<string, StateKind>> = {
  source: "source",
  map: "stateless",
  filter: "stateless",
  flatMap: "stateless",
  process: "watermark",
  timestampsAndWatermarks: "generator",
  keyedProcess: "keyed",
  window: "windows",
  sink: "transactions",
  async: "pinned",
};

/**
 * The state kind of an operator recorded in a checkpoint, from the meaning
 * its fingerprint holds (for operators the restoring job no longer has).
 *
 * @param meaning The operator's recorded `state`, e.g. `{ operator: "process" }`.
 * @returns Its state kind, or `undefined` for an operator name the API
 * does not write (hand-built graphs).
 */
export function recordedStateKind(
  meaning: Readonly<Record<string, unknown>>,
): StateKind | undefined {
  const name = meaning.operator;
  return typeof name === "string" && Object.hasOwn(RECORDED_KINDS, name)
    ? RECORDED_KINDS[name]
    : undefined;
}
