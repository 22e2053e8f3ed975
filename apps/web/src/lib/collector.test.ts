import { describe, expect, it } from "vitest";
import {
  collectorWarnings,
  describeCollectorWarning,
  fieldNameAdvice,
  fieldNames,
  knownCollector,
  serviceNameAdvice,
  serviceNames,
  UNREPORTED_ATTRIBUTE_HINT,
  UNREPORTED_METRIC_HINT,
  type CollectorMetrics,
} from "./collector";

// As CloudKitty's sample metrics.yml: cpu has alt_name instance; two metrics may share an alt_name.
const collector: CollectorMetrics = {
  configured: true,
  metrics: [
    {
      metric_id: "instance",
      groupby: ["id", "project_id"],
      metadata: ["flavor_name", "flavor_id"],
    },
    { metric_id: "volume.size", groupby: ["id", "project_id"], metadata: ["volume_type"] },
    { metric_id: "image.size", groupby: ["id"], metadata: [] },
    { metric_id: "volume.size", groupby: ["id"], metadata: ["availability_zone"] },
  ],
};
const S = "11111111-1111-4111-8111-111111111111";
const field = (name: string, index = 0) => ({
  field_id: `2222222${index}-2222-4222-8222-222222222222`,
  name,
});

describe("knownCollector", () => {
  it("is null without a metrics file or without an answer", () => {
    expect(knownCollector(undefined)).toBeNull();
    expect(knownCollector({ configured: false, metrics: [] })).toBeNull();
    expect(knownCollector(collector)).toBe(collector);
  });
});

describe("serviceNames", () => {
  it("lists each alt_name once, in file order", () => {
    expect(serviceNames(collector)).toEqual(["instance", "volume.size", "image.size"]);
  });
  it("offers nothing without a collector", () => {
    expect(serviceNames(null)).toEqual([]);
  });
});

describe("fieldNames", () => {
  it("offers the groupby and metadata of every metric with the service's name", () => {
    expect(fieldNames(collector, "instance")).toEqual([
      "id",
      "project_id",
      "flavor_name",
      "flavor_id",
    ]);
    expect(fieldNames(collector, "volume.size")).toEqual([
      "id",
      "project_id",
      "volume_type",
      "availability_zone",
    ]);
  });
  it("offers nothing for a service the collector does not report, or without a collector", () => {
    expect(fieldNames(collector, "cpu")).toEqual([]);
    expect(fieldNames(null, "instance")).toEqual([]);
  });
});

describe("serviceNameAdvice", () => {
  it("says nothing for a reported metric, an empty name or without a collector", () => {
    expect(serviceNameAdvice(collector, "instance")).toBeNull();
    expect(serviceNameAdvice(collector, "")).toBeNull();
    expect(serviceNameAdvice(null, "anything")).toBeNull();
  });
  it("warns about a name no metric has: names are compared exactly, as CloudKitty does", () => {
    // cpu is the metric's key, but CloudKitty rates it under its alt_name.
    expect(serviceNameAdvice(collector, "cpu")).toBe(UNREPORTED_METRIC_HINT);
    expect(serviceNameAdvice(collector, "Instance")).toBe(UNREPORTED_METRIC_HINT);
    expect(serviceNameAdvice(collector, "instance ")).toBe(UNREPORTED_METRIC_HINT);
  });
});

describe("fieldNameAdvice", () => {
  it("says nothing for a groupby or metadata attribute of the service's metric", () => {
    expect(fieldNameAdvice(collector, "instance", "flavor_id")).toBeNull();
    expect(fieldNameAdvice(collector, "instance", "project_id")).toBeNull();
    expect(fieldNameAdvice(collector, "volume.size", "availability_zone")).toBeNull();
  });
  it("warns about an attribute the metric does not have", () => {
    expect(fieldNameAdvice(collector, "instance", "volume_type")).toBe(UNREPORTED_ATTRIBUTE_HINT);
  });
  it("leaves the warning to the service when the service itself is not reported", () => {
    expect(fieldNameAdvice(collector, "cpu", "flavor_id")).toBeNull();
    expect(fieldNameAdvice(null, "instance", "anything")).toBeNull();
    expect(fieldNameAdvice(collector, "instance", "")).toBeNull();
  });
});

describe("collectorWarnings", () => {
  it("warns once about a service no metric has, not about each of its fields", () => {
    expect(
      collectorWarnings(collector, { service_id: S, name: "cpu" }, [field("flavor_id")]),
    ).toEqual([{ code: "service-not-collected", service: { id: S, name: "cpu" } }]);
  });
  it("names the fields that are neither groupby nor metadata of the metric", () => {
    const fields = [field("flavor_id", 1), field("flavour", 2), field("id", 3), field("zone", 4)];
    expect(collectorWarnings(collector, { service_id: S, name: "instance" }, fields)).toEqual([
      {
        code: "fields-not-collected",
        service: { id: S, name: "instance" },
        fields: [
          { id: fields[1]!.field_id, name: "flavour" },
          { id: fields[3]!.field_id, name: "zone" },
        ],
      },
    ]);
  });
  it("is empty when everything is reported, and without a collector", () => {
    const service = { service_id: S, name: "instance" };
    expect(collectorWarnings(collector, service, [field("flavor_id")])).toEqual([]);
    expect(collectorWarnings(null, { service_id: S, name: "cpu" }, [field("x")])).toEqual([]);
  });
  it("warns about every service when the file lists no metric: CloudKitty then rates nothing", () => {
    const empty = { configured: true, metrics: [] };
    expect(collectorWarnings(empty, { service_id: S, name: "instance" }, [])).toHaveLength(1);
  });
});

describe("describeCollectorWarning", () => {
  const service = { id: S, name: "instance" };
  it("says that a service is never rated", () => {
    expect(describeCollectorWarning({ code: "service-not-collected", service })).toMatchObject({
      title: "The collector does not report instance",
      explanation: expect.stringContaining("CloudKitty will never rate this service") as string,
    });
  });
  it("names one field, and counts several", () => {
    const one = { id: "f1", name: "flavour" };
    const two = { id: "f2", name: "zone" };
    expect(
      describeCollectorWarning({ code: "fields-not-collected", service, fields: [one] }).title,
    ).toBe("The collector does not report the field flavour of instance");
    expect(
      describeCollectorWarning({ code: "fields-not-collected", service, fields: [one, two] }).title,
    ).toBe("The collector does not report 2 fields of instance");
  });
});
