import { DEFAULT_GROUP_NAME, compileRuleSet } from "./compile.js";
import type {
  CompiledMapping,
  CompiledThreshold,
  RatingIndex,
  ServicePlan,
  Slot,
  SlotLoss,
} from "./compile.js";
import { MINUS_ONE, ZERO } from "./decimal.js";
import { describeLoss, describeRule } from "./describe.js";
import type { HashmapRuleSet } from "./types.js";

export type RuleSetWarningCode =
  | "rate-without-flat"
  | "tenant-overrides-global"
  | "slot-replaced"
  | "flats-do-not-add"
  | "thresholds-compete"
  | "flat-never-applies"
  | "threshold-never-applies"
  | "group-named-default";

export interface RuleSetWarning {
  code: RuleSetWarningCode;
  message: string;
  service_id: string | null;
  /** null for the default group or when the warning is not about one group. */
  group_id: string | null;
  /** The tenant whose pricing is affected; null for every tenant without its own rules. */
  tenant_id: string | null;
  rule_ids: string[];
}

type AnyRule = CompiledMapping | CompiledThreshold;

interface EffectiveGroup {
  mappings: CompiledMapping[];
  thresholds: CompiledThreshold[];
  /** Rules that lost their slot in this group, with the rule that took it. */
  losses: SlotLoss<AnyRule>[];
}

/** Lint-style findings on a rule set: rules that price nothing or that another rule silently beats. */
export function findRuleSetWarnings(rules: HashmapRuleSet): RuleSetWarning[] {
  const index = compileRuleSet(rules);
  const warnings: RuleSetWarning[] = [];
  const seen = new Set<string>();
  const report = (key: string, warning: () => RuleSetWarning): void => {
    if (seen.has(key)) return;
    seen.add(key);
    warnings.push(warning());
  };
  for (const group of rules.groups) {
    if (group.name !== DEFAULT_GROUP_NAME) continue;
    report(`default-name:${group.group_id}`, () => ({
      code: "group-named-default",
      message: `group ${group.group_id} is named ${DEFAULT_GROUP_NAME}: CloudKitty keys groups by name, so its rules share slots with the rules that have no group`,
      service_id: null,
      group_id: group.group_id,
      tenant_id: null,
      rule_ids: [],
    }));
  }
  for (const [serviceName, serviceRules] of index.services) {
    const plans: [string | null, ServicePlan][] = [
      [null, serviceRules.global],
      ...serviceRules.byTenant,
    ];
    const globalGroups = effectiveGroups(serviceRules.global);
    for (const [tenant, plan] of plans) {
      const context = { index, serviceId: serviceRules.serviceId, serviceName, tenant, report };
      const groups = tenant === null ? globalGroups : effectiveGroups(plan);
      for (const [groupName, group] of groups) {
        if (tenant !== null && !hasRuleOf(group, tenant)) continue;
        checkGroup({ ...context, groupName, group, globalGroup: globalGroups.get(groupName) });
        for (const loss of group.losses) {
          if (loss.replacedBy.tenantId === tenant) reportLoss({ ...context, loss });
        }
      }
    }
  }
  return warnings;
}

interface PlanContext {
  index: RatingIndex;
  serviceId: string;
  serviceName: string;
  tenant: string | null;
  report: (key: string, warning: () => RuleSetWarning) => void;
}

function checkGroup(
  context: PlanContext & {
    groupName: string;
    group: EffectiveGroup;
    globalGroup: EffectiveGroup | undefined;
  },
): void {
  const { group, globalGroup } = context;
  const where = `group ${context.groupName} of service ${context.serviceName}${context.tenant === null ? "" : ` for tenant ${context.tenant}`}`;
  const warn = (
    code: RuleSetWarningCode,
    message: () => string,
    rules: readonly AnyRule[],
  ): void => {
    const ruleIds = rules.map((rule) => rule.id);
    const key = `${code}:${context.serviceId}:${context.groupName}:${ruleIds.join(",")}`;
    context.report(key, () => ({
      code,
      message: message(),
      service_id: context.serviceId,
      group_id: context.index.groupIds.get(context.groupName) ?? null,
      tenant_id: context.tenant,
      rule_ids: ruleIds,
    }));
  };
  // A tenant inherits the global plan's problems; only report what its own rules cause.
  const newProblem = (holds: (candidate: EffectiveGroup) => boolean): boolean =>
    holds(group) && (context.tenant === null || !globalGroup || !holds(globalGroup));
  if (newProblem(isRateOnly)) {
    warn(
      "rate-without-flat",
      () =>
        `${where} has rate rules but no positive flat mapping or flat field threshold: the rates multiply 0, so the group prices nothing`,
      rateRules(group),
    );
  }
  if (newProblem((candidate) => flatMappingSources(candidate).size > 1)) {
    const flatSources = flatMappingSources(group);
    warn(
      "flats-do-not-add",
      () =>
        `${where} has flat mappings from ${[...flatSources.keys()].join(" and ")}: in one group they do not add up, only the highest matching one counts`,
      [...flatSources.values()].flat(),
    );
  }
  if (newProblem((candidate) => thresholdSources(candidate).size > 1)) {
    warn(
      "thresholds-compete",
      () =>
        `${where} has thresholds on ${[...thresholdSources(group)].join(" and ")}: they compete for one threshold slot by level alone, even though they measure different things`,
      group.thresholds,
    );
  }
  const ownRule = (rule: AnyRule): boolean => rule.tenantId === context.tenant;
  for (const mapping of group.mappings.filter(ownRule)) {
    if (mapping.type === "flat" && mapping.cost.lt(ZERO)) {
      warn(
        "flat-never-applies",
        () =>
          `${describeRule(mapping)} in ${where} has a negative flat cost: a flat only applies above the group's flat, which starts at 0`,
        [mapping],
      );
    }
  }
  for (const threshold of group.thresholds.filter(ownRule)) {
    if (threshold.level.lte(MINUS_ONE)) {
      warn(
        "threshold-never-applies",
        () =>
          `${describeRule(threshold)} in ${where} has a level at or below -1: the threshold slot starts at -1 and only a higher level takes it`,
        [threshold],
      );
    }
  }
}

function reportLoss(context: PlanContext & { loss: SlotLoss<AnyRule> }): void {
  const { loss } = context;
  const overridesGlobal = loss.rule.tenantId === null && loss.replacedBy.tenantId !== null;
  const code: RuleSetWarningCode = overridesGlobal ? "tenant-overrides-global" : "slot-replaced";
  context.report(`${code}:${loss.rule.id}:${loss.replacedBy.id}`, () => ({
    code,
    message: `service ${context.serviceName}, group ${loss.rule.groupName}: ${describeLoss(loss)}`,
    service_id: context.serviceId,
    group_id: context.index.groupIds.get(loss.rule.groupName) ?? null,
    tenant_id: loss.replacedBy.tenantId,
    rule_ids: [loss.replacedBy.id, loss.rule.id],
  }));
}

/** The rules that hold a slot in a plan, per group: what a point of this tenant can meet. */
function effectiveGroups(plan: ServicePlan): Map<string, EffectiveGroup> {
  const groups = new Map<string, EffectiveGroup>();
  const groupOf = (groupName: string): EffectiveGroup => {
    let group = groups.get(groupName);
    if (!group) {
      group = { mappings: [], thresholds: [], losses: [] };
      groups.set(groupName, group);
    }
    return group;
  };
  for (const slot of mappingSlots(plan)) {
    const group = groupOf(slot.rule.groupName);
    group.mappings.push(slot.rule);
    group.losses.push(...slot.losses);
  }
  for (const slot of thresholdSlots(plan)) {
    const group = groupOf(slot.rule.groupName);
    group.thresholds.push(slot.rule);
    group.losses.push(...slot.losses);
  }
  return groups;
}

function mappingSlots(plan: ServicePlan): Slot<CompiledMapping>[] {
  const slots = [...plan.serviceMappings];
  for (const field of plan.fields) {
    for (const matches of field.mappingMatches.values()) slots.push(...matches);
    for (const [value, matches] of field.fallbackMatches ?? []) {
      if (!field.mappingMatches.has(value)) slots.push(...matches);
    }
  }
  return slots;
}

function thresholdSlots(plan: ServicePlan): Slot<CompiledThreshold>[] {
  const groups = [
    ...plan.serviceThresholds,
    ...plan.fields.flatMap((field) => field.thresholdGroups),
  ];
  return groups.flatMap((group) => [...group.slotsByLevelDesc]);
}

/** Groups a tenant's rules do not reach price as in the global plan, whose warnings cover them. */
function hasRuleOf(group: EffectiveGroup, tenant: string): boolean {
  const own = (rule: AnyRule): boolean => rule.tenantId === tenant;
  return group.mappings.some(own) || group.thresholds.some(own);
}

function rateRules(group: EffectiveGroup): AnyRule[] {
  return [...group.mappings, ...group.thresholds].filter((rule) => rule.type === "rate");
}

function isRateOnly(group: EffectiveGroup): boolean {
  return rateRules(group).length > 0 && !hasFlat(group);
}

function hasFlat(group: EffectiveGroup): boolean {
  const positiveFlat = (rule: AnyRule): boolean => rule.type === "flat" && rule.cost.gt(ZERO);
  return (
    group.mappings.some(positiveFlat) ||
    group.thresholds.some((rule) => rule.scope === "field" && positiveFlat(rule))
  );
}

/** Flat mappings of one field never match together (one value per point); different sources can. */
function flatMappingSources(group: EffectiveGroup): Map<string, CompiledMapping[]> {
  const sources = new Map<string, CompiledMapping[]>();
  for (const mapping of group.mappings) {
    if (mapping.type !== "flat") continue;
    const source = mapping.scope === "service" ? "the service" : `field ${mapping.fieldName ?? ""}`;
    sources.set(source, [...(sources.get(source) ?? []), mapping]);
  }
  return sources;
}

function thresholdSources(group: EffectiveGroup): Set<string> {
  return new Set(
    group.thresholds.map((threshold) =>
      threshold.scope === "service" ? "the quantity" : `field ${threshold.fieldName ?? ""}`,
    ),
  );
}
