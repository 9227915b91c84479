// The KV runtime's dead letters, exactly once with the step that set them
// aside: they are written in the step's own atomic commit, into the
// actor's storage (an outbox, as in the transactional-outbox pattern),
// then copied to the job's dead-letter log and deleted from the outbox. A
// crash between the two leaves them in the outbox, and the worker that
// takes the actor up copies them then; the log keeps each letter once, so
// copying twice is harmless. Letters too many or too large for the step's
// commit are written to the log before it instead: their ids are
// deterministic, so a step that is redone writes the same ones.

import type { DeadLetter } from "../../runtime/dead_letter.ts";
import type { StorageKey, StorageOp } from "../storage.ts";
import { encodedKeySize, KV_LIMITS as LIMITS } from "../../kv/mod.ts";
import { keptLetter } from "../_kept_letter.ts";
import type { DeadLetterRecorder } from "../_dead_letter_recorder.ts";
import type { DeadLetterLog } from "../dead_letter_log.ts";
import { KvStorage } from "./kv_storage.ts";

/** Where an actor's storage keeps the letters of its last steps. */
const OUTBOX = "dl";
// Letters one step commits at most: a poison flood is written ahead.
const LETTERS_PER_STEP = 64;

/** A step's operations with its letters in the outbox, or the letters to write first. */
export interface PlacedLetters {
  /** The step's operations, with the letters' outbox entries if they fit. */
  readonly ops: readonly StorageOp[];
  /** Letters in the outbox, to copy to the log once the step is committed. */
  readonly inOutbox: number;
  /** Letters that did not fit the step's commit: write them to the log first. */
  readonly first: readonly DeadLetter[];
}

/**
 * Puts a step's letters into its commit when the commit stays within Deno
 * KV's limits of mutations and written-key bytes (large values are staged
 * ahead by `KvStorage`, so bytes of values do not decide).
 *
 * @param ops The step's operations.
 * @param letters The letters its subtask set aside.
 * @param prefix The actor storage's key prefix.
 */
function placeLetters(
  ops: readonly StorageOp[],
  letters: readonly DeadLetter[],
  prefix: StorageKey,
): PlacedLetters {
  if (letters.length === 0) return { ops, inOutbox: 0, first: [] };
  const puts: StorageOp[] = letters.map((letter) => ({
    type: "put",
    key: [OUTBOX, letter.id],
    // Writable whatever the record held, or the step would never commit.
    value: keptLetter(letter),
  }));
  const all = [...ops, ...puts];
  let keyBytes = 0;
  for (const op of all) {
    if (op.type === "put") keyBytes += encodedKeySize([...prefix, ...op.key]);
  }
  // One mutation more for the marker of staged parts, if any.
  const fits = letters.length <= LETTERS_PER_STEP &&
    all.length + 1 <= LIMITS.mutations && keyBytes <= LIMITS.keyTotalBytes;
  return fits
    ? { ops: all, inOutbox: letters.length, first: [] }
    : { ops, inOutbox: 0, first: letters };
}

/**
 * Copies the letters in an actor's outbox to the job's log, then deletes
 * them from the outbox (under the caller's lease check).
 *
 * @param storage The actor's storage.
 * @param recorder Writes to the job's log, counts and reports.
 * @param checks The lease check of the actor's writes.
 * @returns How many letters were copied.
 */
export async function moveOutbox(
  storage: KvStorage,
  recorder: DeadLetterRecorder,
  checks: readonly Deno.AtomicCheck[],
): Promise<number> {
  const entries = await storage.list<DeadLetter>([OUTBOX]);
  if (entries.length === 0) return 0;
  await recorder.write(entries.map(([, letter]) => letter));
  const deletes: StorageOp[] = entries.map(([key]) => ({
    type: "delete",
    key,
  }));
  for (let i = 0; i < deletes.length; i += LETTERS_PER_STEP) {
    await storage.atomic(deletes.slice(i, i + LETTERS_PER_STEP), { checks });
  }
  return entries.length;
}

/** What {@linkcode commitWithLetters} commits. */
export interface StepWithLetters {
  /** The actor, for messages. */
  readonly actor: string;
  /** Its storage. */
  readonly storage: KvStorage;
  /** The step's operations. */
  readonly ops: readonly StorageOp[];
  /** Keys of `ops` known to hold nothing (see `KvAtomicOptions.absent`). */
  readonly absent?: readonly StorageKey[];
  /** The letters its subtask set aside. */
  readonly letters: readonly DeadLetter[];
  /** Writes to the job's log. */
  readonly recorder: DeadLetterRecorder;
  /** The lease check of the actor's writes. */
  readonly checks: readonly Deno.AtomicCheck[];
  /** Retries transient KV errors. */
  readonly retry: <T>(what: string, call: () => Promise<T>) => Promise<T>;
}

/**
 * Commits a step with its letters (in its outbox, copied to the log once
 * the step is committed), or writes them to the log first when they do not
 * fit the step's commit.
 *
 * @param step The step's operations, its letters, and where they go.
 */
export async function commitWithLetters(step: StepWithLetters): Promise<void> {
  const { actor, storage, letters, recorder, checks, retry } = step;
  const { ops, inOutbox, first } = placeLetters(
    step.ops,
    letters,
    storage.prefix,
  );
  if (first.length > 0) {
    await retry(
      `write the dead letters of actor '${actor}'`,
      () => recorder.write(first),
    );
  }
  // A try that threw may have been applied: the next reads what is there.
  let absent = step.absent;
  await retry(`commit a step of actor '${actor}'`, () => {
    const tried = absent;
    absent = undefined;
    return storage.atomic(ops, { checks, absent: tried });
  });
  if (inOutbox > 0) {
    await retry(
      `copy the dead letters of actor '${actor}'`,
      () => moveOutbox(storage, recorder, checks),
    );
  }
}

// Letters per append: one atomic batch of the log (see DeadLetterRecorder).
const LETTERS_PER_APPEND = 50;

/**
 * Copies the letters of every actor's outbox under a job's KV-runtime
 * prefix to the job's log, as `KvRuntime.reset` must before it deletes the
 * actors: a worker that crashed between a step's commit and the copy left
 * them there, and only a worker that takes the actor up again copies them.
 *
 * @param kv The database.
 * @param base The job's KV-runtime prefix (`["weir", job, "kvrt"]`).
 * @param log The job's dead-letter log.
 * @returns How many letters were in outboxes.
 */
export async function copyOutboxes(
  kv: Deno.Kv,
  base: readonly string[],
  log: DeadLetterLog,
): Promise<number> {
  // The actors with an outbox entry: [...base, "a", actor, "v", OUTBOX, id]
  // (a KvStorage keeps its values under "v").
  const actors = new Set<string>();
  const n = base.length;
  for await (const entry of kv.list({ prefix: [...base, "a"] })) {
    if (entry.key[n + 2] === "v" && entry.key[n + 3] === OUTBOX) {
      actors.add(String(entry.key[n + 1]));
    }
  }
  let copied = 0;
  for (const actor of actors) {
    const storage = new KvStorage(kv, [...base, "a", actor]);
    const letters = (await storage.list<DeadLetter>([OUTBOX]))
      .map(([, letter]) => letter);
    for (let i = 0; i < letters.length; i += LETTERS_PER_APPEND) {
      await log.append(letters.slice(i, i + LETTERS_PER_APPEND));
    }
    copied += letters.length;
  }
  return copied;
}
