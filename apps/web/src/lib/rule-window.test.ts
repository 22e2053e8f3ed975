import { describe, expect, it } from "vitest";
import type { TRuleWindowRow } from "@ratecard/validators";
import {
  explorerWindowFilters,
  isNarrowed,
  narrowingFilters,
  pageWindowFilters,
  windowIndexes,
  windowRowToRuleRow,
  windowSort,
} from "./rule-window";
import { ZExplorerSearch } from "./rules";

const windowRow = (patch: Partial<TRuleWindowRow>): TRuleWindowRow => ({
  kind: "mapping",
  id: "m1",
  value: "m1.small",
  level: null,
  type: "flat",
  cost: "0.0500000000000000000000000000",
  service_id: null,
  field_id: "f1",
  group_id: "g1",
  tenant_id: null,
  service_name: "instance",
  field_name: "flavor_id",
  group_name: "compute",
  revision: 3,
  start: "2026-11-25T12:00:00",
  end: null,
  name: "n",
  description: null,
  deleted: null,
  created_by: "admin",
  deleted_by: null,
  ...patch,
});

describe("the windows of a list", () => {
  it("are the windows the rows in view fall in", () => {
    expect(windowIndexes(0, 20, undefined, 100)).toEqual([0]);
    expect(windowIndexes(90, 110, 5000, 100)).toEqual([0, 1]);
    expect(windowIndexes(250, 270, 5000, 100)).toEqual([2]);
  });

  it("stop at the last row, and an empty list still reads its first window (for its total)", () => {
    expect(windowIndexes(90, 130, 120, 100)).toEqual([0, 1]);
    expect(windowIndexes(0, 0, 0, 100)).toEqual([0]);
    expect(windowIndexes(300, 320, 120, 100)).toEqual([3]);
  });
});

describe("a window's row", () => {
  it("reads as the lists' rows: trimmed decimals, the parent's and the group's names", () => {
    expect(windowRowToRuleRow(windowRow({}))).toEqual({
      kind: "mapping",
      id: "m1",
      match: "m1.small",
      type: "flat",
      cost: "0.05",
      serviceId: null,
      fieldId: "f1",
      attachedTo: "instance › flavor_id",
      groupId: "g1",
      groupName: "compute",
      tenant: "",
      revision: 3,
      start: "2026-11-25T12:00:00",
      end: null,
      deleted: null,
      deleted_by: null,
      created_by: "admin",
      name: "n",
      description: null,
    });
  });

  it("shows a threshold's level, and nothing to match for a service mapping", () => {
    const threshold = windowRowToRuleRow(
      windowRow({
        kind: "threshold",
        value: null,
        level: "10.50000000",
        field_id: null,
        service_id: "s1",
        field_name: null,
        group_id: null,
        group_name: null,
        tenant_id: "acme",
      }),
    );
    expect(threshold).toMatchObject({
      match: "10.5",
      attachedTo: "instance",
      groupName: "",
      tenant: "acme",
    });
    const service = windowRowToRuleRow(
      windowRow({ value: null, field_id: null, service_id: "s1", field_name: null }),
    );
    expect(service.match).toBe("");
  });
});

describe("the filters a list asks for", () => {
  it("takes the sort of the address, and no sort for an unknown column", () => {
    expect(windowSort("-cost")).toEqual({ sort: "cost", desc: true });
    expect(windowSort("groupName")).toEqual({ sort: "groupName" });
    expect(windowSort("-nonsense")).toEqual({});
    expect(windowSort(undefined)).toEqual({});
  });

  it("judges a status at the moment given, except deleted, and trims the text", () => {
    const now = new Date("2026-11-25T12:34:56.789Z");
    expect(narrowingFilters({ q: "  m1 ", type: "rate", status: "scheduled" }, now)).toEqual({
      q: "m1",
      type: "rate",
      status: "scheduled",
      at: "2026-11-25T12:34:56.789Z",
    });
    expect(narrowingFilters({ status: "deleted" }, now)).toEqual({ status: "deleted" });
    expect(narrowingFilters({ q: "   " })).toEqual({});
    expect(isNarrowed({ kind: "mapping", field_id: "f1" })).toBe(false);
    expect(isNarrowed({ q: "m1" })).toBe(true);
  });

  it("lists a page's rules by parent or group", () => {
    expect(pageWindowFilters({ parent: { field_id: "f1" } }, "mapping")).toEqual({
      kind: "mapping",
      field_id: "f1",
    });
    expect(pageWindowFilters({ groupId: "g1" }, "threshold")).toEqual({
      kind: "threshold",
      group_id: "g1",
    });
  });

  it("reads the explorer's address as the REST filters did (a field before its service)", () => {
    const filters = (search: Record<string, unknown>) =>
      explorerWindowFilters(ZExplorerSearch.parse(search));
    expect(filters({ service_id: "s1", field_id: "f1", group_id: "g1" })).toEqual({
      field_id: "f1",
      group_id: "g1",
    });
    expect(filters({ kind: "thresholds", no_group: "1", group_id: "g1" })).toEqual({
      kind: "threshold",
      no_group: true,
    });
    expect(filters({ no_tenant: "1", tenant_id: "acme" })).toEqual({ no_tenant: true });
    expect(filters({ tenant_id: "acme", created_by: "alice", description: "batch" })).toEqual({
      tenant_id: "acme",
      created_by: "alice",
      description: "batch",
    });
    // Text, type and status narrow the list (narrowingFilters).
    expect(filters({ q: "x", type: "flat", status: "ended" })).toEqual({});
  });
});
