// How the conformance suites drive a runtime: through ActorRuntime, the
// contract both runtimes implement. Each runtime's conformance_test.ts
// gives only what differs (how it is created for a job, and what one step
// of work is); running a job and crashing it after checkpoints are written
// here once.

import type { ManualClock } from "../../src/time/clock.ts";
import type { CompletedCheckpoint } from "../../src/actors/checkpoint.ts";
import type { ActorRuntime } from "../../src/actors/actor_runtime.ts";
import type { StreamEnvironment } from "../../src/api/stream_environment.ts";

/** A runtime as the suites drive it. */
export interface RuntimeUnderTest {
  /** Its name, in test names. */
  readonly name: string;
  /**
   * Runs the job to its end, from `restoreFrom` if given (dropping state of
   * operators the job no longer has only with `allowNonRestoredState`).
   */
  run(
    env: StreamEnvironment,
    clock: ManualClock,
    restoreFrom?: CompletedCheckpoint,
    options?: { allowNonRestoredState?: boolean },
  ): Promise<void>;
  /**
   * Runs until `checkpoints` checkpoints are saved, then drops everything
   * the runtime holds in memory (a crash); stored checkpoints survive.
   */
  crashAfterCheckpoints(
    env: StreamEnvironment,
    clock: ManualClock,
    checkpoints: number,
  ): Promise<void>;
}

/** A runtime created for one run of a job. */
export interface RuntimeHandle {
  /** The runtime, driven through the contract. */
  readonly runtime: ActorRuntime;
  /**
   * Does one step of work (a test-specific helper: `LocalRuntime.step`
   * then `flushCheckpoints`, or `KvRuntime.tick`); whether any was done.
   */
  step(): Promise<boolean>;
}

/** What differs between the runtimes under the suites. */
export interface RuntimeFactory {
  /** Its name, in test names. */
  readonly name: string;
  /**
   * Creates the runtime of `env`'s job (from `restoreFrom` if given), hands
   * it to `use`, and releases what it holds once `use` settles (the KV
   * runtime's database: a fresh one per run, as a new deployment's).
   */
  open<R>(
    env: StreamEnvironment,
    restoreFrom: CompletedCheckpoint | undefined,
    options: { allowNonRestoredState?: boolean },
    use: (handle: RuntimeHandle) => Promise<R>,
  ): Promise<R>;
}

/** The runtime of `factory` as the suites drive it. */
export function underTest(factory: RuntimeFactory): RuntimeUnderTest {
  return {
    name: factory.name,
    run(env, _clock, restoreFrom, options = {}) {
      return factory.open(
        env,
        restoreFrom,
        options,
        async ({ runtime }) => {
          await runtime.run();
        },
      );
    },
    crashAfterCheckpoints(env, clock, checkpoints) {
      return factory.open(env, undefined, {}, async ({ runtime, step }) => {
        while ((runtime.latestCheckpoint?.id ?? 0) < checkpoints) {
          if (await step()) continue;
          if (runtime.finished) {
            throw new Error("the job ended before the checkpoint");
          }
          clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
        }
        // A crash: the runtime is dropped as it is (the KV runtime's leases
        // held), nothing released but its database.
      });
    },
  };
}
