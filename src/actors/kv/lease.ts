/**
 * {@linkcode Lease}: single-writer ownership of one actor in Deno KV, with
 * a fencing epoch (Orleans' ETag, Durable Objects' uniqueness on storage).
 *
 * @module
 */

import type { Clock } from "../../time/mod.ts";

/** What a lease entry holds. */
export interface LeaseRecord {
  /** The worker that holds it. */
  readonly owner: string;
  /** Bumped by every take-over: the fencing token. */
  readonly epoch: number;
  /** Processing time (epoch ms) from which another worker may take it. */
  readonly expiresAt: number;
}

/**
 * One worker's view of the lease of one actor, stored at `key`.
 *
 * Whoever holds the lease is the actor's only writer: every commit of the
 * actor includes {@linkcode Lease.check}, the versionstamp of the lease
 * entry as this worker last wrote it. A take-over (or a renewal by anyone
 * else) changes that versionstamp, so a stale worker (paused, partitioned,
 * or on another Deploy instance) gets `ok: false` and must drop the actor.
 * Expiry is an explicit `expiresAt` compared with the clock, never Deno KV's
 * `expireIn`, which deletes "at the earliest".
 *
 * @example Two workers, one lease
 * ```ts
 * import { Lease } from "./lease.ts";
 * import { ManualClock } from "../../time/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const clock = new ManualClock(0);
 * const a = new Lease(kv, ["lease", "job/map/0"], "a", clock, 10_000);
 * const b = new Lease(kv, ["lease", "job/map/0"], "b", clock, 10_000);
 * assert.equal(await a.acquire(), true);
 * assert.equal(await b.acquire(), false); // held by a
 * clock.set(10_001);
 * assert.equal(await b.acquire(), true); // expired: b takes over
 * assert.equal(await a.renew(), false); // a is fenced
 * kv.close();
 * ```
 */
export class Lease {
  readonly #kv: Deno.Kv;
  readonly #key: Deno.KvKey;
  readonly #owner: string;
  readonly #clock: Clock;
  readonly #ttl: number;
  #versionstamp: string | null = null;
  #record: LeaseRecord | null = null;

  /**
   * Creates a view of the lease; it does not touch KV yet.
   *
   * @param kv The database.
   * @param key The lease entry's key.
   * @param owner This worker's id.
   * @param clock Processing time, for expiry.
   * @param ttlMs How long a lease lasts without renewal.
   */
  constructor(
    kv: Deno.Kv,
    key: Deno.KvKey,
    owner: string,
    clock: Clock,
    ttlMs: number,
  ) {
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
      throw new RangeError(
        `Cannot create Lease as 'ttlMs' must be a positive safe integer: current value is ${ttlMs}`,
      );
    }
    this.#kv = kv;
    this.#key = key;
    this.#owner = owner;
    this.#clock = clock;
    this.#ttl = ttlMs;
  }

  /** Whether this worker holds the lease, as far as it knows. */
  get held(): boolean {
    return this.#versionstamp !== null;
  }

  /** The epoch of the lease as this worker holds it, or 0. */
  get epoch(): number {
    return this.#record?.epoch ?? 0;
  }

  /**
   * The check every commit of the actor carries.
   *
   * @throws {Error} If the lease is not held.
   */
  get check(): Deno.AtomicCheck {
    if (this.#versionstamp === null) {
      throw new Error(
        `Cannot commit as the lease ${
          JSON.stringify(this.#key)
        } must be held by '${this.#owner}': current value is not held`,
      );
    }
    return { key: this.#key, versionstamp: this.#versionstamp };
  }

  /** Whether the lease should be renewed now: half its time or less left. */
  due(now: number = this.#clock.now()): boolean {
    return this.#record === null ||
      this.#record.expiresAt - now <= this.#ttl / 2;
  }

  /** When {@linkcode Lease.due} turns true, or `Infinity` if not held. */
  expiresSoonAt(): number {
    return this.#record === null
      ? Infinity
      : this.#record.expiresAt - this.#ttl / 2;
  }

  /**
   * Takes the lease if it is free, expired or already this worker's; a
   * take-over bumps the epoch.
   *
   * @returns Whether this worker holds it now.
   */
  async acquire(): Promise<boolean> {
    const entry = await this.#kv.get<LeaseRecord>(this.#key);
    const now = this.#clock.now();
    const current = entry.value;
    const mine = current !== null && current.owner === this.#owner &&
      entry.versionstamp === this.#versionstamp;
    if (current !== null && !mine && current.expiresAt > now) {
      this.#forget();
      return false;
    }
    const record: LeaseRecord = {
      owner: this.#owner,
      epoch: mine ? current.epoch : (current?.epoch ?? 0) + 1,
      expiresAt: now + this.#ttl,
    };
    const result = await this.#kv.atomic()
      .check({ key: this.#key, versionstamp: entry.versionstamp })
      .set(this.#key, record)
      .commit();
    if (!result.ok) {
      this.#forget();
      return false;
    }
    this.#versionstamp = result.versionstamp;
    this.#record = record;
    return true;
  }

  /**
   * Extends the lease by its time to live, if this worker still holds it.
   *
   * @returns `false` if the lease was taken over: stop working on the actor.
   */
  async renew(): Promise<boolean> {
    if (this.#versionstamp === null || this.#record === null) return false;
    const record = {
      ...this.#record,
      expiresAt: this.#clock.now() + this.#ttl,
    };
    const result = await this.#kv.atomic()
      .check(this.check)
      .set(this.#key, record)
      .commit();
    if (!result.ok) {
      this.#forget();
      return false;
    }
    this.#versionstamp = result.versionstamp;
    this.#record = record;
    return true;
  }

  /** Gives the lease up (when it is still this worker's), so another may take it at once. */
  async release(): Promise<void> {
    if (this.#versionstamp === null || this.#record === null) return;
    // Expired at once, epoch kept: the next owner bumps it.
    await this.#kv.atomic()
      .check(this.check)
      .set(this.#key, { ...this.#record, expiresAt: 0 })
      .commit();
    this.#forget();
  }

  /** Forgets the lease without touching KV: after a failed commit. */
  lost(): void {
    this.#forget();
  }

  #forget(): void {
    this.#versionstamp = null;
    this.#record = null;
  }
}
