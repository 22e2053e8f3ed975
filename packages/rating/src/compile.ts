import type { Decimal } from "decimal.js";
import { RatingDecimal, parseRuleDecimal } from "./decimal.js";
import { parseExactDecimal, type ExactDecimal } from "./exact.js";
import type {
  HashmapField,
  HashmapMapping,
  HashmapRuleSet,
  HashmapThreshold,
  RuleScope,
  RuleType,
} from "./types.js";

/** CloudKitty's key for rules without a group; a group with this name shares its slots. */
export const DEFAULT_GROUP_NAME = "_DEFAULT_";

/** Raised for a rule set or usage point that cannot be priced at all. */
export class RatingInputError extends Error {
  override name = "RatingInputError";
}

interface CompiledRule {
  id: string;
  type: RuleType;
  cost: Decimal;
  /** The cost for the fast path; null when it is beyond its exponent range (then decimal.js prices). */
  exactCost: Readonly<ExactDecimal> | null;
  /** CloudKitty keys groups by name, so that is the identity of a group here. */
  groupName: string;
  /** The group's position in RatingIndex.groupNames, for the fast path's per-group state. */
  groupIndex: number;
  tenantId: string | null;
  scope: RuleScope;
  fieldName: string | null;
}

export interface CompiledMapping extends CompiledRule {
  kind: "mapping";
  value: string | null;
  /** At most 28 significant digits: CloudKitty's rounding leaves the cost unchanged. */
  costFitsPrecision: boolean;
}

export interface CompiledThreshold extends CompiledRule {
  kind: "threshold";
  level: Decimal;
  exactLevel: Readonly<ExactDecimal> | null;
}

export interface SlotLoss<R> {
  rule: R;
  replacedBy: R;
}

/** One dictionary entry of CloudKitty's loaded rules: the rule that won it, and those it replaced. */
export interface Slot<R> {
  rule: R;
  losses: readonly SlotLoss<R>[];
}

export interface ThresholdGroup {
  groupName: string;
  groupIndex: number;
  /** Only the highest reached level of a group's thresholds can win, so they are kept sorted. */
  slotsByLevelDesc: readonly Slot<CompiledThreshold>[];
}

export interface FieldPlan {
  name: string;
  /** Matching mappings per metadata text, in CloudKitty's group order (one per group at most). */
  mappingMatches: ReadonlyMap<string, readonly Slot<CompiledMapping>[]>;
  /** A tenant plan only stores the values its rules touch and falls back to the global plan. */
  fallbackMatches: ReadonlyMap<string, readonly Slot<CompiledMapping>[]> | null;
  thresholdGroups: readonly ThresholdGroup[];
}

/** What CloudKitty's HashMap holds in `_entries[service]` for one tenant. */
export interface ServicePlan {
  serviceMappings: readonly Slot<CompiledMapping>[];
  serviceThresholds: readonly ThresholdGroup[];
  fields: readonly FieldPlan[];
}

export interface ServiceRules {
  serviceId: string;
  global: ServicePlan;
  byTenant: ReadonlyMap<string, ServicePlan>;
}

/** Built once by compileRuleSet; treat it as opaque and immutable. */
export interface RatingIndex {
  services: ReadonlyMap<string, ServiceRules>;
  /** group name -> group id, to report which group a slot belongs to. */
  groupIds: ReadonlyMap<string, string>;
  /** Every group name rules can use (the default one first), each once; see groupIndex. */
  groupNames: readonly string[];
}

/** Python dicts of dicts: group -> slot key -> slot. JS Maps keep the same insertion order rules. */
type SlotTable<R> = Map<string, Map<string, Slot<R>>>;

const SERVICE_MAPPING_SLOT = "";

interface RuleBuckets {
  mappingsByService: Map<string, CompiledMapping[]>;
  mappingsByField: Map<string, CompiledMapping[]>;
  thresholdsByService: Map<string, CompiledThreshold[]>;
  thresholdsByField: Map<string, CompiledThreshold[]>;
}

/**
 * Indexes a rule set for pricing: per service name, per tenant that has rules
 * for it, the slots CloudKitty's HashMap would hold after `_load_rates`.
 */
export function compileRuleSet(rules: HashmapRuleSet): RatingIndex {
  const groupNames = new Map(rules.groups.map((group) => [group.group_id, group.name]));
  const groupIndexes = new Map([[DEFAULT_GROUP_NAME, 0]]);
  for (const group of rules.groups) {
    if (!groupIndexes.has(group.name)) groupIndexes.set(group.name, groupIndexes.size);
  }
  const fieldsById = new Map(rules.fields.map((field) => [field.field_id, field]));
  const buckets = bucketRules(rules, { groupNames, groupIndexes }, fieldsById);
  const services = new Map<string, ServiceRules>();
  for (const service of rules.services) {
    const fields = rules.fields.filter((field) => field.service_id === service.service_id);
    services.set(service.name, compileService(service.service_id, fields, buckets));
  }
  const groupIds = new Map(rules.groups.map((group) => [group.name, group.group_id]));
  return { services, groupIds, groupNames: [...groupIndexes.keys()] };
}

interface GroupLookup {
  /** group id -> group name */
  groupNames: ReadonlyMap<string, string>;
  /** group name -> groupIndex */
  groupIndexes: ReadonlyMap<string, number>;
}

function bucketRules(
  rules: HashmapRuleSet,
  groups: GroupLookup,
  fieldsById: ReadonlyMap<string, HashmapField>,
): RuleBuckets {
  const buckets: RuleBuckets = {
    mappingsByService: new Map(),
    mappingsByField: new Map(),
    thresholdsByService: new Map(),
    thresholdsByField: new Map(),
  };
  for (const mapping of rules.mappings) {
    if (mapping.service_id) {
      const compiled = compileMapping(mapping, "service", null, groups);
      pushTo(buckets.mappingsByService, mapping.service_id, compiled);
    }
    const field = mapping.field_id ? fieldsById.get(mapping.field_id) : undefined;
    if (field) {
      const compiled = compileMapping(mapping, "field", field.name, groups);
      pushTo(buckets.mappingsByField, field.field_id, compiled);
    }
  }
  for (const threshold of rules.thresholds) {
    if (threshold.service_id) {
      const compiled = compileThreshold(threshold, "service", null, groups);
      pushTo(buckets.thresholdsByService, threshold.service_id, compiled);
    }
    const field = threshold.field_id ? fieldsById.get(threshold.field_id) : undefined;
    if (field) {
      const compiled = compileThreshold(threshold, "field", field.name, groups);
      pushTo(buckets.thresholdsByField, field.field_id, compiled);
    }
  }
  return buckets;
}

function compileMapping(
  mapping: HashmapMapping,
  scope: RuleScope,
  fieldName: string | null,
  groups: GroupLookup,
): CompiledMapping {
  const id = mapping.mapping_id;
  const value = mapping.value ?? null;
  if (scope === "service" && value) {
    throw new RatingInputError(`service mapping ${id} has a value; only field mappings have one`);
  }
  if (scope === "field" && !value) {
    throw new RatingInputError(`field mapping ${id} has no value`);
  }
  const cost = ruleDecimal(mapping.cost, `cost of mapping ${id}`);
  const groupName = groupNameOf(mapping.group_id, groups.groupNames, id);
  return {
    kind: "mapping",
    id,
    type: ruleType(mapping.type, id),
    cost,
    exactCost: parseExactDecimal(mapping.cost),
    costFitsPrecision: cost.sd() <= RatingDecimal.precision,
    groupName,
    groupIndex: groups.groupIndexes.get(groupName) ?? 0,
    tenantId: mapping.tenant_id ?? null,
    scope,
    fieldName,
    value: scope === "field" ? value : null,
  };
}

function compileThreshold(
  threshold: HashmapThreshold,
  scope: RuleScope,
  fieldName: string | null,
  groups: GroupLookup,
): CompiledThreshold {
  const id = threshold.threshold_id;
  const groupName = groupNameOf(threshold.group_id, groups.groupNames, id);
  return {
    kind: "threshold",
    id,
    type: ruleType(threshold.type, id),
    cost: ruleDecimal(threshold.cost, `cost of threshold ${id}`),
    exactCost: parseExactDecimal(threshold.cost),
    level: ruleDecimal(threshold.level, `level of threshold ${id}`),
    exactLevel: parseExactDecimal(threshold.level),
    groupName,
    groupIndex: groups.groupIndexes.get(groupName) ?? 0,
    tenantId: threshold.tenant_id ?? null,
    scope,
    fieldName,
  };
}

function ruleType(type: unknown, ruleId: string): RuleType {
  if (type === "flat" || type === "rate") return type;
  throw new RatingInputError(`rule ${ruleId} has type ${String(type)}; expected flat or rate`);
}

function ruleDecimal(text: unknown, what: string): Decimal {
  const value = parseRuleDecimal(text);
  if (value === null) throw new RatingInputError(`${what} is not a decimal: ${String(text)}`);
  return value;
}

/** CloudKitty tests `if group_id:`, so an empty id means no group too. */
function groupNameOf(
  groupId: string | null | undefined,
  groupNames: ReadonlyMap<string, string>,
  ruleId: string,
): string {
  if (!groupId) return DEFAULT_GROUP_NAME;
  const name = groupNames.get(groupId);
  if (name === undefined)
    throw new RatingInputError(`rule ${ruleId} names unknown group ${groupId}`);
  return name;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

interface ServiceRuleLists {
  mappings: readonly CompiledMapping[];
  thresholds: readonly CompiledThreshold[];
  fields: readonly FieldRuleLists[];
}

interface FieldRuleLists {
  name: string;
  mappings: readonly CompiledMapping[];
  thresholds: readonly CompiledThreshold[];
}

/** The global rules loaded per slot: the base every tenant's plan starts from. */
interface GlobalTables {
  mappings: SlotTable<CompiledMapping>;
  thresholds: SlotTable<CompiledThreshold>;
  fields: readonly GlobalFieldTables[];
}

interface GlobalFieldTables {
  mappings: SlotTable<CompiledMapping>;
  thresholds: SlotTable<CompiledThreshold>;
  rules: FieldRuleLists;
}

function compileService(
  serviceId: string,
  fields: readonly HashmapField[],
  buckets: RuleBuckets,
): ServiceRules {
  const rules: ServiceRuleLists = {
    mappings: buckets.mappingsByService.get(serviceId) ?? [],
    thresholds: buckets.thresholdsByService.get(serviceId) ?? [],
    fields: fields.map((field) => ({
      name: field.name,
      mappings: buckets.mappingsByField.get(field.field_id) ?? [],
      thresholds: buckets.thresholdsByField.get(field.field_id) ?? [],
    })),
  };
  const tables = globalTables(rules);
  const global: ServicePlan = {
    serviceMappings: serviceMappingSlots(tables.mappings),
    serviceThresholds: thresholdGroups(tables.thresholds),
    fields: tables.fields.map(globalFieldPlan),
  };
  const byTenant = new Map<string, ServicePlan>();
  for (const tenant of tenantsOf(rules)) {
    byTenant.set(tenant, tenantPlan(rules, tables, global, tenant));
  }
  return { serviceId, global, byTenant };
}

function globalTables(rules: ServiceRuleLists): GlobalTables {
  const fields = new Map<string, GlobalFieldTables>();
  for (const field of rules.fields) {
    // Python's `fields[name] = {}` replaces a duplicate name in place, keeping its position.
    fields.set(field.name, {
      mappings: loadSlots(new Map(), globalRules(field.mappings), valueSlotKey),
      thresholds: loadSlots(new Map(), globalRules(field.thresholds), levelSlotKey),
      rules: field,
    });
  }
  return {
    mappings: loadSlots(new Map(), globalRules(rules.mappings), serviceSlotKey),
    thresholds: loadSlots(new Map(), globalRules(rules.thresholds), levelSlotKey),
    fields: [...fields.values()],
  };
}

function tenantPlan(
  rules: ServiceRuleLists,
  tables: GlobalTables,
  global: ServicePlan,
  tenant: string,
): ServicePlan {
  const mappings = tenantRules(rules.mappings, tenant);
  const thresholds = tenantRules(rules.thresholds, tenant);
  return {
    serviceMappings: serviceMappingSlots(
      loadSlots(copyTable(tables.mappings), mappings, serviceSlotKey),
    ),
    serviceThresholds: thresholdGroups(
      loadSlots(copyTable(tables.thresholds), thresholds, levelSlotKey),
    ),
    fields: tables.fields.map((fieldTables, position) =>
      tenantFieldPlan(fieldTables, global.fields[position], tenant),
    ),
  };
}

function serviceSlotKey(): string {
  return SERVICE_MAPPING_SLOT;
}

function valueSlotKey(mapping: CompiledMapping): string {
  return mapping.value ?? "";
}

/** Python hashes Decimal('50') and Decimal('50.0') alike: levels collide by value. */
function levelSlotKey(threshold: CompiledThreshold): string {
  return threshold.level.toString();
}

function globalRules<R extends CompiledRule>(rules: readonly R[]): R[] {
  return rules.filter((rule) => rule.tenantId === null);
}

function tenantRules<R extends CompiledRule>(rules: readonly R[], tenant: string): R[] {
  return rules.filter((rule) => rule.tenantId === tenant);
}

function tenantsOf(rules: ServiceRuleLists): Set<string> {
  const ruleLists = [
    rules.mappings,
    rules.thresholds,
    ...rules.fields.flatMap((field) => [field.mappings, field.thresholds]),
  ];
  const tenants = new Set<string>();
  for (const list of ruleLists) {
    for (const rule of list) if (rule.tenantId !== null) tenants.add(rule.tenantId);
  }
  return tenants;
}

/**
 * Loads rules the way `_load_*` plus `_update_entries` do: later rules replace
 * earlier ones in the same slot, which keeps its place in the dict order.
 */
function loadSlots<R extends CompiledRule>(
  table: SlotTable<R>,
  rules: readonly R[],
  slotKey: (rule: R) => string,
): SlotTable<R> {
  for (const rule of rules) {
    let slots = table.get(rule.groupName);
    if (!slots) {
      slots = new Map();
      table.set(rule.groupName, slots);
    }
    const key = slotKey(rule);
    slots.set(key, replaceSlot(slots.get(key), rule));
  }
  return table;
}

function replaceSlot<R>(previous: Slot<R> | undefined, rule: R): Slot<R> {
  if (!previous) return { rule, losses: [] };
  return { rule, losses: [...previous.losses, { rule: previous.rule, replacedBy: rule }] };
}

function copyTable<R>(table: SlotTable<R>): SlotTable<R> {
  return new Map([...table].map(([group, slots]) => [group, new Map(slots)]));
}

function serviceMappingSlots(table: SlotTable<CompiledMapping>): Slot<CompiledMapping>[] {
  const slots: Slot<CompiledMapping>[] = [];
  for (const groupSlots of table.values()) {
    const slot = groupSlots.get(SERVICE_MAPPING_SLOT);
    if (slot) slots.push(slot);
  }
  return slots;
}

function thresholdGroups(table: SlotTable<CompiledThreshold>): ThresholdGroup[] {
  return [...table].map(([groupName, slots]) => ({
    groupName,
    groupIndex: slots.values().next().value?.rule.groupIndex ?? 0,
    slotsByLevelDesc: [...slots.values()].sort((a, b) => b.rule.level.comparedTo(a.rule.level)),
  }));
}

/** Regroups group -> value -> slot as value -> slots in group order, for one lookup per point. */
function matchesByValue(table: SlotTable<CompiledMapping>): Map<string, Slot<CompiledMapping>[]> {
  const matches = new Map<string, Slot<CompiledMapping>[]>();
  for (const slots of table.values()) {
    for (const [value, slot] of slots) pushTo(matches, value, slot);
  }
  return matches;
}

function globalFieldPlan(tables: GlobalFieldTables): FieldPlan {
  return {
    name: tables.rules.name,
    mappingMatches: matchesByValue(tables.mappings),
    fallbackMatches: null,
    thresholdGroups: thresholdGroups(tables.thresholds),
  };
}

function tenantFieldPlan(
  tables: GlobalFieldTables,
  globalPlan: FieldPlan | undefined,
  tenant: string,
): FieldPlan {
  const mappings = tenantRules(tables.rules.mappings, tenant);
  const thresholds = tenantRules(tables.rules.thresholds, tenant);
  if (globalPlan && mappings.length === 0 && thresholds.length === 0) return globalPlan;
  return {
    name: tables.rules.name,
    mappingMatches: tenantMappingMatches(tables.mappings, mappings),
    fallbackMatches: globalPlan?.mappingMatches ?? null,
    thresholdGroups: thresholdGroups(
      loadSlots(copyTable(tables.thresholds), thresholds, levelSlotKey),
    ),
  };
}

/**
 * The merged matches for the values a tenant's rules touch. Copying the whole
 * global table per tenant would cost memory proportional to tenants x global
 * rules; untouched values keep the global matches, whose group order is the
 * same because a tenant's new groups only come after the global ones.
 */
function tenantMappingMatches(
  globalTable: SlotTable<CompiledMapping>,
  tenantMappings: readonly CompiledMapping[],
): Map<string, Slot<CompiledMapping>[]> {
  const tenantTable = loadSlots(new Map(), tenantMappings, valueSlotKey);
  const groupOrder = [...globalTable.keys()];
  for (const group of tenantTable.keys()) if (!globalTable.has(group)) groupOrder.push(group);
  const touchedValues = new Set(tenantMappings.map(valueSlotKey));
  const matches = new Map<string, Slot<CompiledMapping>[]>();
  for (const value of touchedValues) {
    const slots: Slot<CompiledMapping>[] = [];
    for (const group of groupOrder) {
      const globalSlot = globalTable.get(group)?.get(value);
      const tenantSlot = tenantTable.get(group)?.get(value);
      const slot = tenantSlot ? mergeSlots(globalSlot, tenantSlot) : globalSlot;
      if (slot) slots.push(slot);
    }
    matches.set(value, slots);
  }
  return matches;
}

function mergeSlots<R>(globalSlot: Slot<R> | undefined, tenantSlot: Slot<R>): Slot<R> {
  if (!globalSlot) return tenantSlot;
  const firstTenantRule = tenantSlot.losses[0]?.rule ?? tenantSlot.rule;
  return {
    rule: tenantSlot.rule,
    losses: [
      ...globalSlot.losses,
      { rule: globalSlot.rule, replacedBy: firstTenantRule },
      ...tenantSlot.losses,
    ],
  };
}
