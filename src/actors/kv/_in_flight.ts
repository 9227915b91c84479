// The steps a KV-runtime worker has in flight when it overlaps them (a
// real clock): each actor's step, and the coordinator's, runs on its own,
// at most one per actor at a time, while a round starts again the steps
// of the actors whose last step ended. A round so waits for the first
// step that committed, not for the slowest: a source whose read landed
// polls again while a consumer's commit is still on its way. Each step is
// still one atomic commit under its actor's lease.
//
// A step that threw is an outcome like any other: it is taken out of
// flight, and its error is handed once to whoever takes the outcome (the
// round that waits, or a settle), as the same error would fail a round
// that steps actors one after another. Nothing it threw stays behind to
// fail later rounds. Work a step leaves running (a read-ahead) is tracked
// too, so that a settle leaves nothing of the worker's running.

/** How a step in flight ended. */
interface Outcome {
  readonly id: string;
  readonly committed: boolean;
  /** What it threw, boxed (anything may be thrown, `undefined` too). */
  readonly thrown: { readonly error: unknown } | null;
}

/** Steps in flight, by actor id. */
export class InFlight {
  // Each step's end, which never rejects; an entry stays until its
  // outcome is taken, so that an actor's next step starts only after.
  readonly #steps = new Map<string, Promise<void>>();
  // Outcomes not taken yet, in the order the steps ended.
  readonly #ended: Outcome[] = [];
  // Resolves the `next()` waiting for a step to end, if one is.
  #wake: (() => void) | null = null;
  // Work started by steps and still running, each settled (never rejects).
  readonly #tracked = new Map<Promise<unknown>, Promise<void>>();

  /** Starts `step` for `id` unless one is in flight for it. */
  start(id: string, step: () => Promise<boolean>): void {
    if (this.#steps.has(id)) return;
    let running: Promise<boolean>;
    try {
      running = step();
    } catch (error) {
      running = Promise.reject(error);
    }
    // One handler per step, attached once: a round that waits adds none.
    this.#steps.set(
      id,
      running.then(
        (committed) => this.#end({ id, committed, thrown: null }),
        (error) => this.#end({ id, committed: false, thrown: { error } }),
      ),
    );
  }

  /** Tracks `work` a step left running, until it settles. */
  track(work: Promise<unknown>): void {
    if (this.#tracked.has(work)) return;
    this.#tracked.set(
      work,
      work.then(() => {}, () => {}).finally(() => this.#tracked.delete(work)),
    );
  }

  /**
   * Waits until a step committed (`true`), or until none is in flight
   * (`false`, when none did).
   *
   * @throws What a step threw, once: the step is out of flight.
   */
  async next(): Promise<boolean> {
    for (;;) {
      const outcome = this.#ended.shift();
      if (outcome !== undefined) {
        this.#steps.delete(outcome.id);
        if (outcome.thrown !== null) throw outcome.thrown.error;
        if (outcome.committed) return true;
        continue;
      }
      if (this.#steps.size === 0) return false;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
  }

  /**
   * Waits for every step in flight and the work they left running (e.g.
   * before actors change hands, or before a round that was asked for
   * returns); whether any of them committed. Nothing is in flight after,
   * whatever happened.
   *
   * @throws What the first of them threw, once they all ended.
   */
  async settle(): Promise<boolean> {
    let committed = false;
    let thrown: Outcome["thrown"] = null;
    for (;;) {
      for (const outcome of this.#ended.splice(0)) {
        this.#steps.delete(outcome.id);
        committed ||= outcome.committed;
        thrown ??= outcome.thrown;
      }
      if (this.#steps.size === 0 && this.#tracked.size === 0) break;
      await Promise.allSettled([
        ...this.#steps.values(),
        ...this.#tracked.values(),
      ]);
    }
    if (thrown !== null) throw thrown.error;
    return committed;
  }

  #end(outcome: Outcome): void {
    this.#ended.push(outcome);
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
