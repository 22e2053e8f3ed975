// CloudKitty's collector only rates what its metrics.yml lists: a hashmap service must be named as a
// metric's alt_name (else its key), and a field as one of that metric's groupby or metadata
// attributes. Anything else is accepted by the API but never priced. These helpers compare names
// with the server's METRICS_FILE (info.collectorMetrics) so the console can suggest and warn.

export interface CollectorMetric {
  /** alt_name, else the metric's key: the service name CloudKitty rates it under. */
  metric_id: string;
  groupby: readonly string[];
  metadata: readonly string[];
}

/** What `info.collectorMetrics` answers. */
export interface CollectorMetrics {
  configured: boolean;
  metrics: readonly CollectorMetric[];
}

export const UNREPORTED_METRIC_HINT =
  "The collector does not report this metric: CloudKitty will never rate it.";
export const UNREPORTED_ATTRIBUTE_HINT =
  "The collector does not report this attribute for this metric: CloudKitty will never match it.";

/**
 * The collector's metrics when a metrics file is loaded; null when there is none or it could not be
 * read (refused, unreachable): then the console neither suggests nor warns.
 */
export function knownCollector(answer: CollectorMetrics | undefined): CollectorMetrics | null {
  return answer?.configured ? answer : null;
}

/** The service names the collector rates, in file order, each once. */
export function serviceNames(collector: CollectorMetrics | null): string[] {
  return [...new Set(collector?.metrics.map((metric) => metric.metric_id) ?? [])];
}

export function isReportedService(collector: CollectorMetrics, serviceName: string): boolean {
  return collector.metrics.some((metric) => metric.metric_id === serviceName);
}

/**
 * The field names a service may use: the groupby and metadata attributes of its metric (of every
 * metric sharing that alt_name). Empty when the collector does not report the service.
 */
export function fieldNames(collector: CollectorMetrics | null, serviceName: string): string[] {
  const names = (collector?.metrics ?? [])
    .filter((metric) => metric.metric_id === serviceName)
    .flatMap((metric) => [...metric.groupby, ...metric.metadata]);
  return [...new Set(names)];
}

/** The hint under a service name being typed, or null when there is nothing to say. */
export function serviceNameAdvice(collector: CollectorMetrics | null, name: string): string | null {
  if (!collector || name === "") return null;
  return isReportedService(collector, name) ? null : UNREPORTED_METRIC_HINT;
}

/**
 * The hint under a field name being typed. Only on a service the collector reports: on another one
 * the service itself is the problem, and its page says so.
 */
export function fieldNameAdvice(
  collector: CollectorMetrics | null,
  serviceName: string,
  name: string,
): string | null {
  if (!collector || name === "" || !isReportedService(collector, serviceName)) return null;
  return fieldNames(collector, serviceName).includes(name) ? null : UNREPORTED_ATTRIBUTE_HINT;
}

/** A service or fields of it that the collector never reports, for the warnings of a page. */
export type CollectorWarning =
  | { code: "service-not-collected"; service: { id: string; name: string } }
  | {
      code: "fields-not-collected";
      service: { id: string; name: string };
      fields: { id: string; name: string }[];
    };

/**
 * What the collector never reports among a service and the given fields of it: the service when no
 * metric has its name (its fields then need no warning of their own), else the fields that are
 * neither a groupby nor a metadata attribute of its metric.
 */
export function collectorWarnings(
  collector: CollectorMetrics | null,
  service: { service_id: string; name: string },
  fields: readonly { field_id: string; name: string }[],
): CollectorWarning[] {
  if (!collector) return [];
  const serviceRef = { id: service.service_id, name: service.name };
  if (!isReportedService(collector, service.name)) {
    return [{ code: "service-not-collected", service: serviceRef }];
  }
  const known = new Set(fieldNames(collector, service.name));
  const unreported = fields
    .filter((field) => !known.has(field.name))
    .map((field) => ({ id: field.field_id, name: field.name }));
  return unreported.length > 0
    ? [{ code: "fields-not-collected", service: serviceRef, fields: unreported }]
    : [];
}

/** A collector warning in words: the trap and why it matters. */
export function describeCollectorWarning(warning: CollectorWarning): {
  title: string;
  explanation: string;
} {
  if (warning.code === "service-not-collected") {
    return {
      title: `The collector does not report ${warning.service.name}`,
      explanation:
        "CloudKitty will never rate this service: no metric in the collector's metrics.yml has this name (its alt_name, else its key).",
    };
  }
  const service = warning.service.name;
  const [only] = warning.fields;
  if (warning.fields.length === 1 && only) {
    return {
      title: `The collector does not report the field ${only.name} of ${service}`,
      explanation: `Its rules never match: the collector's metrics.yml lists it neither in groupby nor in metadata of ${service}.`,
    };
  }
  return {
    title: `The collector does not report ${warning.fields.length} fields of ${service}`,
    explanation: `Their rules never match: the collector's metrics.yml lists them neither in groupby nor in metadata of ${service}.`,
  };
}
