/**
 * A job file on a store: its module loaded (or the default job's), its
 * settings resolved against the flags, its environment built over the
 * store, its ingest streams, and the checkpoint `--restore` asks for.
 *
 * @module
 */

import {
  type CheckpointInfo,
  CheckpointStore,
  type CompletedCheckpoint,
  jobKeyPrefix,
  KvRuntime,
  KvStorage,
} from "../actors/mod.ts";
import {
  createJobContext,
  type JobDefinition,
  type JobSettings,
  type ResolvedJobSettings,
  resolveJobSettings,
  StreamEnvironment,
} from "../api/mod.ts";
import { SystemClock } from "../time/mod.ts";
import { type Restore, restoreFlagError } from "./restore_flag.ts";

/** A job file's module: its job and its settings. */
export interface JobModule {
  /** The job: `(context) => void`. */
  readonly default?: unknown;
  /** Its `settings` export. */
  readonly settings?: unknown;
}

/** The job run when no job file is given. */
export interface DefaultJob {
  /** Its name, e.g. `"demo"`. */
  readonly name: string;
  /** Its file, as the settings line names it. */
  readonly file: string;
  /** Loads its module. */
  readonly load: () => Promise<JobModule>;
}

/**
 * The job run when no job file is given: the one `WEIR_JOB` names among
 * `jobs`, or `fallback` when it is unset. On Deno Deploy, whose
 * `deploy.runtime.args` are fixed, this is how a job other than the demo is
 * chosen; `jobs` are loaded by string literals, which Deploy includes.
 *
 * @param name `WEIR_JOB`'s value, e.g. `"examples/ingest_counts.ts"`.
 * @param jobs The job files it may name, each with its loader.
 * @param fallback The job when it is unset.
 * @returns The job, named after its file (without `.ts`).
 * @throws {RangeError} If it names none of `jobs`: naming them.
 */
export function chooseDefaultJob(
  name: string | undefined,
  jobs: Readonly<Record<string, () => Promise<JobModule>>>,
  fallback: DefaultJob,
): DefaultJob {
  if (name === undefined) return fallback;
  const file = name.replace(/^\.\//, "");
  const load = Object.hasOwn(jobs, file) ? jobs[file] : undefined;
  if (load === undefined) {
    throw new RangeError(
      `Cannot start as 'WEIR_JOB' must name one of ${
        Object.keys(jobs).join(", ")
      } (list another in main.ts): current value is ${JSON.stringify(name)}`,
    );
  }
  return { name: file.split("/").pop()!.replace(/\.[jt]s$/, ""), file, load };
}

async function loadJob(
  file: string | undefined,
  defaultJob: DefaultJob,
): Promise<{ name: string; define: JobDefinition; settings: unknown }> {
  if (file === undefined) {
    const module = await defaultJob.load();
    return {
      name: defaultJob.name,
      define: module.default as JobDefinition,
      settings: module.settings,
    };
  }
  const url = new URL(file, `file://${Deno.cwd()}/`).href;
  let module: JobModule;
  try {
    module = await import(url);
  } catch (error) {
    throw new Error(
      `Cannot load the job file '${file}': ${
        error instanceof Error ? error.message.split("\n")[0] : String(error)
      }`,
    );
  }
  if (typeof module.default !== "function") {
    throw new TypeError(
      `Cannot load the job file '${file}' as its default export must be a function (context) => void: current value is ${typeof module
        .default}`,
    );
  }
  const name = file.split("/").pop()!.replace(/\.[jt]s$/, "");
  return {
    name,
    define: module.default as JobDefinition,
    settings: module.settings,
  };
}

/**
 * A job file's job on a store: the environment (with the job's settings,
 * overridden by the flags) and its ingest streams.
 *
 * @param file The job file; `undefined` for the default job.
 * @param defaultJob The job run without a job file.
 * @param kv The store.
 * @param flags The settings given on the command line.
 * @returns The job's name, environment, clock, streams, resolved settings
 * and checkpoint store.
 * @throws {Error} If the file cannot be loaded or its settings are wrong.
 */
export async function openJob(
  file: string | undefined,
  defaultJob: DefaultJob,
  kv: Deno.Kv,
  flags: JobSettings,
): Promise<OpenJob> {
  const { name, define, settings: own } = await loadJob(file, defaultJob);
  const settings = resolveJobSettings(own, {
    flags,
    jobFile: file ?? defaultJob.file,
  });
  const clock = new SystemClock();
  const prefix = jobKeyPrefix(name);
  const storage = new KvStorage(kv, [...prefix, "checkpoints"]);
  const env = new StreamEnvironment({
    jobName: name,
    parallelism: settings.parallelism,
    clock,
    checkpointIntervalMs: settings.checkpointIntervalMs,
    watermarkRecovery: settings.watermarkRecovery,
    errorPolicy: settings.errorPolicy,
    checkpointStorage: storage,
    // Next to the checkpoints; the KV runtime keeps them there too.
    deadLetterStorage: new KvStorage(kv, [...prefix, "dead-letters"]),
    strikeStorage: new KvStorage(kv, [...prefix, "strikes"]),
  });
  const { context, streams } = createJobContext(env, kv);
  await define(context);
  return {
    name,
    env,
    clock,
    streams,
    settings,
    store: new CheckpointStore(storage),
  };
}

/**
 * The checkpoint `--restore` asks for, of a job opened by
 * {@linkcode openJob}.
 *
 * @param job The job.
 * @param restore The `--restore` given.
 * @returns The checkpoint, or `null` to start fresh.
 * @throws {RangeError} If a checkpoint id names no complete checkpoint:
 * naming `--restore`, with the complete ones.
 * @throws {Error} What `StreamEnvironment.findCheckpoint` throws otherwise.
 */
export async function findRestored(
  job: OpenJob,
  restore: Restore,
): Promise<CompletedCheckpoint | null> {
  try {
    return await job.env.findCheckpoint(restore);
  } catch (error) {
    throw restoreFlagError(error, restore);
  }
}

/**
 * How a job on the KV runtime starts, read before anything is reset: so
 * that a start says whether it resumed, restored or began anew, and the
 * dashboard which checkpoint it started from.
 *
 * @param kv The store.
 * @param job The job (its name).
 * @param restore The `--restore` given.
 * @param checkpoint What {@linkcode findRestored} found for it.
 * @returns In words (e.g. "resuming from its actors' committed state"),
 * and the checkpoint it starts from: `null` for none, `undefined` when it
 * resumes from its actors (which checkpoint they last took is not known).
 */
export async function kvStartOf(
  kv: Deno.Kv,
  job: Pick<OpenJob, "name">,
  restore: Restore,
  checkpoint: CompletedCheckpoint | null,
): Promise<KvStart> {
  if (restore === "latest" && await KvRuntime.started(kv, job.name)) {
    return {
      text: "resuming from its actors' committed state",
      restoredFrom: undefined,
    };
  }
  return checkpoint !== null
    ? {
      text: `starting from checkpoint ${checkpoint.id}`,
      restoredFrom: { id: checkpoint.id, createdAt: checkpoint.createdAt },
    }
    : { text: "starting afresh", restoredFrom: null };
}

/** How a job on the KV runtime starts (see {@linkcode kvStartOf}). */
export interface KvStart {
  /** In words, for the start line. */
  readonly text: string;
  /** The checkpoint it starts from; `undefined` when not known. */
  readonly restoredFrom: CheckpointInfo | null | undefined;
}

/** A job file's job, opened on a store by {@linkcode openJob}. */
export interface OpenJob {
  /** Its name: the file's, without `.ts`. */
  readonly name: string;
  /** Its environment, the job defined in it. */
  readonly env: StreamEnvironment;
  /** The system clock it runs on. */
  readonly clock: SystemClock;
  /** Its ingest streams. */
  readonly streams: ReturnType<typeof createJobContext>["streams"];
  /** The settings it runs with, and where each came from. */
  readonly settings: ResolvedJobSettings;
  /** Its checkpoints. */
  readonly store: CheckpointStore;
}
