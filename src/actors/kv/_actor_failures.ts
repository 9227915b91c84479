// The KV runtime's failing actors: each one's failures in a row (kept in
// KV, so that whichever worker takes the actor up next continues its
// backoff, and any process serving the job reports it as stuck), and the
// strikes of records that failed under "fail" (read by every worker that
// takes an actor up: the reload quarantines them).

import type { Clock } from "../../time/mod.ts";
import type {
  ErrorPolicy,
  RecordFailedError,
} from "../../runtime/dead_letter.ts";
import {
  type ActorFailure,
  BACKOFF_RESET_MS,
  nextActorFailure,
} from "../actor_failure.ts";
import type { StrikeLog } from "../_strike_log.ts";

/** One failing actor as a worker knows it. */
export interface FailedActor {
  /** Its failures in a row. */
  failure: ActorFailure;
  /** The last error itself. */
  error: Error;
}

/** What {@linkcode ActorFailures} works with. */
export interface ActorFailuresOptions {
  /** The database. */
  readonly kv: Deno.Kv;
  /** The job's KV-runtime prefix. */
  readonly base: readonly string[];
  /** This worker. */
  readonly worker: string;
  /** Processing time. */
  readonly clock: Clock;
  /** The retry delay after a first failure, in ms (the lease time). */
  readonly firstDelayMs: number;
  /** The job's error policy. */
  readonly policy: ErrorPolicy;
  /** The job's strikes. */
  readonly strikes: StrikeLog;
  /** Retries transient KV errors. */
  readonly retry: <T>(what: string, call: () => Promise<T>) => Promise<T>;
  /** Where lines go. */
  readonly log: (line: string) => void;
}

/** A worker's view of the job's failing actors and struck records. */
export class ActorFailures {
  readonly #options: ActorFailuresOptions;
  readonly #failed = new Map<string, FailedActor>();
  /**
   * Under "fail": strikes of records that failed once, and sites of actors
   * that failed at the same site in a row (see `failed`); the subtasks
   * read the set as it is when a record fails.
   */
  readonly quarantine = new Set<string>();
  #restarts = 0;

  /** @param options The database, the worker, the clock, the policy. */
  constructor(options: ActorFailuresOptions) {
    this.#options = options;
  }

  /** Actors reloaded because a record failed under "fail". */
  get restarts(): number {
    return this.#restarts;
  }

  /**
   * The failed actors this worker knows of and has not run again since.
   *
   * @param live Whether this worker runs an actor now.
   */
  stopped(live: (id: string) => boolean): [string, FailedActor][] {
    return [...this.#failed].filter(([id, f]) =>
      !live(id) && f.failure.resumedAt === undefined
    );
  }

  /**
   * Records one more failure of an actor (in KV too, best effort: without
   * it only other processes' reports and backoffs lack it).
   *
   * An actor that failed on a record twice in a row at the same site
   * (operator subtask) failed on a record its strike did not recognise:
   * its content changes from one run to the next (ingestion time, a map
   * adding `Date.now()` or a random id). The site is quarantined for the
   * retry, until the actor commits a step, else it would fail forever.
   *
   * @returns Its failures in a row, with the delay before its retry.
   */
  async failed(id: string, error: unknown): Promise<ActorFailure> {
    const { clock, firstDelayMs, worker, kv, retry } = this.#options;
    const failure = nextActorFailure(this.#failed.get(id)?.failure, error, {
      now: clock.now(),
      firstDelayMs,
      worker,
    });
    this.#quarantineSite(failure);
    this.#failed.set(id, {
      failure,
      error: error instanceof Error ? error : new Error(String(error)),
    });
    await retry(
      `record the failures of actor '${id}'`,
      () => kv.set(this.#key(id), failure),
    ).catch(() => {});
    return failure;
  }

  /**
   * Strikes a record that failed under "fail": from now on every worker
   * that takes its actor up quarantines it. A strike that cannot be
   * written only means the record fails once more.
   */
  async struck(error: RecordFailedError): Promise<void> {
    this.quarantine.add(error.strike);
    this.#restarts++;
    try {
      await this.#options.retry(
        "record a strike",
        () => this.#options.strikes.add(error),
      );
    } catch (failure) {
      this.#options.log(
        `weir: worker ${this.#options.worker} could not record the strike of dead letter ${error.letter.id}: ${
          failure instanceof Error ? failure.message : String(failure)
        }`,
      );
    }
  }

  /**
   * A whole step of the actor went through: it runs again (the first such
   * step after a retry says so in KV: it is no longer stuck), and once it
   * has run for `BACKOFF_RESET_MS` since its retry, its failures in a row
   * are over (Flink's reset-backoff threshold). Sooner, a step that passes
   * (one that does not reach the failing work) would reset the backoff,
   * and an actor failing every few steps would retry at the first delay
   * forever.
   */
  async succeeded(id: string): Promise<void> {
    const failed = this.#failed.get(id);
    if (failed === undefined) return;
    // The actor got past the site's failure: a record failing there now
    // is a new failure.
    const site = failed.failure.record?.site;
    if (site !== undefined) this.quarantine.delete(site);
    const { clock, kv, retry } = this.#options;
    const now = clock.now();
    if (now - failed.failure.retryAt >= BACKOFF_RESET_MS) {
      this.#failed.delete(id);
      await retry(
        `clear the failures of actor '${id}'`,
        () => kv.delete(this.#key(id)),
      );
    } else if (failed.failure.resumedAt === undefined) {
      failed.failure = { ...failed.failure, resumedAt: now };
      await retry(
        `record that actor '${id}' runs again`,
        () => kv.set(this.#key(id), failed.failure),
      );
    }
  }

  /**
   * What an actor taken up brings from its past: its failures in a row
   * (the backoff goes on from there) and, under "fail", every worker's
   * strikes.
   */
  async takenUp(id: string): Promise<void> {
    const { kv, retry, policy, strikes } = this.#options;
    const recorded = await retry(
      `read the failures of actor '${id}'`,
      () => kv.get<ActorFailure>(this.#key(id)),
    );
    if (recorded.value !== null && !this.#failed.has(id)) {
      const { name, message } = recorded.value.error;
      this.#failed.set(id, {
        failure: recorded.value,
        error: Object.assign(new Error(message), { name }),
      });
      // Another worker saw it fail at the same site in a row.
      if (recorded.value.resumedAt === undefined) {
        this.#quarantineSite(recorded.value);
      }
    }
    if (policy === "fail") {
      const ids = await retry("read the strikes", () => strikes.ids());
      for (const letter of ids) this.quarantine.add(letter);
    }
  }

  #quarantineSite(failure: ActorFailure): void {
    const site = failure.record?.site;
    if (
      this.#options.policy === "fail" && site !== undefined &&
      (failure.record?.atSite ?? 0) >= 2
    ) this.quarantine.add(site);
  }

  /** Every actor's failures in a row as kept in KV, by actor id. */
  async read(): Promise<Map<string, ActorFailure>> {
    const failures = new Map<string, ActorFailure>();
    const prefix = [...this.#options.base, "failure"];
    for await (const entry of this.#options.kv.list<ActorFailure>({ prefix })) {
      failures.set(String(entry.key[entry.key.length - 1]), entry.value);
    }
    return failures;
  }

  /** When each failed actor may be tried again, by any worker. */
  async retryAts(): Promise<Map<string, number>> {
    const failures = await this.read();
    for (const [id, { failure }] of this.#failed) failures.set(id, failure);
    return new Map([...failures].map(([id, f]) => [id, f.retryAt]));
  }

  #key(id: string): Deno.KvKey {
    return [...this.#options.base, "failure", id];
  }
}
