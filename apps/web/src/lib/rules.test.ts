import { describe, expect, it } from "vitest";
import type { TMapping, TThreshold } from "@ratecard/validators";
import {
  buildRuleRows,
  formatSort,
  hasActiveFilter,
  parseSort,
  ruleLifecycleStatus,
  ZExplorerSearch,
} from "./rules";

const lookups = {
  services: [{ service_id: "s1", name: "instance" }],
  fields: [{ field_id: "f1", name: "flavor_id", service_id: "s1" }],
  groups: [{ group_id: "g1", name: "compute" }],
};
const zero = "0.0000000000000000000000000000";

const fieldMapping: TMapping = {
  mapping_id: "m1",
  value: "m1.small",
  type: "flat",
  cost: "0.0200000000000000000000000000",
  service_id: null,
  field_id: "f1",
  group_id: "g1",
  tenant_id: null,
};
const serviceMapping: TMapping = {
  ...fieldMapping,
  mapping_id: "m2",
  value: "",
  cost: zero,
  service_id: "s1",
  field_id: null,
  group_id: null,
  tenant_id: "acme",
};
const threshold: TThreshold = {
  threshold_id: "t1",
  level: "50.00000000",
  type: "rate",
  cost: "0.9800000000000000000000000000",
  service_id: "s1",
  field_id: null,
  group_id: "gone",
  tenant_id: null,
};

describe("explorer rows", () => {
  const rows = buildRuleRows([fieldMapping, serviceMapping], [threshold], lookups);

  it("labels parents, groups and tenants by name", () => {
    expect(
      rows.map((row) => [row.kind, row.attachedTo, row.match, row.cost, row.groupName, row.tenant]),
    ).toEqual([
      ["mapping", "instance › flavor_id", "m1.small", "0.02", "compute", ""],
      ["mapping", "instance", "", "0", "", "acme"],
      ["threshold", "instance", "50", "0.98", "gone", ""],
    ]);
  });

  it("carry the lifecycle the API gives", () => {
    const [deleted] = buildRuleRows(
      [
        {
          ...fieldMapping,
          start: "2026-01-01T00:00:00",
          end: null,
          name: "small",
          description: "Small flavour",
          created_by: "alice",
          deleted: "2026-11-20T09:00:00",
          deleted_by: "bob",
        },
      ],
      [],
      lookups,
    );
    expect(deleted).toMatchObject({
      start: "2026-01-01T00:00:00",
      end: null,
      name: "small",
      description: "Small flavour",
      created_by: "alice",
      deleted: "2026-11-20T09:00:00",
      deleted_by: "bob",
    });
    expect(ruleLifecycleStatus(deleted!)).toBe("deleted");
  });
});

describe("explorer query string", () => {
  it("reads the API's filter names and tolerates junk", () => {
    const search = ZExplorerSearch.parse({
      no_group: "1",
      kind: "bogus",
      type: "rate",
      tenant_id: "42",
    });
    expect(search).toMatchObject({
      no_group: true,
      kind: undefined,
      type: "rate",
      tenant_id: "42",
    });
    expect(ZExplorerSearch.parse({ status: "gone" }).status).toBeUndefined();
  });

  it("knows when a filter is active", () => {
    expect(hasActiveFilter(ZExplorerSearch.parse({}))).toBe(false);
    expect(hasActiveFilter(ZExplorerSearch.parse({ sort: "cost" }))).toBe(false);
    expect(hasActiveFilter(ZExplorerSearch.parse({ q: "x" }))).toBe(true);
    expect(hasActiveFilter(ZExplorerSearch.parse({ status: "ended" }))).toBe(true);
    expect(hasActiveFilter(ZExplorerSearch.parse({ created_by: "alice" }))).toBe(true);
    expect(hasActiveFilter(ZExplorerSearch.parse({ description: "batch" }))).toBe(true);
  });

  it("writes the sort order as text", () => {
    expect(parseSort("-cost")).toEqual([{ id: "cost", desc: true }]);
    expect(parseSort("match")).toEqual([{ id: "match", desc: false }]);
    expect(parseSort(undefined)).toEqual([]);
    expect(formatSort([{ id: "cost", desc: true }])).toBe("-cost");
    expect(formatSort([])).toBeUndefined();
  });
});
