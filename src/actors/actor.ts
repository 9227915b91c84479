/**
 * The durable actor: an id, a mailbox processed one message at a time, its
 * own storage and one persisted alarm, as in Cloudflare's Durable Objects.
 * {@linkcode ActorHost} runs an {@linkcode Actor}; a runtime decides when
 * (it delivers messages, drains mailboxes and fires due alarms by its clock).
 *
 * @module
 */

import { type Clock, SystemClock } from "../time/mod.ts";
import {
  requireFunction,
  requireNonEmptyString,
  requireSafeInteger,
} from "../time/_validate.ts";
import type { ActorStorage } from "./storage.ts";

/** The storage key under which a host keeps its actor's alarm. */
const ALARM_KEY = ["alarm"] as const;

/**
 * One actor: an operator subtask, or any state machine driven by messages.
 *
 * The host calls `receive` for one message at a time, in delivery order,
 * and never starts the next message (or the alarm) before the returned
 * promise settles, even while the handler awaits storage. Keep state in
 * storage (or rebuild it from storage) so the actor survives a restart.
 *
 * @typeParam M The message type.
 */
export interface Actor<M> {
  /** The actor's id, `job/operator/subtask` by convention. */
  readonly id: string;

  /**
   * Handles one message.
   *
   * @param message The next message of the mailbox.
   * @throws Anything: the message stays at the head of the mailbox and
   * {@linkcode ActorHost.drain} rejects with the error.
   */
  receive(message: M): void | Promise<void>;

  /**
   * Handles the alarm set with {@linkcode ActorHost.setAlarm}, once it is
   * due. Runs at least once per alarm: after a crash between the handler and
   * the clearing of the alarm, it runs again, so make it idempotent.
   *
   * @param now The processing time in milliseconds at which it runs.
   * @throws Anything: the alarm stays set and runs again on the next call.
   */
  onAlarm?(now: number): void | Promise<void>;
}

/** Options of an {@linkcode ActorHost}. */
export interface ActorHostOptions {
  /** The actor's durable storage; the host keeps the alarm under `["alarm"]`. */
  readonly storage: ActorStorage;
  /**
   * The processing-time clock used by {@linkcode ActorHost.activate} and as
   * the default of {@linkcode ActorHost.runDueAlarm}.
   * @default {new SystemClock()}
   */
  readonly clock?: Clock;
}

/**
 * Hosts one actor: owns its mailbox, its storage and its persisted alarm,
 * and runs every step (a message or the alarm) exclusively, one after the
 * other, like a Durable Object's input gate.
 *
 * The host has no timers: a runtime calls {@linkcode ActorHost.drain} after
 * delivering, and {@linkcode ActorHost.runDueAlarm} when its clock says so.
 * The alarm lives in storage (under `["alarm"]`, which the actor must not
 * use), so a host created after a restart fires an alarm whose time passed
 * while nothing was running as soon as it is activated.
 *
 * Never await `drain`, `activate` or `runDueAlarm` from inside a handler:
 * the step waits for itself. Delivering from a handler is fine; the message
 * runs after the current one.
 *
 * @typeParam M The message type.
 *
 * @example A counter with an alarm, restarted over the same storage
 * ```ts
 * import { ActorHost, MemoryStorage } from "./mod.ts";
 * import { ManualClock } from "../time/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const storage = new MemoryStorage();
 * const clock = new ManualClock(0);
 * const fired: number[] = [];
 * const create = (host: ActorHost<number>) => ({
 *   id: "job/count/0",
 *   receive: (n: number) => host.setAlarm(n),
 *   onAlarm: (now: number) => void fired.push(now),
 * });
 * const host = new ActorHost(create, { storage, clock });
 * host.deliver(1_000);
 * await host.drain();
 * clock.set(5_000);
 * await new ActorHost(create, { storage, clock }).activate(); // a restart
 * assert.deepEqual(fired, [5_000]);
 * ```
 */
export class ActorHost<M> {
  readonly #actor: Actor<M>;
  readonly #storage: ActorStorage;
  readonly #clock: Clock;
  // Messages from #head on are pending; the one at #head may be running.
  #mailbox: (M | undefined)[] = [];
  #head = 0;
  #alarm: number | null = null;
  #loaded = false;
  // Bumped by every set or delete, so that a step that read the alarm
  // before a change does not overwrite it.
  #alarmVersion = 0;
  #steps: Promise<unknown> = Promise.resolve();

  /**
   * Creates a host and its actor; nothing is read until a step runs.
   *
   * @param create Builds the actor, given this host (for its storage and
   * alarm).
   * @param options The storage and the clock.
   * @throws {TypeError} If `create` is not a function, `options.storage` is
   * not a storage, or the actor lacks a string `id` or a `receive` method.
   */
  constructor(
    create: (host: ActorHost<M>) => Actor<M>,
    options: ActorHostOptions,
  ) {
    const action = "create ActorHost";
    requireFunction(create, { action, param: "create" });
    const storage = options?.storage;
    if (
      typeof storage?.get !== "function" || typeof storage.put !== "function"
    ) {
      throw new TypeError(
        `Cannot ${action} as 'options.storage' must be an ActorStorage: current value is ${storage}`,
      );
    }
    this.#storage = storage;
    this.#clock = options.clock ?? new SystemClock();
    const actor = create(this);
    requireNonEmptyString(actor?.id, { action, param: "actor.id" });
    requireFunction(actor.receive, { action, param: "actor.receive" });
    this.#actor = actor;
  }

  /** The actor's id. */
  get id(): string {
    return this.#actor.id;
  }

  /** The hosted actor. */
  get actor(): Actor<M> {
    return this.#actor;
  }

  /** The actor's storage. */
  get storage(): ActorStorage {
    return this.#storage;
  }

  /** How many messages are delivered and not yet handled (running included). */
  get depth(): number {
    return this.#mailbox.length - this.#head;
  }

  /**
   * The due time of the alarm as this host knows it, or `null`: the
   * persisted one once a step or {@linkcode ActorHost.activate} has loaded it.
   */
  get alarm(): number | null {
    return this.#alarm;
  }

  /**
   * Appends a message to the mailbox; it runs on the next
   * {@linkcode ActorHost.drain}.
   *
   * @param message The message; handed to `receive` as is (not copied).
   */
  deliver(message: M): void {
    this.#mailbox.push(message);
  }

  /**
   * Handles every message in the mailbox, one at a time, in order,
   * including those delivered while it runs.
   *
   * @returns A promise that settles when the mailbox is empty.
   * @throws Whatever a handler throws; that message stays at the head of the
   * mailbox, so a later `drain` retries it.
   */
  drain(): Promise<void> {
    return this.#exclusive(async () => {
      while (this.#head < this.#mailbox.length) {
        await this.#actor.receive(this.#mailbox[this.#head] as M);
        this.#mailbox[this.#head++] = undefined;
        if (this.#head > 1024 && this.#head * 2 > this.#mailbox.length) {
          this.#mailbox = this.#mailbox.slice(this.#head);
          this.#head = 0;
        }
      }
    });
  }

  /**
   * Loads the persisted alarm and fires it if it is due by the clock: call
   * it once when the host starts (or restarts) the actor.
   *
   * @returns Whether the alarm fired.
   */
  activate(): Promise<boolean> {
    return this.#exclusive(async () => {
      this.#loaded = false;
      await this.#load();
      return this.#fireIfDue(this.#clock.now());
    });
  }

  /**
   * Sets (or moves) the actor's one alarm and persists it. Call it from a
   * handler, or from outside between steps.
   *
   * @param atMs The due time in milliseconds of processing time; a time in
   * the past fires on the next {@linkcode ActorHost.runDueAlarm}.
   * @throws {RangeError} If `atMs` is not a safe integer.
   * @throws {TypeError} If the actor has no `onAlarm` handler.
   */
  setAlarm(atMs: number): Promise<void> {
    try {
      requireSafeInteger(atMs, { action: "set the alarm", param: "atMs" });
      if (typeof this.#actor.onAlarm !== "function") {
        throw new TypeError(
          `Cannot set the alarm of actor ${
            JSON.stringify(this.id)
          } as 'actor.onAlarm' must be a function: current value is ${this.#actor.onAlarm}`,
        );
      }
    } catch (error) {
      return Promise.reject(error);
    }
    this.#alarm = atMs;
    this.#loaded = true;
    this.#alarmVersion++;
    return this.#storage.put(ALARM_KEY, atMs);
  }

  /** Removes the alarm, if any, from memory and storage. */
  deleteAlarm(): Promise<void> {
    this.#alarm = null;
    this.#loaded = true;
    this.#alarmVersion++;
    return this.#storage.delete(ALARM_KEY);
  }

  /**
   * Runs `onAlarm` once if the alarm is due (`alarm <= now`), then clears it
   * unless the handler set a new one. Idempotent: a second call finds no
   * alarm. Runs as a step, never interleaved with a message.
   *
   * @param now The processing time in milliseconds.
   * @returns Whether the alarm fired.
   * @throws {RangeError} If `now` is not a safe integer.
   * @throws Whatever `onAlarm` throws; the alarm then stays set.
   */
  runDueAlarm(now: number = this.#clock.now()): Promise<boolean> {
    try {
      requireSafeInteger(now, { action: "run the due alarm", param: "now" });
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#exclusive(async () => {
      if (!this.#loaded) await this.#load();
      return this.#fireIfDue(now);
    });
  }

  async #fireIfDue(now: number): Promise<boolean> {
    const due = this.#alarm;
    if (due === null || due > now || !this.#actor.onAlarm) return false;
    const version = this.#alarmVersion;
    await this.#actor.onAlarm(now);
    if (this.#alarmVersion === version) await this.deleteAlarm();
    return true;
  }

  async #load(): Promise<void> {
    const version = this.#alarmVersion;
    const at = await this.#storage.get<number>(ALARM_KEY);
    if (this.#alarmVersion !== version) return; // set or deleted meanwhile
    this.#alarm = typeof at === "number" ? at : null;
    this.#loaded = true;
  }

  #exclusive<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#steps.then(step);
    this.#steps = run.catch(() => {});
    return run;
  }
}
