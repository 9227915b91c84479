/**
 * What holds a job's event time back, read from its live state: the
 * detection shared by `explain` (why one window has not fired) and `health`
 * (what is wrong with a job), following the causes users most often fight: a
 * silent partition, back-pressure, timestamps in seconds, late data.
 *
 * Every detector reads the plan, the subtasks' current status, their input
 * channels and the sampled history; none changes the job. Each names the
 * operator (and subtask) to look at, the evidence it saw, and the fix.
 *
 * @module
 */

import { detectBackPressure } from "./back_pressure.ts";
import type {
  DiagnosableJob,
  Diagnosis,
  DiagnosisWindows,
} from "./diagnosis.ts";
import { sceneOf } from "./scene.ts";
import { detectSilentGenerators } from "./silent_generators.ts";
import { detectSilentPartitions } from "./silent_partitions.ts";
import { stuckActors } from "./stuck_actors.ts";
import { detectSeconds } from "./timestamps_in_seconds.ts";
import { detectWindowTrends } from "./window_trends.ts";

/**
 * Every cause the detectors find in the job's live state, in the order
 * silent partitions, timestamps in seconds, back-pressure, generators that
 * never emit, windows that never fire, state growth; none for a healthy
 * job. See `jobHealth` in `health.ts` for what each detector requires.
 *
 * Cost: one status read, the input channels of every non-source subtask,
 * and one pass over the samples of the last `lookbackMs`.
 *
 * @param job The job.
 * @param now The current processing time, epoch milliseconds.
 * @param windows How long a stall and a trend must last.
 * @returns The diagnoses.
 */
export function diagnose(
  job: DiagnosableJob,
  now: number,
  windows: DiagnosisWindows,
): Diagnosis[] {
  const scene = sceneOf(job, now, windows);
  const found: Diagnosis[] = [];
  detectSilentPartitions(scene, found);
  detectSeconds(scene, found);
  detectBackPressure(scene, found);
  detectSilentGenerators(scene, found);
  detectWindowTrends(scene, found);
  found.push(...stuckActors(scene.statuses.values(), now));
  return found;
}
