import fc from "fast-check";
import type {
  HashmapField,
  HashmapMapping,
  HashmapRuleSet,
  HashmapThreshold,
  RuleType,
  UsagePoint,
} from "../src/index.js";

export const SERVICE_NAMES = ["compute", "volume", "image"] as const;
export const FIELD_NAMES = ["flavor", "size", "region"] as const;
const GROUP_NAMES = ["alpha", "beta", "_DEFAULT_"] as const;
export const TENANTS = [null, "acme", "globex"] as const;
export const MAPPING_VALUES = ["a", "b", "1", "2.5", "True", "None", "10"] as const;
const LEVELS = ["-2", "-1", "-0.5", "0", "1", "1.0", "2.5", "5", "10", "100"] as const;
export const VOLUMES = ["0", "0.5", "1", "3", "10", "100", "250"] as const;

export interface CostArbitraries {
  flat: fc.Arbitrary<string>;
  rate: fc.Arbitrary<string>;
}

/** Costs with few digits, so that no product of a rating reaches 28 significant digits. */
export const shortCosts: CostArbitraries = {
  flat: fc.constantFrom("-5", "0", "0.01", "1", "2.5", "10", "99"),
  rate: fc.constantFrom("0", "0.5", "0.9", "1", "1.1", "2", "-1", "3"),
};

/** Costs of up to 40 digits with up to 28 decimals (Numeric(40,28)): products get rounded. */
export const longCosts: CostArbitraries = {
  flat: longDecimal(),
  rate: fc.oneof(longDecimal(), fc.constantFrom("0.98", "1.0000000000000000000000000001", "3")),
};

function longDecimal(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 40n - 1n }), fc.integer({ min: 0, max: 28 }))
    .map(([digits, decimals]) => {
      const sign = digits < 0n ? "-" : "";
      const text = (digits < 0n ? -digits : digits).toString().padStart(decimals + 1, "0");
      return decimals === 0
        ? `${sign}${text}`
        : `${sign}${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
    });
}

interface RuleDraft {
  parent: number;
  onField: boolean;
  type: RuleType;
  flatCost: string;
  rateCost: string;
  group: number | null;
  tenant: string | null;
}

function ruleDraft(costs: CostArbitraries): fc.Arbitrary<RuleDraft> {
  return fc.record({
    parent: fc.nat(),
    onField: fc.boolean(),
    type: fc.constantFrom<RuleType>("flat", "rate"),
    flatCost: costs.flat,
    rateCost: costs.rate,
    group: fc.option(fc.nat(), { nil: null }),
    tenant: fc.constantFrom(...TENANTS),
  });
}

export interface RuleSetShape {
  costs: CostArbitraries;
  maxMappings: number;
  maxThresholds: number;
}

/** Random rule sets over small pools, so that slots collide and tenants override often. */
export function ruleSetArbitrary(shape: Partial<RuleSetShape> = {}): fc.Arbitrary<HashmapRuleSet> {
  const { costs = shortCosts, maxMappings = 14, maxThresholds = 8 } = shape;
  return fc
    .record({
      services: fc.uniqueArray(fc.constantFrom(...SERVICE_NAMES), { minLength: 1, maxLength: 3 }),
      fields: fc.array(fc.record({ service: fc.nat(), name: fc.constantFrom(...FIELD_NAMES) }), {
        maxLength: 6,
      }),
      groups: fc.uniqueArray(fc.constantFrom(...GROUP_NAMES), { maxLength: 3 }),
      mappings: fc.array(
        fc.record({ draft: ruleDraft(costs), value: fc.constantFrom(...MAPPING_VALUES) }),
        {
          maxLength: maxMappings,
        },
      ),
      thresholds: fc.array(
        fc.record({ draft: ruleDraft(costs), level: fc.constantFrom(...LEVELS) }),
        {
          maxLength: maxThresholds,
        },
      ),
    })
    .map((drafts) => {
      const services = drafts.services.map((name, index) => ({ service_id: `s${index}`, name }));
      const fields: HashmapField[] = [];
      for (const draft of drafts.fields) {
        const service = services[draft.service % services.length];
        if (
          !service ||
          fields.some((f) => f.service_id === service.service_id && f.name === draft.name)
        )
          continue;
        fields.push({
          field_id: `f${fields.length}`,
          name: draft.name,
          service_id: service.service_id,
        });
      }
      const groups = drafts.groups.map((name, index) => ({ group_id: `g${index}`, name }));
      const parentOf = (
        draft: RuleDraft,
      ): { service_id: string | null; field_id: string | null } => {
        const field = draft.onField ? fields[draft.parent % Math.max(fields.length, 1)] : undefined;
        if (field) return { service_id: null, field_id: field.field_id };
        return {
          service_id: services[draft.parent % services.length]?.service_id ?? null,
          field_id: null,
        };
      };
      const common = (draft: RuleDraft): Omit<HashmapMapping, "mapping_id" | "value"> => ({
        ...parentOf(draft),
        type: draft.type,
        cost: draft.type === "flat" ? draft.flatCost : draft.rateCost,
        group_id:
          draft.group === null || groups.length === 0
            ? null
            : (groups[draft.group % groups.length]?.group_id ?? null),
        tenant_id: draft.tenant,
      });
      const mappings: HashmapMapping[] = drafts.mappings.map(({ draft, value }, index) => {
        const rule = common(draft);
        return { mapping_id: `m${index}`, ...rule, value: rule.field_id === null ? null : value };
      });
      const thresholds: HashmapThreshold[] = drafts.thresholds.map(({ draft, level }, index) => ({
        threshold_id: `t${index}`,
        ...common(draft),
        level,
      }));
      return { services, fields, groups, mappings, thresholds };
    });
}

export function pointArbitrary(
  metadataValue: fc.Arbitrary<unknown>,
  service: fc.Arbitrary<string> = fc.constantFrom(...SERVICE_NAMES, "unknown"),
): fc.Arbitrary<UsagePoint> {
  return fc.record({
    service,
    volume: fc.constantFrom(...VOLUMES),
    tenant: fc.constantFrom(...TENANTS),
    metadata: fc.dictionary(fc.constantFrom(...FIELD_NAMES), metadataValue),
  });
}

/** Metadata that a deliberately simple reference can read without Python's Decimal grammar. */
export const plainMetadataValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...MAPPING_VALUES),
  fc.constantFrom("0", "2.5", "5", "7", "100", "-3", "abc"),
  fc.integer({ min: -5, max: 200 }),
  fc.constantFrom(0.5, 2.5),
  fc.boolean(),
  fc.constant(null),
);
