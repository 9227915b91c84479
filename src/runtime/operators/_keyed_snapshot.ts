// Checks of a keyed process operator's snapshot before it is restored: the
// messages name the field and its value.

import {
  describeValue,
  requireSafeInteger,
  requireWatermark,
} from "../../time/validate.ts";
import type { KeyedProcessSnapshot } from "./keyed_process_snapshot.ts";

const RESTORE = "restore KeyedProcessOperator";

function requirePairs(
  value: unknown,
  field: string,
  timers: boolean,
): Array<[unknown, unknown]> {
  const param = `state.${field}`;
  if (!Array.isArray(value)) {
    throw new TypeError(
      `Cannot ${RESTORE} as '${param}' must be an array: current value is ${
        describeValue(value)
      }`,
    );
  }
  for (let i = 0; i < value.length; i++) {
    const pair = value[i];
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new TypeError(
        `Cannot ${RESTORE} as '${param}[${i}]' must be a [key, ${
          timers ? "timestamp" : "state"
        }] pair: current value is ${describeValue(pair)}`,
      );
    }
    if (timers) {
      requireSafeInteger(pair[1], {
        action: RESTORE,
        param: `${param}[${i}][1]`,
      });
    }
  }
  return value;
}

/** Checks a restored keyed process snapshot; returns it typed. */
export function requireSnapshot<K, S>(
  state: unknown,
): KeyedProcessSnapshot<K, S> {
  if (typeof state !== "object" || state === null) {
    throw new TypeError(
      `Cannot ${RESTORE} as 'state' must be a keyed process snapshot { keyedState, eventTimers, processingTimers, currentWatermark }: current value is ${
        describeValue(state)
      }`,
    );
  }
  const s = state as Record<string, unknown>;
  requirePairs(s.keyedState, "keyedState", false);
  requirePairs(s.eventTimers, "eventTimers", true);
  requirePairs(s.processingTimers, "processingTimers", true);
  requireWatermark(s.currentWatermark, {
    action: RESTORE,
    param: "state.currentWatermark",
  });
  return state as KeyedProcessSnapshot<K, S>;
}
