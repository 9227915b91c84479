// The loop of a KV-runtime worker: rounds, one at a time (the loop itself,
// a cron tick and `POST /tick` may ask for one at once), each renewing and
// taking leases, coordinating checkpoints and stepping every owned actor
// that can make progress; between rounds it waits for the earliest work
// (or moves a simulated clock), and on stop it gives its leases up.

import { RecordFailedError } from "../../runtime/dead_letter.ts";
import { AtomicConflictError } from "./kv_storage.ts";
import { startJob } from "./_job_start.ts";
import { stepActor } from "./_actor_step.ts";
import { drop, fail, rebalance, releaseAll } from "./_ownership.ts";
import { InputWatch } from "./_input_watch.ts";
import { InFlight } from "./_in_flight.ts";
import { KvAlignment } from "./_watermark_alignment.ts";
import { nextProcessingTimeOf } from "../actor_record.ts";
import type { LiveActor } from "./_live_actor.ts";
import { COORDINATOR, type KvWorker } from "./_worker.ts";

/** Runs a worker's rounds (see the file's head). */
export class WorkerLoop {
  readonly #worker: KvWorker;
  readonly #alignment: KvAlignment;
  readonly #watch: InputWatch;
  readonly #inFlight = new InFlight();
  #initialised = false;
  #nextRebalance = -Infinity;
  #nextPoll = -Infinity;
  #stopped = false;
  #finished = false;
  #rounds: Promise<unknown> = Promise.resolve();

  /** @param worker The worker's shared state. */
  constructor(worker: KvWorker) {
    this.#worker = worker;
    this.#alignment = new KvAlignment(worker.graph, worker.wirings);
    this.#watch = new InputWatch(worker, () => worker.idleClock.wake());
  }

  /** Whether every actor of the job has finished (known after a `tick`). */
  get finished(): boolean {
    return this.#finished;
  }

  /** Runs rounds until the job finished or `stop()`; then shuts down. */
  async run(): Promise<void> {
    let failed: { error: unknown } | null = null;
    try {
      while (!this.#stopped) {
        // Steps stay in flight from one round to the next (see
        // `_in_flight.ts`): only the shutdown waits for all of them.
        const progressed = await this.#serial(() => this.#round());
        if (this.#finished) break;
        if (progressed) continue;
        await this.#idle();
      }
    } catch (error) {
      failed = { error };
    }
    // After any round already queued (a cron tick, POST /tick), and
    // before none: rounds after this one do nothing.
    this.#stopped = true;
    const shutdown = this.#serial(() => this.#shutdown());
    if (failed === null) return await shutdown;
    // The error that ended the loop is the one to report.
    await shutdown.catch((error) => this.#logError("shut down", error));
    throw failed.error;
  }

  /**
   * Stops `run()` after its current round; `run()` then waits for every
   * step in flight before it gives the leases up.
   */
  stop(): void {
    this.#stopped = true;
    this.#worker.idleClock.wake();
  }

  /**
   * One round, after any round in progress; whether it committed anything.
   * Every step it started has ended when it returns (a cron tick or
   * `POST /tick` on Deploy, whose isolate may be suspended after).
   */
  tick(): Promise<boolean> {
    return this.#serial(async () => {
      let progressed: boolean;
      try {
        progressed = await this.#round();
      } catch (error) {
        await this.#inFlight.settle().catch((also) =>
          this.#logError("finish a round", also)
        );
        throw error;
      }
      return (await this.#inFlight.settle()) || progressed;
    });
  }

  /** Runs `work` after the rounds before it: one round at a time. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    // `run()`, a cron tick and `POST /tick` may overlap.
    const round = this.#rounds.then(work);
    this.#rounds = round.catch(() => {});
    return round;
  }

  #logError(what: string, error: unknown): void {
    this.#worker.log(
      `weir: worker ${this.#worker.id} could not ${what}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }

  async #round(): Promise<boolean> {
    const worker = this.#worker;
    const now = worker.clock.now();
    if (this.#finished || this.#stopped) return false;
    await this.#initialise();
    let progressed = false;
    if (now >= this.#nextRebalance) {
      this.#nextRebalance = now + Math.max(1, Math.floor(worker.leaseMs / 4));
      // No step in flight while actors change hands.
      progressed = await this.#inFlight.settle();
      await worker.passing("share the actors", () => rebalance(worker, now));
    }
    if (now >= this.#nextPoll || worker.idleClock.simulated) {
      this.#nextPoll = now + worker.pollMs;
      for (const live of worker.live.values()) live.dirty = true;
    }
    this.#watch.update();
    if (this.#alignment.take(now)) {
      await worker.passing(
        "align watermarks",
        () => this.#alignment.announce(worker),
      );
    }
    // Downstream first, as in the local runtime: consumers make room.
    // With a real clock the coordinator and every actor's step overlap
    // (see `_in_flight.ts`): actors share nothing but channels, so their
    // round trips to KV need not add up (a step sees what the coordinator
    // said last: a checkpoint starts or completes a little later).
    const order = [...worker.live.values()].reverse();
    if (worker.overlapSteps) {
      const steps = this.#inFlight;
      steps.start(COORDINATOR, () => this.#coordinate());
      for (const live of order) {
        steps.start(live.wiring.id, () => this.#step(live));
      }
      if (await steps.next()) progressed = true;
    } else {
      if (await this.#coordinate()) progressed = true;
      for (const live of order) {
        if (await this.#step(live)) progressed = true;
      }
    }
    if (!progressed) {
      await worker.passing(
        "see whether the job finished",
        () => this.#checkFinished(),
      );
    }
    return progressed;
  }

  /** The coordinator's step; whether it made progress. */
  async #coordinate(): Promise<boolean> {
    const worker = this.#worker;
    const coordinated = await worker.passing(
      "coordinate checkpoints",
      () => worker.coordinator.step(),
    );
    if (coordinated !== undefined) worker.coordinatorState = coordinated;
    return coordinated?.progressed === true;
  }

  /** Renews an actor's lease if due, then steps it; whether it committed. */
  async #step(live: LiveActor): Promise<boolean> {
    const worker = this.#worker;
    if (!worker.live.has(live.wiring.id)) return false;
    try {
      const renewed = !live.lease.due(worker.clock.now()) ||
        await worker.retry("renew a lease", () => live.lease.renew());
      if (!renewed) {
        drop(worker, live, "its lease was taken over");
        return false;
      }
      return await stepActor(worker, live);
    } catch (error) {
      await this.#failed(live, error);
      return false;
    } finally {
      // Its read-ahead, if its commit started one: a settle waits for it.
      if (live.readAhead !== null) {
        this.#inFlight.track(live.readAhead.entries);
      }
    }
  }

  /** Stops working on an actor whose step threw. */
  async #failed(live: LiveActor, error: unknown): Promise<void> {
    const worker = this.#worker;
    if (error instanceof AtomicConflictError) {
      drop(worker, live, "a commit failed its lease check");
      return;
    }
    // Deno KV kept failing, or the subtask threw (a record under "fail",
    // user code outside a record, a sink's commit) mid-step: what it holds
    // in memory is half a step, so it is dropped and reloaded from the
    // last commit after a backoff. A record that failed is struck first:
    // the reload quarantines it.
    if (error instanceof RecordFailedError) {
      await worker.failures.struck(error);
    }
    await fail(worker, live, error);
  }

  /**
   * Writes the job's record once per database, seeding the actors from
   * `restoreFrom` if given (see `startJob`); the other workers wait for it.
   */
  async #initialise(): Promise<void> {
    if (this.#initialised) return;
    const worker = this.#worker;
    worker.startedAt = await startJob({
      kv: worker.kv,
      graph: worker.graph,
      key: [...worker.base, "job"],
      wirings: worker.wirings,
      persist: worker.persist,
      restoreFrom: worker.restoreFrom,
      allowNonRestoredState: worker.allowNonRestoredState,
      clock: worker.clock,
      lease: () => worker.leaseOf(`${COORDINATOR}-init`),
      storageOf: (id) => worker.storageOf(id),
      retry: (what, call) => worker.retry(what, call),
      wait: () => worker.sleep(Math.min(worker.pollMs, 50)),
    });
    this.#initialised = true;
  }

  /** Whether every actor's committed meta says it finished. */
  async #checkFinished(): Promise<void> {
    const worker = this.#worker;
    const metas = await Promise.all(
      worker.wirings.map((w) => worker.metaOf(w.id)),
    );
    // Over when every actor finished, its sinks wrote their final
    // transaction, and its consumers applied (and it deleted) every entry.
    this.#finished = metas.every((m) =>
      m !== undefined && m.finished && m.sinksDone &&
      m.outputs.every((seq, k) => m.trimmed[k] >= seq)
    );
  }

  /** The earliest processing time at which an owned actor has work. */
  nextWakeup(): number {
    const worker = this.#worker;
    const now = worker.clock.now();
    let next = Math.min(
      this.#nextRebalance,
      worker.coordinator.nextWakeup(),
      this.#alignment.nextMs,
    );
    for (const live of worker.live.values()) {
      const { meta } = live;
      next = Math.min(next, live.lease.expiresSoonAt());
      if (meta.finished) {
        if (!meta.sinksDone) next = now;
        else if (meta.outputs.some((seq, k) => meta.trimmed[k] < seq)) {
          next = Math.min(next, now + worker.pollMs); // consumers to catch up
        }
        continue;
      }
      // Held by back-pressure: records waiting are no reason to wake.
      // Input committed after the actor's last read (steps overlap) is.
      const due = live.paused
        ? now + worker.pollMs
        : live.dirty && live.subtask !== null
        ? now
        : nextProcessingTimeOf(live, now);
      next = Math.min(next, due);
    }
    return next;
  }

  async #idle(): Promise<void> {
    const worker = this.#worker;
    // Background reads (a KV log's prefetch) may bring records first.
    await Promise.all(
      [...worker.live.values()].map((l) => l.source?.ready()),
    );
    const next = this.nextWakeup();
    if (worker.idleClock.simulated) worker.idleClock.advance(next);
    else await worker.idleClock.sleep(next, worker.pollMs);
  }

  async #shutdown(): Promise<void> {
    // Whatever a step threw, the watch ends and the leases are given up.
    try {
      await this.#inFlight.settle();
    } finally {
      try {
        await this.#watch.cancel();
      } finally {
        await releaseAll(this.#worker);
      }
    }
  }
}
