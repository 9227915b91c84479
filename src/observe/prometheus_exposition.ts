/**
 * The Prometheus text exposition format (version 0.0.4): metric families
 * and how they are written, with Prometheus's escapes and floats.
 *
 * @module
 */

/** One metric family: its name, help, type and samples. */
export interface MetricFamily {
  /** The metric name, `[a-z_][a-z0-9_]*` by weir's naming. */
  readonly name: string;
  /** One line of help text. */
  readonly help: string;
  /** The Prometheus type. */
  readonly type: "gauge" | "counter";
  /** The samples: label set and value. */
  readonly samples: Array<[labels: Record<string, string>, value: number]>;
}

/**
 * An empty family to fill.
 *
 * @param name The metric name.
 * @param type The Prometheus type.
 * @param help One line of help text.
 * @returns The family, without samples.
 */
export function family(
  name: string,
  type: "gauge" | "counter",
  help: string,
): MetricFamily {
  return { name, help, type, samples: [] };
}

/**
 * Writes families in the text exposition format, leaving out those with no
 * sample (a `# TYPE` line without samples tells a scraper nothing).
 *
 * @param families The families, in the order to write them.
 * @returns The text, one line per HELP, TYPE and sample.
 */
export function exposition(families: readonly MetricFamily[]): string {
  return families.filter((f) => f.samples.length > 0).map(render).join("");
}

function render(family: MetricFamily): string {
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
