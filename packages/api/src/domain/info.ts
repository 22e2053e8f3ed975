import type { PrismaClient } from "@ratecard/db";
import { fail } from "./errors.js";

/** One metric of CloudKitty's collector configuration (`metrics.yml`), as Ratecard uses it. */
export interface CollectorMetric {
  /** The metric's key in the file. */
  name: string;
  /** `alt_name`, else the key: the name hashmap services are created with. */
  metric_id: string;
  unit: string;
  groupby: string[];
  metadata: string[];
}

/** A loaded `METRICS_FILE`. */
export interface MetricsConfig {
  /** The file as loaded, answered as is by `GET /v1/info/config` (as CloudKitty does). */
  document: Record<string, unknown>;
  /** In file order; empty when the file lists none. */
  metrics: CollectorMetric[];
}

/** CloudKitty's metric info: `GET /v1/info/metrics/<metric_id>`. */
export interface MetricInfo {
  metric_id: string;
  metadata: string[];
  unit: string;
}

/** CloudKitty's unit for a metric its collector knows nothing about (`BaseCollector.get_metadata`). */
const UNKNOWN_UNIT = "undefined";
const NO_METRICS = "Invalid endpoint: no metrics in current configuration.";

function metricInfo(metric: CollectorMetric): MetricInfo {
  return { metric_id: metric.metric_id, metadata: metric.metadata, unit: metric.unit };
}

function noMetrics() {
  return fail.notSupported(NO_METRICS);
}

/** `GET /v1/info/config`: the file as loaded; without a file, a configuration without metrics. */
export function collectorConfig(config: MetricsConfig | null): Record<string, unknown> {
  // CloudKitty without its file answers 500; Horizon's service page reads `metrics` from this.
  return config?.document ?? { metrics: {} };
}

/** `GET /v1/info/metrics`: every metric of the file, or CloudKitty's 405 when it lists none. */
export function listMetricInfo(config: MetricsConfig | null): MetricInfo[] {
  if (!config || config.metrics.length === 0) throw noMetrics();
  return config.metrics.map(metricInfo);
}

/**
 * `GET /v1/info/metrics/<metric_id>`: the file's metric with that `alt_name` (the first one, as in
 * CloudKitty). A hashmap service of that name that the file does not list still gets an answer,
 * with no metadata and CloudKitty's unknown unit, so Horizon's Hashmap page, which asks for every
 * service, keeps working without the metric (or without a metrics file).
 */
export async function getMetricInfo(
  prisma: PrismaClient,
  config: MetricsConfig | null,
  metricId: string,
): Promise<MetricInfo> {
  const metric = config?.metrics.find((candidate) => candidate.metric_id === metricId);
  if (metric) return metricInfo(metric);
  const service = await prisma.service.findUnique({
    where: { name: metricId },
    select: { id: true },
  });
  if (service) return { metric_id: metricId, metadata: [], unit: UNKNOWN_UNIT };
  if (!config || config.metrics.length === 0) throw noMetrics();
  throw fail.notFound(metricId);
}
