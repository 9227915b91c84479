// The checks of a valve snapshot before a restore: its shape, and the
// invariants the valve relies on.

import { describeValue, requireWatermark } from "./validate.ts";
import type { ValveSnapshot } from "./valve_snapshot.ts";

const RESTORE = "restore StatusWatermarkValve";

/** What a checked snapshot says besides its arrays. */
export interface CheckedValve {
  /** The output watermark. */
  readonly output: number;
  /** Whether the output is idle. */
  readonly outputIdle: boolean;
  /** How many channels are active. */
  readonly active: number;
  /** How many channels are aligned. */
  readonly aligned: number;
  /** How many aligned channels sit at the output. */
  readonly atOutput: number;
}

/**
 * Checks a snapshot for a valve of `n` channels under `policy` (see
 * `StatusWatermarkValve.restore`), and counts what the valve keeps.
 */
export function checkValveSnapshot(
  snapshot: ValveSnapshot,
  n: number,
  policy: "min" | "max",
): CheckedValve {
  const max = policy === "max";
  if (typeof snapshot !== "object" || snapshot === null) {
    reject(TypeError, "snapshot", "an object", snapshot);
  }
  if (snapshot.policy !== policy) {
    reject(
      RangeError,
      "snapshot.policy",
      `"${policy}"`,
      snapshot.policy,
    );
  }
  for (const key of ["watermarks", "statuses", "aligned"] as const) {
    const values = snapshot[key];
    if (!Array.isArray(values)) {
      reject(TypeError, `snapshot.${key}`, "an array", values);
    }
    if (values.length !== n) {
      reject(
        RangeError,
        `snapshot.${key}.length`,
        `${n} (numChannels)`,
        values.length,
      );
    }
  }
  const output = requireWatermark(snapshot.outputWatermark, {
    action: RESTORE,
    param: "snapshot.outputWatermark",
  });
  const outputIdle = requireStatus(
    snapshot.outputStatus,
    "snapshot.outputStatus",
  );
  let active = 0;
  let aligned = 0;
  let atOutput = 0;
  let minAligned = Infinity;
  for (let i = 0; i < n; i++) {
    const w = requireWatermark(snapshot.watermarks[i], {
      action: RESTORE,
      param: `snapshot.watermarks[${i}]`,
    });
    const idle = requireStatus(
      snapshot.statuses[i],
      `snapshot.statuses[${i}]`,
    );
    const isAligned = snapshot.aligned[i];
    if (typeof isAligned !== "boolean") {
      reject(TypeError, `snapshot.aligned[${i}]`, "a boolean", isAligned);
    }
    // What "aligned" must be for an active channel; idle ones never are.
    const expected = !idle && (max || w >= output);
    if (isAligned !== expected) {
      reject(
        RangeError,
        `snapshot.aligned[${i}]`,
        `${expected} for this channel's status and watermark`,
        isAligned,
      );
    }
    if (max && w > output) {
      reject(
        RangeError,
        `snapshot.watermarks[${i}]`,
        `at most the output watermark ${output} under "max"`,
        w,
      );
    }
    if (!idle) active++;
    if (isAligned) {
      aligned++;
      if (w === output) atOutput++;
      if (w < minAligned) minAligned = w;
    }
  }
  if (outputIdle !== (active === 0)) {
    reject(
      RangeError,
      "snapshot.outputStatus",
      `"idle" exactly when every channel is idle`,
      snapshot.outputStatus,
    );
  }
  if (!max && aligned > 0 && minAligned !== output) {
    reject(
      RangeError,
      "snapshot.outputWatermark",
      `the minimum aligned watermark ${minAligned} under "min"`,
      output,
    );
  }
  return { output, outputIdle, active, aligned, atOutput };
}

function requireStatus(value: unknown, param: string): boolean {
  if (value !== "idle" && value !== "active") {
    reject(TypeError, param, `"idle" or "active"`, value);
  }
  return value === "idle";
}

function reject(
  ErrorClass: typeof RangeError | typeof TypeError,
  param: string,
  rule: string,
  value: unknown,
): never {
  throw new ErrorClass(
    `Cannot ${RESTORE} as '${param}' must be ${rule}: current value is ${
      describeValue(value)
    }`,
  );
}
