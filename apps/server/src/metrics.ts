import fs from "node:fs";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { Context } from "@ratecard/api";

/** A CloudKitty collector configuration (`metrics.yml`), loaded from `METRICS_FILE`. */
export type MetricsConfig = NonNullable<Context["metrics"]>;
type CollectorMetric = MetricsConfig["metrics"][number];

/** A metrics file Ratecard cannot start with; the message is one line naming the file. */
export class MetricsFileError extends Error {}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function stringList(metric: string, key: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(nonEmptyString)) {
    throw new MetricsFileError(`metric "${metric}": ${key} must be a list of non-empty strings`);
  }
  return [...new Set(value)];
}

/**
 * Checks a loaded `metrics.yml` against the parts of CloudKitty's collector schema that Ratecard
 * answers (unit, alt_name, groupby, metadata) and returns its metrics. Other keys (factor, mutate,
 * extra_args...) belong to the collector and are kept in the document unchecked. A file without
 * metrics is valid: the metrics routes then answer CloudKitty's 405.
 */
export function parseMetricsConfig(loaded: unknown): MetricsConfig {
  // An empty YAML file loads as null; CloudKitty reads it as {} too.
  if (loaded === null || loaded === undefined) return { document: {}, metrics: [] };
  if (!isMapping(loaded)) {
    throw new MetricsFileError('must be a mapping with a "metrics" key');
  }
  const declared = loaded.metrics;
  if (declared === undefined || declared === null) return { document: loaded, metrics: [] };
  if (!isMapping(declared)) {
    throw new MetricsFileError('"metrics" must be a mapping of metric names to their settings');
  }
  const metrics = Object.entries(declared).map(([name, settings]): CollectorMetric => {
    if (!isMapping(settings)) throw new MetricsFileError(`metric "${name}" must be a mapping`);
    if (!nonEmptyString(settings.unit)) {
      throw new MetricsFileError(`metric "${name}": unit is required (a non-empty string)`);
    }
    if (settings.alt_name !== undefined && !nonEmptyString(settings.alt_name)) {
      throw new MetricsFileError(`metric "${name}": alt_name must be a non-empty string`);
    }
    const groupby = stringList(name, "groupby", settings.groupby);
    const metadata = stringList(name, "metadata", settings.metadata);
    const both = groupby.filter((key) => metadata.includes(key));
    if (both.length > 0) {
      throw new MetricsFileError(
        `metric "${name}": ${both.join(", ")} in both groupby and metadata (CloudKitty refuses it)`,
      );
    }
    return {
      name,
      metric_id: settings.alt_name ?? name,
      unit: settings.unit,
      groupby,
      metadata,
    };
  });
  return { document: loaded, metrics };
}

/**
 * Loads `METRICS_FILE` once at start; no file is no metrics (null). A file that cannot be read,
 * is not YAML, or that CloudKitty's collector would refuse stops the start with one line.
 */
export function loadMetricsFile(file: string | undefined): MetricsConfig | null {
  if (!file) return null;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new MetricsFileError(`METRICS_FILE ${file} cannot be read (${reason})`);
  }
  let loaded: unknown;
  try {
    // CloudKitty reads it with PyYAML's safe_load: YAML 1.1 (`yes` is true, `1/1048576` a string).
    loaded = parseYaml(text, { version: "1.1" });
  } catch (error) {
    if (!(error instanceof YAMLParseError)) throw error;
    const at = error.linePos
      ? ` (line ${error.linePos[0].line}, column ${error.linePos[0].col})`
      : "";
    const reason = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new MetricsFileError(`METRICS_FILE ${file} is not valid YAML${at}: ${reason}`);
  }
  try {
    return parseMetricsConfig(loaded);
  } catch (error) {
    if (!(error instanceof MetricsFileError)) throw error;
    throw new MetricsFileError(`METRICS_FILE ${file}: ${error.message}`);
  }
}
