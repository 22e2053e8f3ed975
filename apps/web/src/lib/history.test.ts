import { describe, expect, it } from "vitest";
import { describeObject, diffObjects, formatWhen, summarizeCascade } from "./history";

describe("diffObjects", () => {
  it("lists only the keys that changed, revision left out, null as none", () => {
    expect(
      diffObjects(
        { cost: "0.05", tenant_id: null, value: "m1", revision: 1 },
        { cost: "0.06", tenant_id: "acme", value: "m1", revision: 2 },
      ),
    ).toEqual([
      { key: "cost", from: "0.05", to: "0.06" },
      { key: "tenant_id", from: "none", to: "acme" },
    ]);
  });
  it("shows a create's keys as coming from none", () => {
    expect(diffObjects(null, { name: "compute", revision: 1 })).toEqual([
      { key: "name", from: "none", to: "compute" },
    ]);
  });
});

describe("describeObject", () => {
  it("lists keys and values without the revision", () => {
    expect(describeObject({ name: "compute", level: 3, revision: 4 })).toEqual([
      ["name", "compute"],
      ["level", "3"],
    ]);
  });
});

describe("summarizeCascade", () => {
  it("counts what a delete took with it", () => {
    expect(
      summarizeCascade({ deleted: { fields: [{}], mappings: [{}, {}], thresholds: [] } }),
    ).toBe("also deleted 1 field, 2 mappings");
    expect(summarizeCascade({ detached: { mappings: [{}] } })).toBe("moved 1 mapping to no group");
    expect(summarizeCascade({ deleted: {} })).toBeNull();
    expect(summarizeCascade(null)).toBeNull();
  });
});

describe("formatWhen", () => {
  it("shows the moment in the given time zone", () => {
    expect(formatWhen("2026-11-25T18:00:00Z", "Europe/Paris")).toContain("19:00:00");
    expect(formatWhen("2026-11-25T18:00:00Z", "UTC")).toContain("18:00:00");
  });
});

describe("activityFilters", () => {
  it("turns whole local days into a UTC range that includes the last day", async () => {
    const { activityFilters } = await import("./activity");
    const filters = activityFilters({ from: "2026-11-20", to: "2026-11-25", operation: "delete" });
    expect(filters.operation).toBe("delete");
    expect(
      new Date(filters.until!).getTime() - new Date(filters.since!).getTime(),
    ).toBeGreaterThanOrEqual(6 * 24 * 3600_000 - 3600_000);
    expect(filters.resource_type).toBeUndefined();
  });
});
