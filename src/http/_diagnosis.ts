/**
 * What holds a job's event time back, read from its live state: the
 * detection shared by `explain` (why one window has not fired) and `health`
 * (what is wrong with a job), following the causes users fight in seed 000
 * §5.1 and seed 004 §3–4. Internal to the http layer.
 *
 * Every detector reads the plan, the subtasks' current status, their input
 * channels and the sampled history; none changes the job. Each names the
 * operator (and subtask) to look at, the evidence it saw, and the fix.
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import type { JobGraph, JobVertex } from "../runtime/job_graph.ts";
import type { GaugeSample } from "./job_handle.ts";
import type { JobHandle, WatermarkSample } from "./service.ts";
import { stuckActors } from "./_stuck_actors.ts";

/**
 * A job as the diagnosis reads it: a {@linkcode JobHandle} that may also
 * name the partitions a source subtask reads and keep a history of counters
 * and gauges (`LocalJobHandle` does both). Without them the detectors that
 * need them stay silent.
 */
export interface DiagnosableJob extends JobHandle {
  /** The partitions a source subtask reads; none for other subtasks. */
  sourcePartitions?(actorId: string): readonly string[];
  /** Counters and gauges sampled with `history()`, oldest first. */
  gaugeHistory?(): readonly GaugeSample[];
}

/** What a diagnosis names. */
export type DiagnosisCause =
  | "silent-partition"
  | "timestamps-in-seconds"
  | "back-pressure"
  | "generator-never-emits"
  | "window-never-fires"
  | "state-growth"
  | "stuck-actor";

/** One cause found in a job's live state, with its evidence and fix. */
export interface Diagnosis {
  /** The cause. */
  readonly cause: DiagnosisCause;
  /** The operator (vertex id) to look at: where the fix applies. */
  readonly operator: string;
  /** The subtask index, when one subtask is the cause. */
  readonly subtask?: number;
  /** What was seen, with values, in plain language. */
  readonly evidence: string;
  /** What to change. */
  readonly fix: string;
}

/** How long things must last before the detectors call them stuck. */
export interface DiagnosisWindows {
  /** How long a watermark must stand still to be called stalled, in ms. */
  readonly stallMs: number;
  /** How far back trends (growth, advance) are read, in ms. */
  readonly lookbackMs: number;
}

// Watermarks between 1970-01-02 and 1973-03-03: epoch seconds of the years
// 1973 to 5138 read as milliseconds (seed 000 §5.1, third cause). Below a
// day they are more likely small test timestamps than seconds.
const SECONDS_LOW = 1e8;
const SECONDS_HIGH = 1e11;

/** The idle timeout the diagnosis suggests (seed 000 §5.2: 3–5 × the usual gap). */
const IDLENESS_FIX =
  "add .withIdleness(30_000) to the WatermarkStrategy (a timeout of 3–5 × the usual gap between a partition's records) so that a silent partition stops holding event time back";

/**
 * Whether a watermark looks like epoch seconds read as milliseconds: in
 * `[1e8, 1e11)`, i.e. between 1970-01-02 and 1973-03-03.
 *
 * @param watermark A watermark, epoch milliseconds.
 * @returns `true` for a watermark in that range.
 */
export function looksLikeSeconds(watermark: number): boolean {
  return watermark >= SECONDS_LOW && watermark < SECONDS_HIGH;
}

/**
 * The actor feeding a channel: channels are numbered edge by edge in the
 * graph's order, then by upstream subtask (as the local runtime wires them).
 *
 * @param graph The plan.
 * @param vertexId The receiving vertex.
 * @param channel The channel number.
 * @returns The upstream actor id, or `job/?/channel` if out of range.
 */
export function upstreamActor(
  graph: JobGraph,
  vertexId: string,
  channel: number,
): string {
  let offset = 0;
  for (const edge of graph.edges) {
    if (edge.to !== vertexId) continue;
    const from = graph.vertices.find((v) => v.id === edge.from)!;
    if (channel < offset + from.parallelism) {
      return `${graph.jobName}/${from.id}/${channel - offset}`;
    }
    offset += from.parallelism;
  }
  return `${graph.jobName}/?/${channel}`;
}

/**
 * The channel with the lowest watermark.
 *
 * @param channels Channels (or anything with a watermark).
 * @returns The first lowest, or `null` for none.
 */
export function lowest<C extends { watermark: number }>(
  channels: readonly C[],
): C | null {
  let min: C | null = null;
  for (const c of channels) {
    if (min === null || c.watermark < min.watermark) min = c;
  }
  return min;
}

/**
 * The subtask downstream of `status` with the most elements waiting: the
 * one that back-pressures it when `status` is paused.
 *
 * @param graph The plan.
 * @param statuses Every subtask's status.
 * @param status The (paused) subtask.
 * @returns The fullest downstream subtask, or `null` when none has mail.
 */
export function fullestDownstream(
  graph: JobGraph,
  statuses: Iterable<SubtaskStatus>,
  status: SubtaskStatus,
): SubtaskStatus | null {
  const downstream = graph.edges
    .filter((e) => e.from === status.operator)
    .map((e) => e.to);
  let fullest: SubtaskStatus | null = null;
  for (const s of statuses) {
    if (!downstream.includes(s.operator)) continue;
    if (fullest === null || s.mailboxDepth > fullest.mailboxDepth) fullest = s;
  }
  return fullest === null || fullest.mailboxDepth === 0 ? null : fullest;
}

/**
 * What a source subtask at the root of a stall reads, in words.
 *
 * @param job The job.
 * @param statuses Every subtask's status by actor id.
 * @param id The actor id.
 * @returns A phrase naming its partitions and how many records it read.
 */
export function describeSource(
  job: DiagnosableJob,
  statuses: ReadonlyMap<string, SubtaskStatus>,
  id: string,
): string {
  const status = statuses.get(id);
  const vertex = job.graph.vertices.find((v) => v.id === status?.operator);
  if (status === undefined || vertex?.source === undefined) {
    return `the minimum comes from ${id}, whose own inputs hold it back`;
  }
  const partitions = job.sourcePartitions?.(id) ?? [];
  const reads = partitions.length === 0
    ? ""
    : ` (partition${partitions.length > 1 ? "s" : ""} ${
      partitions.join(", ")
    })`;
  if (status.recordsIn === 0) {
    return `source subtask ${id}${reads} has read no records, so its partitions may be silent`;
  }
  const records = status.recordsIn === 1
    ? "1 record"
    : `${status.recordsIn} records`;
  return `source subtask ${id}${reads} has read ${records}, but a source emits the minimum over its partitions, so one of them may be silent`;
}

/**
 * A watermark for people: the number and, when finite, its UTC time.
 *
 * @param watermark Epoch milliseconds, or `±Infinity`.
 * @returns E.g. `1700000000000 (2023-11-14T22:13:20.000Z)` or `-Infinity`.
 */
export function formatWatermark(watermark: number): string {
  if (watermark === -Infinity) return "-Infinity";
  if (watermark === Infinity) return "+Infinity";
  const date = new Date(watermark);
  return Number.isNaN(date.getTime())
    ? String(watermark)
    : `${watermark} (${date.toISOString()})`;
}

/**
 * A duration for people: "250 ms", "40 s", "1.5 s".
 *
 * @param ms Milliseconds.
 * @returns The text; "forever" for `Infinity`.
 */
export function formatDuration(ms: number): string {
  if (ms === Infinity) return "forever";
  if (Math.abs(ms) < 1_000) return `${ms} ms`;
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * Every cause the detectors find in the job's live state, in the order
 * silent partitions, timestamps in seconds, back-pressure, generators that
 * never emit, windows that never fire, state growth; none for a healthy
 * job. See `jobHealth` in `health.ts` for what each detector requires.
 *
 * Cost: one status read, the input channels of every non-source subtask,
 * and one pass over the samples of the last `lookbackMs`.
 *
 * @param job The job.
 * @param now The current processing time, epoch milliseconds.
 * @param windows How long a stall and a trend must last.
 * @returns The diagnoses.
 */
export function diagnose(
  job: DiagnosableJob,
  now: number,
  windows: DiagnosisWindows,
): Diagnosis[] {
  const statuses = job.status();
  const history = job.history();
  const gauges = job.gaugeHistory?.() ?? null;
  const from = now - windows.lookbackMs;
  const scene: Scene = {
    job,
    graph: job.graph,
    statuses: new Map(statuses.map((s) => [s.id, s])),
    now,
    windows,
    since: history[0]?.at ?? null,
    history,
    recent: history.filter((s) => s.at >= from && s.at <= now),
    allGauges: gauges ?? [],
    gauges: gauges?.filter((s) => s.at >= from && s.at <= now) ?? null,
  };
  const found: Diagnosis[] = [];
  detectSilentPartitions(scene, found);
  detectSeconds(scene, found);
  detectBackPressure(scene, found);
  detectSilentGenerators(scene, found);
  detectWindowTrends(scene, found);
  found.push(...stuckActors(statuses, now));
  return found;
}

interface Scene {
  readonly job: DiagnosableJob;
  readonly graph: JobGraph;
  readonly statuses: ReadonlyMap<string, SubtaskStatus>;
  readonly now: number;
  readonly windows: DiagnosisWindows;
  /** The first sample's time: since when a `-Infinity` channel is watched. */
  readonly since: number | null;
  readonly history: readonly WatermarkSample[];
  /** The watermark samples of the last `lookbackMs`. */
  readonly recent: readonly WatermarkSample[];
  /** Every gauge sample kept (none if the handle keeps none). */
  readonly allGauges: readonly GaugeSample[];
  /** The gauge samples of the last `lookbackMs`, or `null` if not kept. */
  readonly gauges: readonly GaugeSample[] | null;
}

function vertexOf(scene: Scene, id: string): JobVertex | undefined {
  return scene.graph.vertices.find((v) => v.id === id);
}

function subtasksOf(scene: Scene, vertex: JobVertex): SubtaskStatus[] {
  return [...scene.statuses.values()].filter((s) => s.operator === vertex.id);
}

/**
 * (a) A channel from a source subtask stands still (at `-Infinity`, or not
 * moved for `stallMs`) while another channel of the same subtask advances,
 * and neither it nor its source is idle, in a strategy without idleness:
 * one of the source's partitions is silent (seed 000 §5.1, first cause).
 * A source subtask that feeds no such comparison (parallelism 1) is caught
 * when it reads records from several partitions but its watermark stands
 * still.
 */
function detectSilentPartitions(scene: Scene, found: Diagnosis[]): void {
  const { graph, statuses, now, windows } = scene;
  // Per stuck source subtask: the subtasks that see it, and what the first saw.
  const stuck = new Map<string, { observers: string[]; seen: string }>();
  for (const status of statuses.values()) {
    const vertex = vertexOf(scene, status.operator);
    if (vertex === undefined || vertex.source !== undefined) continue;
    const active = scene.job.inputChannels(status.id).filter((c) => !c.idle);
    for (const channel of active) {
      const upstream = upstreamActor(graph, vertex.id, channel.channel);
      const source = statuses.get(upstream);
      const sourceVertex = vertexOf(scene, source?.operator ?? "");
      if (!silentCandidate(source, sourceVertex)) continue;
      const from = channel.lastMovedAt ?? scene.since;
      const stalled = from === null ? 0 : now - from;
      if (stalled < windows.stallMs) continue;
      const ahead = active.find((c) =>
        c.watermark > channel.watermark && c.lastMovedAt !== null &&
        now - c.lastMovedAt < windows.stallMs
      );
      if (ahead === undefined) continue;
      if (readsFromOnePartition(scene, source!)) continue;
      const entry = stuck.get(upstream) ?? {
        observers: [],
        seen: `(from ${upstream}) stayed at ${
          formatWatermark(channel.watermark)
        } for ${
          formatDuration(stalled)
        } while channel ${ahead.channel} advanced to ${
          formatWatermark(ahead.watermark)
        }`,
      };
      entry.observers.push(`channel ${channel.channel} of ${status.id}`);
      stuck.set(upstream, entry);
    }
  }
  for (const [upstream, { observers, seen }] of stuck) {
    const source = statuses.get(upstream)!;
    found.push({
      cause: "silent-partition",
      operator: source.operator,
      subtask: source.subtask,
      evidence: `${observers.join(" and ")} ${seen}, and ${
        observers.length === 1 ? "it is" : "they are"
      } not idle: ${describeSource(scene.job, statuses, upstream)}`,
      fix: IDLENESS_FIX,
    });
  }
  for (const source of statuses.values()) {
    if (stuck.has(source.id)) continue;
    const vertex = vertexOf(scene, source.operator);
    if (!silentCandidate(source, vertex)) continue;
    if (scene.graph.autoWatermarkIntervalMs === 0) continue; // cause (d)
    const partitions = scene.job.sourcePartitions?.(source.id) ?? [];
    if (partitions.length < 2) continue;
    const stalled = unmovedFor(scene, source);
    if (stalled === null || stalled < windows.stallMs) continue;
    const read = recordsReadIn(scene, source, windows.stallMs);
    if (read === null || read === 0) continue;
    found.push({
      cause: "silent-partition",
      operator: source.operator,
      subtask: source.subtask,
      evidence: `the watermark of ${source.id} has stayed at ${
        formatWatermark(source.outputWatermark)
      } for ${
        formatDuration(stalled)
      } although it read ${read} records in the last ${
        formatDuration(windows.stallMs)
      } from partitions ${
        partitions.join(", ")
      }: a source emits the minimum over its partitions, so one of them ${
        source.outputWatermark === -Infinity
          ? "has sent no record yet"
          : "is silent (or its timestamps stopped increasing)"
      }`,
      fix: IDLENESS_FIX,
    });
  }
}

/** A live, unfinished source subtask without idleness in its strategy. */
function silentCandidate(
  source: SubtaskStatus | undefined,
  vertex: JobVertex | undefined,
): boolean {
  return source !== undefined && vertex?.source !== undefined &&
    vertex.source.strategy.idleTimeoutMs === null && !source.idle &&
    source.outputWatermark !== Infinity;
}

/**
 * A source subtask reading one partition that keeps reading records is not
 * silent: its timestamps stopped increasing, which idleness does not fix.
 */
function readsFromOnePartition(scene: Scene, source: SubtaskStatus): boolean {
  const partitions = scene.job.sourcePartitions?.(source.id);
  if (partitions === undefined || partitions.length !== 1) return false;
  const read = recordsReadIn(scene, source, scene.windows.stallMs);
  return read !== null && read > 0;
}

/** Records a subtask read in the last `ms`, from the gauge history. */
function recordsReadIn(
  scene: Scene,
  status: SubtaskStatus,
  ms: number,
): number | null {
  const before = scene.allGauges.findLast((s) => s.at <= scene.now - ms);
  const then = before?.subtasks[status.id]?.recordsIn;
  return then === undefined ? null : status.recordsIn - then;
}

/** How long a subtask's output watermark has stood still, from the samples. */
function unmovedFor(scene: Scene, status: SubtaskStatus): number | null {
  let since: number | null = null;
  for (let i = scene.history.length - 1; i >= 0; i--) {
    const sample = scene.history[i].subtasks[status.id];
    if (sample === undefined) break;
    if (!Object.is(sample.outputWatermark, status.outputWatermark)) break;
    since = scene.history[i].at;
  }
  return since === null ? null : scene.now - since;
}

/**
 * (b) The output watermark of the first vertex on a path is in 1970: event
 * timestamps are epoch seconds (seed 000 §5.1, third cause).
 */
function detectSeconds(scene: Scene, found: Diagnosis[]): void {
  const flagged = new Set<string>();
  for (const vertex of scene.graph.vertices) {
    const upstream = scene.graph.edges.filter((e) => e.to === vertex.id);
    if (upstream.some((e) => flagged.has(e.from))) {
      flagged.add(vertex.id);
      continue;
    }
    const seconds = subtasksOf(scene, vertex).filter((s) =>
      looksLikeSeconds(s.outputWatermark)
    );
    if (seconds.length === 0) continue;
    flagged.add(vertex.id);
    const [first] = seconds;
    found.push({
      cause: "timestamps-in-seconds",
      operator: vertex.id,
      ...(seconds.length === 1 ? { subtask: first.subtask } : {}),
      evidence: `the watermark${seconds.length === 1 ? " of" : "s of"} ${
        seconds.map((s) => s.id).join(", ")
      } ${seconds.length === 1 ? "is" : "are"} in 1970 (${
        formatWatermark(first.outputWatermark)
      }): the timestamps look like epoch seconds, so event time moves a thousand times too slowly and windows do not fire`,
      fix:
        "multiply the timestamp by 1000 in withTimestampAssigner (weir's timestamps are epoch milliseconds)",
    });
  }
}

/**
 * (c) Subtasks paused because a downstream mailbox is full: watermarks
 * queue behind records (seed 000 §5.1, second cause). The chain of full
 * mailboxes is followed to the operator that is actually slow.
 */
function detectBackPressure(scene: Scene, found: Diagnosis[]): void {
  const all = [...scene.statuses.values()];
  const byRoot = new Map<string, string[]>();
  for (const status of all) {
    if (!status.paused) continue;
    let root = fullestDownstream(scene.graph, all, status);
    if (root === null) continue; // alignment or suspended: not back-pressure
    for (let depth = 0; depth < all.length && root.paused; depth++) {
      const next = fullestDownstream(scene.graph, all, root);
      if (next === null) break;
      root = next;
    }
    const paused = byRoot.get(root.id) ?? [];
    paused.push(status.id);
    byRoot.set(root.id, paused);
  }
  for (const [id, paused] of byRoot) {
    const root = scene.statuses.get(id)!;
    const name = vertexOf(scene, root.operator)?.name ?? root.operator;
    const verb = paused.length === 1 ? "is" : "are";
    found.push({
      cause: "back-pressure",
      operator: root.operator,
      subtask: root.subtask,
      evidence: `${
        paused.join(", ")
      } ${verb} paused by back-pressure: ${id} cannot keep up (${root.mailboxDepth} elements wait in its mailbox), and watermarks queue behind records, so event time is held by ${root.operator}'s speed rather than by the watermark generator`,
      fix:
        `speed up or scale out ${root.operator} (${name}): raise its parallelism or make it cheaper per record`,
    });
  }
}

/**
 * (d) A source that reads records but has never emitted a watermark:
 * periodic watermarks are disabled (`autoWatermarkIntervalMs` is 0), or
 * the strategy emits none (`noWatermarks()`, a punctuated generator that
 * never saw its marker).
 */
function detectSilentGenerators(scene: Scene, found: Diagnosis[]): void {
  const disabled = scene.graph.autoWatermarkIntervalMs === 0;
  for (const vertex of scene.graph.vertices) {
    if (vertex.source === undefined) continue;
    const silent = subtasksOf(scene, vertex).filter((s) =>
      !s.idle && s.recordsIn > 0 && s.outputWatermark === -Infinity &&
      (disabled || neverEmitted(scene, s) !== null)
    );
    if (silent.length === 0) continue;
    const records = silent.reduce((n, s) => n + s.recordsIn, 0);
    const ids = silent.map((s) => s.id).join(", ");
    found.push(
      disabled
        ? {
          cause: "generator-never-emits",
          operator: vertex.id,
          evidence:
            `${ids} read ${records} records but emitted no watermark: periodic watermarks are disabled (autoWatermarkIntervalMs is 0), so periodic generators such as forBoundedOutOfOrderness never emit`,
          fix:
            "set autoWatermarkIntervalMs (e.g. 200) or use a punctuated generator",
        }
        : {
          cause: "generator-never-emits",
          operator: vertex.id,
          evidence:
            `${ids} read ${records} records from a single partition each but emitted no watermark in the ${
              formatDuration(neverEmitted(scene, silent[0])!)
            } observed: the strategy emits none (noWatermarks(), or a punctuated generator that never saw its marker)`,
          fix:
            "use a strategy that emits watermarks, e.g. WatermarkStrategy.forBoundedOutOfOrderness(5_000), or make the punctuated generator emit on its marker records",
        },
    );
  }
}

/**
 * How long a single-partition source subtask has been seen at its
 * watermark, if at least `stallMs`; otherwise `null`.
 */
function neverEmitted(scene: Scene, status: SubtaskStatus): number | null {
  const partitions = scene.job.sourcePartitions?.(status.id);
  if (partitions === undefined || partitions.length !== 1) return null;
  const watched = unmovedFor(scene, status);
  return watched !== null && watched >= scene.windows.stallMs ? watched : null;
}

/**
 * (e) and (f): a window operator whose `numWindows` grew and never fell
 * over the last `lookbackMs` (at least half of it sampled). If its input
 * watermark stood still, state grows without cleanup (f); if the watermark
 * advanced by more than the window size plus allowed lateness, windows that
 * should have closed did not: the out-of-orderness bound exceeds the window
 * (e). Needs the gauge history; (e) also the window size in the plan.
 */
function detectWindowTrends(scene: Scene, found: Diagnosis[]): void {
  if (scene.gauges === null) return;
  const minSpan = scene.windows.lookbackMs / 2;
  for (const vertex of scene.graph.vertices) {
    const ids = subtasksOf(scene, vertex).map((s) => s.id);
    const series = scene.gauges.flatMap((sample) => {
      const counts = ids.map((id) => sample.subtasks[id]?.gauges.numWindows);
      if (counts.some((n) => n === undefined)) return [];
      return [{ at: sample.at, windows: counts.reduce((a, b) => a! + b!, 0)! }];
    });
    const watermarks = scene.recent.flatMap((sample) => {
      const w = inputWatermarkOf(sample, ids);
      return w === undefined ? [] : [{ at: sample.at, watermark: w }];
    });
    if (series.length < 2 || watermarks.length < 2) continue;
    const stuck = trend(series, watermarks[0], watermarks.at(-1)!, minSpan);
    if (stuck !== null && stuck.first.watermark === stuck.last.watermark) {
      found.push(stateGrowth(vertex, stuck));
      continue;
    }
    if (vertex.windowSizeMs === undefined) continue;
    const finite = watermarks.filter((w) => Number.isFinite(w.watermark));
    if (finite.length < 2) continue;
    const moving = trend(
      series.filter((s) => s.at >= finite[0].at),
      finite[0],
      finite.at(-1)!,
      minSpan,
    );
    const needed = vertex.windowSizeMs + (vertex.allowedLatenessMs ?? 0);
    if (moving === null) continue;
    if (moving.last.watermark - moving.first.watermark < needed) continue;
    found.push(windowNeverFires(vertex, moving));
  }
}

interface Trend {
  readonly span: number;
  readonly from: number;
  readonly to: number;
  readonly first: { readonly watermark: number };
  readonly last: { readonly watermark: number };
}

/** `numWindows` grew and never fell over at least `minSpan`, or `null`. */
function trend(
  series: ReadonlyArray<{ at: number; windows: number }>,
  first: { at: number; watermark: number },
  last: { at: number; watermark: number },
  minSpan: number,
): Trend | null {
  if (series.length < 2) return null;
  const span = series.at(-1)!.at - series[0].at;
  if (span < minSpan || last.at - first.at < minSpan) return null;
  for (let i = 1; i < series.length; i++) {
    if (series[i].windows < series[i - 1].windows) return null;
  }
  const from = series[0].windows;
  const to = series.at(-1)!.windows;
  return to > from ? { span, from, to, first, last } : null;
}

function stateGrowth(vertex: JobVertex, t: Trend): Diagnosis {
  return {
    cause: "state-growth",
    operator: vertex.id,
    evidence: `numWindows of ${vertex.id} grew from ${t.from} to ${t.to} in ${
      formatDuration(t.span)
    } while its input watermark stayed at ${
      formatWatermark(t.last.watermark)
    }: a window's state is dropped only when the watermark passes its end plus the allowed lateness, so state grows as long as event time stands still`,
    fix:
      "make event time advance: fix what holds the watermark (see the other causes), e.g. add .withIdleness(30_000) to the WatermarkStrategy so that silent partitions stop holding it, and keep allowedLateness small",
  };
}

function windowNeverFires(vertex: JobVertex, t: Trend): Diagnosis {
  const size = formatDuration(vertex.windowSizeMs!);
  const lateness = vertex.allowedLatenessMs
    ? ` plus the allowed lateness ${formatDuration(vertex.allowedLatenessMs)}`
    : "";
  return {
    cause: "window-never-fires",
    operator: vertex.id,
    evidence: `in the last ${
      formatDuration(t.span)
    } the input watermark of ${vertex.id} advanced by ${
      formatDuration(t.last.watermark - t.first.watermark)
    } of event time, more than the window size ${size}${lateness}, yet no window closed: numWindows grew from ${t.from} to ${t.to}. A window fires only when the watermark, which trails the newest timestamp by the out-of-orderness bound, passes its end: the bound is larger than the window`,
    fix:
      `lower maxOutOfOrdernessMs in forBoundedOutOfOrderness toward the lateness actually seen, or use windows larger than the bound (now ${size}); with a custom trigger, make sure it fires on event time`,
  };
}

/** The lowest input watermark of the subtasks that are not idle (all if all are). */
function inputWatermarkOf(
  sample: WatermarkSample,
  ids: readonly string[],
): number | undefined {
  const entries = ids.map((id) => sample.subtasks[id]).filter((e) =>
    e !== undefined
  );
  if (entries.length === 0) return undefined;
  const active = entries.filter((e) => !e.idle);
  return Math.min(
    ...(active.length > 0 ? active : entries).map((e) => e.inputWatermark),
  );
}
