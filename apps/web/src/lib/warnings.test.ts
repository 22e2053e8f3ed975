import { describe, expect, it } from "vitest";
import type { TMapping, TRuleSetWarning, TThreshold } from "@ratecard/validators";
import { buildRuleRows, indexRules } from "./rules";
import {
  bySeverity,
  describeWarning,
  nameRulesInText,
  explorerFiltersFor,
  ruleSummary,
  RULES_SHOWN,
  summarizeRules,
} from "./warnings";

const S = "11111111-1111-4111-8111-111111111111";
const F = "22222222-2222-4222-8222-222222222222";
const G = "33333333-3333-4333-8333-333333333333";
const GLOBAL = "44444444-4444-4444-8444-444444444444";
const TENANT = "55555555-5555-4555-8555-555555555555";
const RATE = "66666666-6666-4666-8666-666666666666";
const FIELD_FLAT = "77777777-7777-4777-8777-777777777777";
const LEVEL = "88888888-8888-4888-8888-888888888888";

const lookups = {
  services: [{ service_id: S, name: "volume.size" }],
  fields: [{ field_id: F, name: "volume_type", service_id: S }],
  groups: [{ group_id: G, name: "licences" }],
};
const mapping = (patch: Partial<TMapping>): TMapping => ({
  mapping_id: GLOBAL,
  value: "",
  type: "flat",
  cost: "0.0010000000000000000000000000",
  service_id: S,
  field_id: null,
  group_id: null,
  tenant_id: null,
  ...patch,
});
const threshold: TThreshold = {
  threshold_id: LEVEL,
  level: "50.00000000",
  type: "rate",
  cost: "0.9800000000000000000000000000",
  service_id: S,
  field_id: null,
  group_id: null,
  tenant_id: null,
};
const rows = buildRuleRows(
  [
    mapping({}),
    mapping({ mapping_id: TENANT, cost: "0.0020000000000000000000000000", tenant_id: "acme" }),
    mapping({
      mapping_id: RATE,
      type: "rate",
      cost: "1.5000000000000000000000000000",
      group_id: G,
    }),
    mapping({
      mapping_id: FIELD_FLAT,
      service_id: null,
      field_id: F,
      value: "ssd",
      cost: "0.5000000000000000000000000000",
    }),
  ],
  [threshold],
  lookups,
);
const rulesById = indexRules(rows);

const warning = (patch: Partial<TRuleSetWarning>): TRuleSetWarning => ({
  code: "rate-without-flat",
  message: "engine text",
  service_id: S,
  group_id: G,
  tenant_id: null,
  rule_ids: [RATE],
  ...patch,
});

describe("rule-set warnings in words", () => {
  it("says a rate-only group prices 0 and names its rate rules", () => {
    const described = describeWarning(warning({}), lookups, rulesById);
    expect(described).toMatchObject({
      title: "Group “licences” prices 0",
      service: { id: S, name: "volume.size" },
      group: { id: G, name: "licences" },
      tenant: null,
    });
    expect(described.rules).toEqual([{ id: RATE, role: "rate rule", row: rulesById.get(RATE) }]);
    expect(described.rules[0]?.row).toMatchObject({
      kind: "mapping",
      type: "rate",
      cost: "1.5",
      groupName: "licences",
    });
    expect(describeWarning(warning({ tenant_id: "acme" }), lookups, rulesById).title).toBe(
      "Group “licences” prices 0 for tenant acme",
    );
  });

  it("tells which rule of a tenant override applies and which is replaced", () => {
    const described = describeWarning(
      warning({
        code: "tenant-overrides-global",
        group_id: null,
        tenant_id: "acme",
        rule_ids: [TENANT, GLOBAL],
      }),
      lookups,
      rulesById,
    );
    expect(described.title).toBe("Tenant acme's rule replaces a global rule in the default group");
    expect(described.explanation).toContain("an override, not an extra charge");
    expect(described.group).toEqual({ id: null, name: "the default group" });
    expect(described.rules.map((rule) => [rule.role, rule.row?.tenant])).toEqual([
      ["applies for tenant acme", "acme"],
      ["replaced for tenant acme", ""],
    ]);
    expect(described.explanation).not.toContain("prices 0");
  });

  it("warns that a tenant's rate rule replacing a global flat one leaves the tenant at 0", () => {
    const described = describeWarning(
      warning({
        code: "tenant-overrides-global",
        group_id: null,
        tenant_id: "acme",
        rule_ids: [RATE, GLOBAL],
      }),
      lookups,
      rulesById,
    );
    expect(described.explanation).toContain("a rate rule replaces a flat one");
    expect(described.explanation).toContain("this group prices 0 for it");
  });

  it("puts zeros and overrides before rules that merely never count", () => {
    const codes = [
      "thresholds-compete",
      "new-trap",
      "tenant-overrides-global",
      "flats-do-not-add",
      "rate-without-flat",
    ];
    expect(bySeverity(codes.map((code) => warning({ code }))).map((sorted) => sorted.code)).toEqual(
      [
        "rate-without-flat",
        "tenant-overrides-global",
        "flats-do-not-add",
        "thresholds-compete",
        "new-trap",
      ],
    );
  });

  it("has words for every code the API sends, and falls back to the API's message", () => {
    const codes = [
      "slot-replaced",
      "flats-do-not-add",
      "thresholds-compete",
      "flat-never-applies",
      "threshold-never-applies",
      "group-named-default",
    ];
    for (const code of codes) {
      const described = describeWarning(warning({ code }), lookups, rulesById);
      expect(described.title, code).not.toBe(code);
      expect(described.explanation, code).not.toBe("engine text");
    }
    const unknown = describeWarning(
      warning({ code: "new-trap", service_id: null }),
      lookups,
      rulesById,
    );
    expect(unknown).toMatchObject({ title: "new-trap", explanation: "engine text", service: null });
  });

  it("keeps a rule it cannot name as an id, and an unknown group as its id", () => {
    const missing = "99999999-9999-4999-8999-999999999999";
    const described = describeWarning(
      warning({ group_id: missing, rule_ids: [missing] }),
      lookups,
      rulesById,
    );
    expect(described.group.name).toBe(missing);
    expect(described.rules).toEqual([{ id: missing, role: "rate rule" }]);
  });
});

describe("the engine's notes", () => {
  it("name known rules in words instead of ids, without repeating their description", () => {
    const note = `tenant acme rule ${TENANT} overrides global rule ${GLOBAL} (service mapping ${GLOBAL})`;
    expect(nameRulesInText(note, rulesById)).toBe(
      "tenant acme rule “the flat service mapping on volume.size for tenant acme (cost 0.002)” overrides global rule “the flat service mapping on volume.size (cost 0.001)”",
    );
    const competition = `threshold ${LEVEL} (service threshold ${LEVEL} level 50) was reached but the group's one threshold slot went to ${FIELD_FLAT} (field volume_type mapping ${FIELD_FLAT} value "ssd"): it has a lower level`;
    expect(nameRulesInText(competition, rulesById)).toBe(
      "threshold “the rate threshold at level 50 on volume.size (cost 0.98)” was reached but the group's one threshold slot went to “the flat mapping for “ssd” on volume.size › volume_type (cost 0.5)”: it has a lower level",
    );
  });

  it("leave unknown ids and their descriptions alone", () => {
    const unknown = "99999999-9999-4999-8999-999999999999";
    const note = `two service mappings in one group: the later one wins, ${unknown} replaces ${GLOBAL} (service mapping ${unknown})`;
    expect(nameRulesInText(note, rulesById)).toBe(
      `two service mappings in one group: the later one wins, ${unknown} replaces “the flat service mapping on volume.size (cost 0.001)” (service mapping ${unknown})`,
    );
  });

  it("summarise a rule with its cost and tenant", () => {
    expect(rows.map(ruleSummary)).toEqual([
      "the flat service mapping on volume.size (cost 0.001)",
      "the flat service mapping on volume.size for tenant acme (cost 0.002)",
      "the rate service mapping on volume.size (cost 1.5)",
      "the flat mapping for “ssd” on volume.size › volume_type (cost 0.5)",
      "the rate threshold at level 50 on volume.size (cost 0.98)",
    ]);
  });
});

describe("warnings about many rules", () => {
  const uuid = (index: number) => `99999999-9999-4999-8999-${String(index).padStart(12, "0")}`;
  const manyRates = buildRuleRows(
    Array.from({ length: 525 }, (_, index) =>
      mapping({
        mapping_id: uuid(index),
        service_id: null,
        field_id: F,
        value: `v${index}`,
        type: "rate",
        group_id: G,
      }),
    ),
    [],
    lookups,
  );
  const manyById = indexRules(manyRates);
  const many = describeWarning(
    warning({ rule_ids: manyRates.map((row) => row.id) }),
    lookups,
    manyById,
  );

  it("name the first few rules and count the rest", () => {
    const summary = summarizeRules(many);
    expect(summary.shown.map((rule) => rule.id)).toEqual(
      manyRates.slice(0, RULES_SHOWN).map((row) => row.id),
    );
    expect(summary.hidden).toBe(525 - RULES_SHOWN);
  });

  it("send the rest to the explorer filtered by what all the rules share", () => {
    expect(summarizeRules(many).explorer).toEqual({
      kind: "mappings",
      field_id: F,
      group_id: G,
      no_tenant: true,
      type: "rate",
    });
  });

  it("list a short warning whole, without an explorer link", () => {
    const few = describeWarning(warning({}), lookups, rulesById);
    expect(summarizeRules(few)).toEqual({
      total: few.rules.length,
      shown: few.rules,
      hidden: 0,
      explorer: null,
    });
  });

  it("count and send to the explorer as the server says when it names only the first rules", () => {
    const explorer = { kind: "mappings", group_id: G, type: "rate" } as const;
    const first = describeWarning(
      {
        ...warning({ rule_ids: manyRates.slice(0, RULES_SHOWN).map((row) => row.id) }),
        rule_count: 525,
        explorer,
      },
      lookups,
      manyById,
    );
    const summary = summarizeRules(first);
    expect(summary.total).toBe(525);
    expect(summary.shown).toHaveLength(RULES_SHOWN);
    expect(summary.hidden).toBe(525 - RULES_SHOWN);
    expect(summary.explorer).toEqual(explorer);
  });

  it("filter only by the warning's scope where the rules differ or are not loaded", () => {
    const override = describeWarning(
      warning({
        code: "tenant-overrides-global",
        group_id: null,
        tenant_id: "acme",
        rule_ids: [TENANT, GLOBAL],
      }),
      lookups,
      rulesById,
    );
    // The tenant's rule and the global one it replaces: no tenant filter.
    expect(explorerFiltersFor(override)).toEqual({
      kind: "mappings",
      service_id: S,
      no_group: true,
      type: "flat",
    });
    const mixed = describeWarning(
      warning({ code: "flats-do-not-add", group_id: null, rule_ids: [GLOBAL, FIELD_FLAT] }),
      lookups,
      rulesById,
    );
    expect(explorerFiltersFor(mixed)).toEqual({
      kind: "mappings",
      no_group: true,
      no_tenant: true,
      type: "flat",
    });
    const unknown = describeWarning(warning({ rule_ids: [RATE, uuid(9999)] }), lookups, rulesById);
    expect(explorerFiltersFor(unknown)).toEqual({ group_id: G });
  });
});
