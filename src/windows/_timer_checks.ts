// The argument checks of the TimerService. Action names and subjects are
// built once: these checks run per record.

import {
  describeValue,
  requireNonNegativeInteger,
  requireWatermark,
  type Subject,
} from "../time/validate.ts";

/** The action names and subjects of the TimerService checks. */
export const REGISTER_EVENT = "register event-time timer";
export const DELETE_EVENT = "delete event-time timer";
export const HAS_EVENT = "look up event-time timer";
export const REGISTER_PROCESSING = "register processing-time timer";
export const DELETE_PROCESSING = "delete processing-time timer";
export const HAS_PROCESSING = "look up processing-time timer";
export const RESTORE = "restore TimerService";
export const DELETE_ALL_ID: Subject = {
  action: "delete all timers",
  param: "id",
};
export const WATERMARK: Subject = {
  action: "advance watermark",
  param: "watermark",
};
export const WATERMARK_CALLBACK: Subject = {
  action: "advance watermark",
  param: "onTimer",
};
export const NOW: Subject = { action: "advance processing time", param: "now" };
export const NOW_CALLBACK: Subject = {
  action: "advance processing time",
  param: "onTimer",
};

/** Checks a timer's id and timestamp; throws naming `action`. */
export function checkTimer(
  id: number,
  timestamp: number,
  action: string,
): void {
  // The fast path is a few comparisons; the require* calls only build the
  // message (and pick TypeError or RangeError) once a check has failed.
  if (!(Number.isSafeInteger(id) && id >= 0)) {
    requireNonNegativeInteger(id, { action, param: "id" });
  }
  if (
    !Number.isSafeInteger(timestamp) && timestamp !== Infinity &&
    timestamp !== -Infinity
  ) {
    requireWatermark(timestamp, { action, param: "timestamp" });
  }
}

/** Checks a snapshot's flattened `(id, timestamp)` list in `field`. */
export function checkPairs(value: unknown, field: string): number[] {
  const param = `snapshot.${field}`;
  if (!Array.isArray(value)) {
    throw new TypeError(
      `Cannot ${RESTORE} as '${param}' must be an array: current value is ${
        describeValue(value)
      }`,
    );
  }
  if (value.length % 2 !== 0) {
    throw new RangeError(
      `Cannot ${RESTORE} as '${param}' must hold (id, timestamp) pairs, an even number of entries: current length is ${value.length}`,
    );
  }
  for (let i = 0; i < value.length; i += 2) {
    requireNonNegativeInteger(value[i], {
      action: RESTORE,
      param: `${param}[${i}]`,
    });
    requireWatermark(value[i + 1], {
      action: RESTORE,
      param: `${param}[${i + 1}]`,
    });
  }
  return value;
}
