import { describe, expect, it } from "vitest";
import {
  countText,
  formatRulePanel,
  parseRulePanel,
  rememberGroup,
  rememberedGroup,
  ZRuleListSearch,
  type SmallStorage,
} from "./rule-list";

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
