import { describe, expect, it } from "vitest";
import type { RuleRow } from "./rules";
import {
  countText,
  filterRuleRows,
  formatRulePanel,
  parseRulePanel,
  rememberGroup,
  rememberedGroup,
  ZRuleListSearch,
  type SmallStorage,
} from "./rule-list";

const row = (patch: Partial<RuleRow>): RuleRow => ({
  kind: "mapping",
  id: "m1",
  match: "m1.small",
  type: "flat",
  cost: "0.05",
  serviceId: null,
  fieldId: "f1",
  attachedTo: "instance › flavor_id",
  groupId: null,
  groupName: "",
  tenant: "",
  ...patch,
});

const rows = [
  row({ id: "a" }),
  row({ id: "b", match: "M1.Large", type: "rate", groupName: "Licences" }),
  row({ id: "c", kind: "threshold", match: "100", tenant: "acme" }),
];

describe("rule list filters", () => {
  it("keeps every row without a filter, and the same array", () => {
    expect(filterRuleRows(rows, {})).toBe(rows);
  });

  it("filters by kind, type and text, the text case-insensitively in every column", () => {
    expect(filterRuleRows(rows, { kind: "threshold" }).map((r) => r.id)).toEqual(["c"]);
    expect(filterRuleRows(rows, { type: "rate" }).map((r) => r.id)).toEqual(["b"]);
    expect(filterRuleRows(rows, { q: " m1.l " }).map((r) => r.id)).toEqual(["b"]);
    expect(filterRuleRows(rows, { q: "licences" }).map((r) => r.id)).toEqual(["b"]);
    expect(filterRuleRows(rows, { q: "ACME" }).map((r) => r.id)).toEqual(["c"]);
    expect(filterRuleRows(rows, { q: "flavor", kind: "mapping", type: "flat" })).toHaveLength(1);
  });

  it("does not match across two columns", () => {
    expect(filterRuleRows(rows, { q: "small0.05" })).toEqual([]);
  });
});

describe("the lifecycle status filter", () => {
  const now = new Date("2026-11-25T12:00:00Z");
  const lives = [
    row({ id: "open" }),
    row({ id: "started", start: "2026-01-01T00:00:00", end: "2026-12-01T00:00:00" }),
    // The API's moments are UTC without an offset: 12:30 UTC is later than now wherever this runs.
    row({ id: "later", start: "2026-11-25T12:30:00" }),
    row({ id: "over", start: "2001-01-01T00:00:00", end: "2026-11-25T12:00:00" }),
    row({ id: "gone", deleted: "2026-11-20T09:00:00", deleted_by: "admin" }),
    row({ id: "gone-later", start: "2099-01-01T00:00:00", deleted: "2026-11-20T09:00:00" }),
  ];
  const ids = (status: "in_force" | "scheduled" | "ended" | "deleted") =>
    filterRuleRows(lives, { status, now }).map((r) => r.id);

  it("sorts rules into in force, scheduled, ended (an end at now has ended) and deleted", () => {
    expect(ids("in_force")).toEqual(["open", "started"]);
    expect(ids("scheduled")).toEqual(["later"]);
    expect(ids("ended")).toEqual(["over"]);
    // Deleted wins over the period a deleted rule had.
    expect(ids("deleted")).toEqual(["gone", "gone-later"]);
  });

  it("combines with the other filters", () => {
    expect(filterRuleRows(lives, { status: "in_force", q: "nothing", now })).toEqual([]);
    expect(filterRuleRows(lives, { status: "deleted", kind: "threshold", now })).toEqual([]);
  });
});

describe("the list's query string", () => {
  it("keeps known values and drops the rest", () => {
    expect(
      ZRuleListSearch.parse({ q: "m1", type: "rate", sort: "-cost", rule: "new:mapping" }),
    ).toEqual({ q: "m1", type: "rate", sort: "-cost", rule: "new:mapping" });
    expect(ZRuleListSearch.parse({ type: "free", q: 3 })).toEqual({});
    expect(ZRuleListSearch.parse({ status: "deleted" })).toEqual({ status: "deleted" });
    expect(ZRuleListSearch.parse({ status: "gone", deleted: "1" })).toEqual({});
  });

  it("names the rule in the panel, and ignores what it cannot read", () => {
    const existing = { kind: "threshold", ruleId: "9e1c" } as const;
    expect(parseRulePanel(formatRulePanel(existing))).toEqual(existing);
    expect(parseRulePanel(formatRulePanel({ kind: "mapping" }))).toEqual({ kind: "mapping" });
    for (const text of [undefined, "", "mapping", "mapping:", "new:group", "script:1"])
      expect(parseRulePanel(text)).toBeNull();
  });

  it("counts what is shown", () => {
    expect(countText(2000, 2000, "mapping")).toBe("2,000 mappings");
    expect(countText(1, 1, "rule")).toBe("1 rule");
    expect(countText(10, 9990, "rule")).toBe("10 rules of 9,990 shown");
    expect(countText(1, 3, "threshold")).toBe("1 threshold of 3 shown");
  });
});

describe("the group used last", () => {
  const memory = (): SmallStorage & { data: Map<string, string> } => {
    const data = new Map<string, string>();
    return {
      data,
      getItem: (key) => data.get(key) ?? null,
      setItem: (key, value) => void data.set(key, value),
    };
  };
  const groups = [{ group_id: "g1" }, { group_id: "g2" }];

  it("is offered back while the group exists", () => {
    const storage = memory();
    expect(rememberedGroup(storage, groups)).toBeUndefined();
    rememberGroup(storage, "g2");
    expect(rememberedGroup(storage, groups)).toBe("g2");
    expect(rememberedGroup(storage, [{ group_id: "g1" }])).toBeUndefined();
    rememberGroup(storage, "");
    expect(rememberedGroup(storage, groups)).toBeUndefined();
  });

  it("is a convenience: storage that fails or is missing changes nothing", () => {
    const broken: SmallStorage = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("full");
      },
    };
    expect(() => rememberGroup(broken, "g1")).not.toThrow();
    expect(rememberedGroup(broken, groups)).toBeUndefined();
    expect(rememberedGroup(undefined, groups)).toBeUndefined();
  });
});
