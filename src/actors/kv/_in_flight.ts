// The steps a KV-runtime worker has in flight when it overlaps them (a
// real clock): each actor's step, and the coordinator's, runs on its own,
// at most one per actor at a time, while a round starts again the steps
// of the actors whose last step ended. A round so waits for the first
// step that committed, not for the slowest: a source whose read landed
// polls again while a consumer's commit is still on its way. Each step is
// still one atomic commit under its actor's lease.

/** Steps in flight, by actor id. */
export class InFlight {
  readonly #steps = new Map<string, Promise<boolean>>();

  /** Starts `step` for `id` unless one is in flight for it. */
  start(id: string, step: () => Promise<boolean>): void {
    if (this.#steps.has(id)) return;
    this.#steps.set(id, step());
  }

  /**
   * Waits until a step committed (`true`), or until none is in flight
   * (`false`, when none did).
   */
  async next(): Promise<boolean> {
    while (this.#steps.size > 0) {
      const [id, committed] = await Promise.race(
        [...this.#steps].map(([id, step]) =>
          step.then((committed) => [id, committed] as const)
        ),
      );
      this.#steps.delete(id);
      if (committed) return true;
    }
    return false;
  }

  /** Waits for every step in flight, e.g. before actors change hands. */
  async settle(): Promise<void> {
    await Promise.all(this.#steps.values());
    this.#steps.clear();
  }
}
