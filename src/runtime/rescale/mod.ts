/**
 * Rescale and restore: the one pipeline from a completed checkpoint's
 * snapshots to the state of each new subtask. Snapshots are loaded and
 * checked once (`load.ts`); operators are matched by uid or positional id
 * (`operator_assignment.ts`); each operator's state is split as the kind
 * it declares says (`state_kind.ts`, `redistribute.ts`, `keyed_state.ts`):
 * keyed state by key group, sources by partition (`source_snapshots.ts`),
 * the rest of a chain by `subtask_snapshots.ts`. `restore_plan.ts` puts it
 * together for the runtimes.
 *
 * @module
 */

export type { StateKind } from "./state_kind.ts";
export type { CheckpointSnapshots } from "./load.ts";
export {
  type RescaleOptions,
  rescaleSubtaskSnapshots,
} from "./subtask_snapshots.ts";
export { rescaleSourceSnapshots } from "./source_snapshots.ts";
export {
  assignOperatorState,
  type StateAssignmentOptions,
} from "./operator_assignment.ts";
export { type RestorePlanOptions, snapshotsToRestore } from "./restore_plan.ts";
