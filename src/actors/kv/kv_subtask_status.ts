/**
 * {@linkcode KvSubtaskStatus}: what the KV runtime reports about one
 * subtask, as any process of the job reads it.
 *
 * @module
 */

import type { InputChannelStatus } from "../../runtime/subtask.ts";
import type { SubtaskStatus } from "../actor_runtime.ts";

/** A subtask's status in the KV runtime, with its input channels. */
export interface KvSubtaskStatus extends SubtaskStatus {
  /** Each input channel as the subtask's valve saw it at its last step. */
  readonly inputChannels: readonly InputChannelStatus[];
}
