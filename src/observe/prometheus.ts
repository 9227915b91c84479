/**
 * Every job's subtasks, health, checkpoints and dead letters in the
 * Prometheus text exposition format: what `GET /metrics` answers.
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import { healthRank, type JobHealth, jobHealth } from "./health.ts";
import { readDeadLetters } from "./dead_letters.ts";
import type { JobHandle } from "./job_handle.ts";

/** One metric family: its help, its type and its samples. */
interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: "gauge" | "counter";
  readonly samples: Array<[labels: Record<string, string>, value: number]>;
}

/** A per-subtask family read from each subtask's status. */
interface SubtaskFamily {
  readonly name: string;
  readonly help: string;
  readonly type: "gauge" | "counter";
  /** The value, or `undefined` when the subtask has none. */
  read(status: SubtaskStatus): number | undefined;
}

const SUBTASK_FAMILIES: readonly SubtaskFamily[] = [
  {
    name: "weir_subtask_input_watermark_ms",
    help:
      "Merged input watermark of the subtask (for sources: the emitted watermark), epoch milliseconds; -Inf before the first",
    type: "gauge",
    read: (s) => s.inputWatermark,
  },
  {
    name: "weir_subtask_output_watermark_ms",
    help: "Last watermark the subtask sent downstream, epoch milliseconds",
    type: "gauge",
    read: (s) => s.outputWatermark,
  },
  {
    name: "weir_subtask_watermark_lag_ms",
    help: "Processing time minus the output watermark, milliseconds",
    type: "gauge",
    read: (s) => s.watermarkLagMs,
  },
  {
    name: "weir_subtask_idle",
    help: "Whether the subtask's output is idle (1) or active (0)",
    type: "gauge",
    read: (s) => s.idle ? 1 : 0,
  },
  {
    name: "weir_subtask_paused",
    help: "Whether the subtask is paused by back-pressure or alignment (1)",
    type: "gauge",
    read: (s) => s.paused ? 1 : 0,
  },
  {
    name: "weir_subtask_records_in_total",
    help: "Records received (for sources: read) by the subtask",
    type: "counter",
    read: (s) => s.recordsIn,
  },
  {
    name: "weir_subtask_records_out_total",
    help: "Records the subtask sent downstream",
    type: "counter",
    read: (s) => s.recordsOut,
  },
  {
    name: "weir_subtask_late_records_dropped_total",
    help: "Records a window operator dropped as late",
    type: "counter",
    read: (s) => s.gauges.numLateRecordsDropped,
  },
  {
    name: "weir_subtask_mailbox_depth",
    help: "Elements waiting in the subtask's mailbox",
    type: "gauge",
    read: (s) => s.mailboxDepth,
  },
];

/**
 * Every job in the Prometheus text exposition format (version 0.0.4): the
 * body `GET /metrics` answers (see `metricsRoutes` for the families).
 *
 * A job whose health or checkpoints cannot be read is left out of those
 * families for this scrape (logged); its other families are written.
 *
 * @param jobs The jobs.
 * @param now The current processing time, epoch milliseconds.
 * @returns The exposition text.
 */
export async function prometheusText(
  jobs: Iterable<JobHandle>,
  now: number,
): Promise<string> {
  const families = SUBTASK_FAMILIES.map((f): Family => ({
    name: f.name,
    help: f.help,
    type: f.type,
    samples: [],
  }));
  const gauges: Family = {
    name: "weir_gauge",
    help: "A gauge registered by a subtask's operators or generators",
    type: "gauge",
    samples: [],
  };
  const durations: Family = {
    name: "weir_checkpoint_duration_ms",
    help: "Trigger-to-saved duration of the job's last checkpoint, ms",
    type: "gauge",
    samples: [],
  };
  const completed: Family = {
    name: "weir_checkpoints_completed",
    help: "Completed checkpoints the job lists",
    type: "gauge",
    samples: [],
  };
  const deadLetters: Family = {
    name: "weir_dead_letters_total",
    help:
      "Records the job's error policy set aside (dead-lettered or quarantined) in its dead-letter log",
    type: "counter",
    samples: [],
  };
  const health = healthFamilies();
  for (const handle of jobs) {
    const report = healthOf(handle, now);
    if (report !== null) addHealth(health, report);
    for (const status of handle.status()) {
      const labels = {
        job: handle.name,
        operator: status.operator,
        subtask: String(status.subtask),
      };
      SUBTASK_FAMILIES.forEach((f, i) => {
        const value = f.read(status);
        if (value !== undefined) families[i].samples.push([labels, value]);
      });
      for (const [name, value] of Object.entries(status.gauges)) {
        gauges.samples.push([{ ...labels, name }, value]);
      }
    }
    const checkpoints = await checkpointsOf(handle);
    completed.samples.push([{ job: handle.name }, checkpoints.length]);
    const last = checkpoints.findLast((c) => c.durationMs !== undefined);
    if (last !== undefined) {
      durations.samples.push([{ job: handle.name }, last.durationMs!]);
    }
    const letters = await readDeadLetters(handle, 0);
    if (letters !== null) {
      deadLetters.samples.push([{ job: handle.name }, letters.count]);
    }
  }
  return [
    ...families,
    gauges,
    durations,
    completed,
    deadLetters,
    ...health,
  ]
    .filter((f) => f.samples.length > 0)
    .map(render)
    .join("");
}

// The health families, in the order they are written.
const HEALTH_FAMILIES = [
  [
    "weir_operator_health",
    "Health of an operator's metric: 0 ok, 1 warn, 2 bad",
  ],
  [
    "weir_operator_watermark_lag_ms",
    "Processing time minus the operator's lowest active output watermark, ms",
  ],
  [
    "weir_operator_watermark_drift_rate",
    "Watermark advance per unit of processing time over the last minute (about 1 when healthy)",
  ],
  [
    "weir_operator_late_record_ratio",
    "Records dropped as late over records received by the operator",
  ],
  ["weir_operator_windows", "Open windows (numWindows) of the operator"],
  [
    "weir_job_health",
    "Health of the job (its worst operator): 0 ok, 1 warn, 2 bad",
  ],
  [
    "weir_job_diagnosis",
    "How many diagnoses name a cause at an operator (subtasks count apart)",
  ],
] as const;

function healthFamilies(): Family[] {
  return HEALTH_FAMILIES.map(([name, help]) => ({
    name,
    help,
    type: "gauge",
    samples: [],
  }));
}

/** Adds one job's health to the families of `healthFamilies()`. */
function addHealth(families: Family[], health: JobHealth): void {
  const [status, lag, drift, late, windows, job, diagnosis] = families;
  for (const o of health.operators) {
    const labels = { job: health.job, operator: o.operator };
    const metrics = [
      ["watermark_lag", o.watermarkLagMs, lag],
      ["drift_rate", o.driftRate, drift],
      ["late_record_ratio", o.lateRecordRatio, late],
      ["state_size", o.windows, windows],
    ] as const;
    for (const [metric, { value, status: s }, raw] of metrics) {
      status.samples.push([{ ...labels, metric }, healthRank(s)]);
      if (value !== null) raw.samples.push([labels, value]);
    }
  }
  job.samples.push([{ job: health.job }, healthRank(health.status)]);
  // One series per operator and cause: two subtasks with the same cause
  // count 2 (a repeated label set is invalid exposition).
  const counts = new Map<string, [Record<string, string>, number]>();
  for (const d of health.diagnosis) {
    const key = JSON.stringify([d.operator, d.cause]);
    const entry = counts.get(key) ??
      [{ job: health.job, operator: d.operator, cause: d.cause }, 0];
    entry[1]++;
    counts.set(key, entry);
  }
  diagnosis.samples.push(...counts.values());
}

/** A job's health; a handle that fails leaves it out of one scrape. */
function healthOf(handle: JobHandle, now: number): JobHealth | null {
  try {
    return jobHealth(handle, now);
  } catch (error) {
    console.error(
      `weir http: metrics could not compute the health of job '${handle.name}':`,
      error,
    );
    return null;
  }
}

/** A job's checkpoints; a store that fails leaves them out of one scrape. */
async function checkpointsOf(
  handle: JobHandle,
): Promise<Awaited<ReturnType<JobHandle["checkpoints"]>>> {
  try {
    return await handle.checkpoints();
  } catch (error) {
    console.error(
      `weir http: metrics could not list the checkpoints of job '${handle.name}':`,
      error,
    );
    return [];
  }
}

function render(family: Family): string {
  const lines = [
    `# HELP ${family.name} ${escapeHelp(family.help)}`,
    `# TYPE ${family.name} ${family.type}`,
  ];
  for (const [labels, value] of family.samples) {
    const pairs = Object.entries(labels).map(([k, v]) =>
      `${k}="${escapeLabel(v)}"`
    );
    lines.push(`${family.name}{${pairs.join(",")}} ${formatValue(value)}`);
  }
  return lines.join("\n") + "\n";
}

/** Prometheus floats: `+Inf`, `-Inf`, `NaN`, or the number. */
function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return String(value);
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(
    /\n/g,
    "\\n",
  );
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}
