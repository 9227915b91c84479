// What a CheckpointStore accepts and reads back: a checkpoint to save, a
// fingerprint, and a stored manifest, each checked with a message that
// names the field.

import type { CompletedCheckpoint } from "./checkpoint.ts";
import { type Encoded, encodeStructured } from "./_codec.ts";
import { encodedSnapshots } from "./_encoded_checkpoint.ts";
import type { JobFingerprint } from "../runtime/fingerprint.ts";
import {
  describeValue,
  requirePositiveInteger,
  requireSafeInteger,
} from "../time/validate.ts";

/** A stored manifest: what makes a checkpoint complete. */
export interface Manifest {
  readonly id: number;
  readonly fingerprint: JobFingerprint;
  readonly createdAt: number;
  readonly subtaskIds: readonly string[];
  /** Per subtask with parts: where they are, as [checkpoint id, number] pairs. */
  readonly parts?: Readonly<Record<string, readonly number[]>>;
}

/** Checks a checkpoint to save; returns it typed. */
export function checkCheckpoint(value: unknown): CompletedCheckpoint {
  const action = "save checkpoint";
  if (typeof value !== "object" || value === null) {
    throw new TypeError(
      `Cannot ${action} as 'checkpoint' must be an object: current value is ${
        describeValue(value)
      }`,
    );
  }
  const checkpoint = value as CompletedCheckpoint;
  requirePositiveInteger(checkpoint.id, { action, param: "checkpoint.id" });
  checkFingerprint(checkpoint.fingerprint, action, "checkpoint.fingerprint");
  requireSafeInteger(checkpoint.createdAt, {
    action,
    param: "checkpoint.createdAt",
  });
  // Encoded by the runtime: well-formed, and not to be decoded here.
  if (encodedSnapshots(checkpoint) !== undefined) return checkpoint;
  const subtasks: unknown = checkpoint.subtasks;
  const proto = typeof subtasks === "object" && subtasks !== null
    ? Object.getPrototypeOf(subtasks)
    : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(
      `Cannot ${action} as 'checkpoint.subtasks' must be a plain object of snapshots by actor id: current value is ${
        describeValue(subtasks)
      }`,
    );
  }
  for (const [actorId, snapshot] of Object.entries(checkpoint.subtasks)) {
    if (snapshot === undefined) {
      throw new TypeError(
        `Cannot ${action} as 'checkpoint.subtasks[${
          JSON.stringify(actorId)
        }]' must be a snapshot: current value is undefined`,
      );
    }
  }
  return checkpoint;
}

/** Encodes each snapshot; the message names the one that cannot be. */
export function encodeSnapshots(
  subtasks: Readonly<Record<string, unknown>>,
): Record<string, Encoded> {
  return Object.fromEntries(
    Object.entries(subtasks).map(([actorId, snapshot]) => {
      try {
        return [actorId, encodeStructured(snapshot)];
      } catch (error) {
        throw new TypeError(
          `Cannot save checkpoint as 'checkpoint.subtasks[${
            JSON.stringify(actorId)
          }]' must be structured-cloneable data: ${error}`,
        );
      }
    }),
  );
}

/** Checks a fingerprint; the messages name `param` and its fields. */
export function checkFingerprint(
  value: unknown,
  action: string,
  param: string,
): void {
  const fail = (field: string, rule: string, current: unknown): never => {
    throw new TypeError(
      `Cannot ${action} as '${param}${field}' must be ${rule}: current value is ${
        describeValue(current)
      }`,
    );
  };
  if (typeof value !== "object" || value === null) {
    fail("", "a JobFingerprint object", value);
  }
  const fingerprint = value as JobFingerprint;
  if (typeof fingerprint.jobName !== "string") {
    fail(".jobName", "a string", fingerprint.jobName);
  }
  const ids: unknown = fingerprint.operatorIds;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string")) {
    fail(".operatorIds", "an array of strings", ids);
  }
  for (const field of ["maxParallelism", "stateFormatVersion"] as const) {
    requirePositiveInteger(fingerprint[field], {
      action,
      param: `${param}.${field}`,
    });
  }
}

/** The manifest stored for checkpoint `id`, or what is wrong with it. */
export function parseManifest(raw: unknown, id: number): Manifest | string {
  const manifest = raw as Partial<Manifest> | null;
  if (typeof manifest !== "object" || manifest === null) {
    return `it is ${describeValue(raw)}`;
  }
  if (manifest.id !== id) return `its id is ${describeValue(manifest.id)}`;
  if (!Number.isSafeInteger(manifest.createdAt)) {
    return `its createdAt is ${describeValue(manifest.createdAt)}`;
  }
  const ids: unknown = manifest.subtaskIds;
  if (!Array.isArray(ids) || ids.some((s) => typeof s !== "string")) {
    return "its subtaskIds are not an array of strings";
  }
  const parts: unknown = manifest.parts;
  if (
    parts !== undefined &&
    (typeof parts !== "object" || parts === null ||
      Object.values(parts).some((refs) =>
        !Array.isArray(refs) || refs.length % 2 !== 0 ||
        refs.some((n) => !Number.isSafeInteger(n))
      ))
  ) {
    return "its parts are not lists of [checkpoint id, number] pairs";
  }
  try {
    checkFingerprint(manifest.fingerprint, "read a manifest", "fingerprint");
  } catch (error) {
    return (error as Error).message;
  }
  return manifest as Manifest;
}
