// The local runtime's scheduler: which actor runs next. Deterministic:
// downstream actors drain before upstream ones run, sources poll last; a
// full mailbox pauses its producers (back-pressure).

import type { Clock } from "../../time/clock.ts";
import { machineOf, nextProcessingTimeOf, setPaused } from "../actor_record.ts";
import type { LocalActor, Message } from "./_local_actor.ts";
import type { LocalCheckpoints } from "./_checkpoints.ts";
import type { LocalAlignment } from "./_watermark_alignment.ts";
import type { IdleClock } from "../idle_clock.ts";

/** Options of a {@linkcode LocalScheduler}. */
export interface LocalSchedulerOptions {
  /** The job's name, for errors. */
  readonly jobName: string;
  readonly clock: Clock;
  /** Moves time on when nothing can run. */
  readonly idle: IdleClock;
  /** Elements a mailbox holds before its producers are paused. */
  readonly capacity: number;
  /** The periodic checkpoint timer, and completed checkpoints to save. */
  readonly checkpoints: LocalCheckpoints;
  /** The alignment announcements' timer. */
  readonly alignment: LocalAlignment;
  /** Writes dead letters, saves completed checkpoints (after each round). */
  flush(): Promise<void>;
}

/**
 * Runs the actors' work at the current processing time: the runtime's
 * timers (checkpoint, alignment), the actors' timers, their mail, their
 * mailboxes and the sources' polls. A paused actor neither processes input
 * nor polls, and its activity clock stops, so idleness timeouts do not
 * fire while it cannot read (FLINK-35886).
 */
export class LocalScheduler {
  readonly #actors: readonly LocalActor[];
  readonly #jobName: string;
  readonly #clock: Clock;
  readonly #idle: IdleClock;
  readonly #flush: () => Promise<void>;
  readonly #capacity: number;
  readonly #checkpoints: LocalCheckpoints;
  readonly #alignment: LocalAlignment;
  // Resolves `waitForMail()` when an asynchronous operator has mail.
  #wake: (() => void) | null = null;
  // Stopping with a final checkpoint: sources read nothing more.
  #draining = false;
  /** Set by `LocalRuntime.stop()`: `run()` returns after its current round. */
  stopped = false;

  constructor(actors: readonly LocalActor[], options: LocalSchedulerOptions) {
    this.#actors = actors;
    this.#jobName = options.jobName;
    this.#clock = options.clock;
    this.#idle = options.idle;
    this.#flush = options.flush;
    this.#capacity = options.capacity;
    this.#checkpoints = options.checkpoints;
    this.#alignment = options.alignment;
  }

  /** Whether every subtask has finished and every mailbox is empty. */
  get finished(): boolean {
    return this.#actors.every((a) => machineOf(a).finished) &&
      this.#actors.every((a) => a.head === a.mailbox.length);
  }

  /**
   * Runs rounds until the job finishes or `stopped` is set; when nothing
   * can run, it moves a simulated clock to the next timer, or waits for it
   * in real time.
   *
   * @returns Whether the job finished (then its sinks are to settle).
   * @throws {RangeError} If nothing can ever run again.
   */
  async run(): Promise<boolean> {
    while (!this.stopped) {
      this.runUntilIdle();
      await this.#flush();
      if (this.finished) return true;
      // Background reads (a KV log's prefetch) may bring records: let them
      // land before time moves on.
      await Promise.all(this.#actors.map((a) => a.source?.ready()));
      if (this.runUntilIdle() > 0) continue;
      // Asynchronous calls in flight: wait for one to complete before time
      // moves on (a simulated clock must not run ahead of them).
      if (this.inFlight() > 0 && await this.waitForMail(1_000)) continue;
      const next = this.nextWakeup();
      if (next === Infinity) {
        throw new RangeError(
          `Cannot run job '${this.#jobName}' as it must finish or have a timer pending: current state has neither (a source never ends and nothing is scheduled)`,
        );
      }
      if (this.#idle.simulated) this.#idle.advance(next);
      else await this.#idle.sleep(next, 1_000);
    }
    return false;
  }

  /** See `LocalRuntime.finalCheckpoint`. */
  async finalCheckpoint(): Promise<number | null> {
    this.#draining = true;
    const checkpoints = this.#checkpoints;
    if (!(await this.#complete(checkpoints.inProgress))) return null;
    // A periodic checkpoint may have started meanwhile: it is the final one.
    const id = checkpoints.inProgress ?? checkpoints.trigger();
    return (await this.#complete(id)) ? id : null;
  }

  /** Runs until checkpoint `id` (if any) is saved; false if it cannot be. */
  async #complete(id: number | null): Promise<boolean> {
    if (id === null) return true;
    for (;;) {
      const steps = this.runUntilIdle();
      await this.#flush();
      if (this.#checkpoints.inProgress !== id) {
        return (this.#checkpoints.latest?.id ?? 0) >= id;
      }
      if (steps > 0) continue;
      // Barriers may wait behind asynchronous calls in flight; with none,
      // nothing can move them any more.
      if (this.inFlight() === 0) return false;
      await this.waitForMail(1_000);
    }
  }

  /** See `LocalRuntime.runUntilIdle`. */
  runUntilIdle(): number {
    let steps = 0;
    for (;;) {
      const now = this.#clock.now();
      let progressed = this.#runDueTimers(now);
      // Downstream first, so queues drain before upstream adds to them.
      for (let a = this.#actors.length - 1; a >= 0; a--) {
        const actor = this.#actors[a];
        this.#updatePause(actor);
        if (actor.paused) continue;
        if (actor.mail) {
          actor.mail = false;
          (actor.subtask ?? actor.source!).processMail();
          progressed = true;
        }
        if (actor.subtask !== null) {
          while (
            actor.head < actor.mailbox.length && !this.#blocked(actor) &&
            !actor.subtask.backPressured
          ) {
            const message = actor.mailbox[actor.head];
            (actor.mailbox as (Message | undefined)[])[actor.head++] =
              undefined;
            actor.subtask.receive(message.channel, message.element);
            steps++;
            progressed = true;
          }
          if (actor.head === actor.mailbox.length && actor.head > 0) {
            actor.mailbox.length = 0;
            actor.head = 0;
          }
        } else if (!this.#draining && actor.source!.poll(now)) {
          steps++;
          progressed = true;
        }
      }
      // A completed checkpoint must be saved (by `run()`, asynchronously)
      // before more work piles up behind it.
      if (!progressed || this.#checkpoints.hasCompleted) return steps;
    }
  }

  /** See `LocalRuntime.step`. */
  step(): boolean {
    const now = this.#clock.now();
    this.#runDueTimers(now);
    for (let a = this.#actors.length - 1; a >= 0; a--) {
      const actor = this.#actors[a];
      this.#updatePause(actor);
      if (actor.paused) continue;
      if (actor.mail) {
        actor.mail = false;
        (actor.subtask ?? actor.source!).processMail();
        return true;
      }
      if (actor.subtask !== null) {
        if (
          actor.head === actor.mailbox.length || actor.subtask.backPressured
        ) continue;
        const message = actor.mailbox[actor.head];
        (actor.mailbox as (Message | undefined)[])[actor.head++] = undefined;
        if (actor.head === actor.mailbox.length) {
          actor.mailbox.length = 0;
          actor.head = 0;
        }
        actor.subtask.receive(message.channel, message.element);
        return true;
      }
      if (!this.#draining && actor.source!.poll(now)) return true;
    }
    return false;
  }

  /** The earliest processing time at which some actor has work, or `Infinity`. */
  nextWakeup(): number {
    const now = this.#clock.now();
    let next = Math.min(this.#alignment.nextMs, this.#checkpoints.nextMs);
    for (const actor of this.#actors) {
      const due = nextProcessingTimeOf(actor, now);
      if (due < next) next = due;
    }
    return next;
  }

  /** Asynchronous calls in flight, over every actor. */
  inFlight(): number {
    let count = 0;
    for (const actor of this.#actors) count += machineOf(actor).inFlight;
    return count;
  }

  /** An operator requested mail: ends `waitForMail()`. */
  wake(): void {
    this.#wake?.();
  }

  /** Waits until an operator requests mail, or `ms` of real time; true if mail came. */
  async waitForMail(ms: number): Promise<boolean> {
    if (this.#actors.some((a) => a.mail)) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const mail = await Promise.race([
      new Promise<boolean>((resolve) => this.#wake = () => resolve(true)),
      new Promise<boolean>((resolve) =>
        timer = setTimeout(() => resolve(false), ms)
      ),
    ]);
    clearTimeout(timer);
    this.#wake = null;
    return mail;
  }

  #blocked(actor: LocalActor): boolean {
    for (const channels of actor.targets) {
      for (const target of channels) {
        if (target.actor.mailbox.length - target.actor.head >= this.#capacity) {
          return true;
        }
      }
    }
    return false;
  }

  /** Pauses or resumes an actor for back-pressure, alignment or suspension. */
  #updatePause(actor: LocalActor): void {
    const held = actor.source !== null && actor.source.shouldWait;
    setPaused(actor, held || actor.suspended || this.#blocked(actor));
  }

  #runDueTimers(now: number): boolean {
    this.#checkpoints.runTimer(now);
    let ran = this.#alignment.runTimer(now);
    for (const actor of this.#actors) {
      if (actor.source !== null) {
        if (actor.source.nextProcessingTime(now) <= now) {
          const before = actor.source.currentWatermark;
          actor.source.onProcessingTime(now);
          ran ||= actor.source.currentWatermark !== before;
        }
      } else if (actor.subtask!.nextProcessingTime() <= now) {
        actor.subtask!.onProcessingTime(now);
        ran = true;
      }
    }
    return ran;
  }
}
