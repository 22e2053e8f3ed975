import type { Decimal } from "decimal.js";
import { DEFAULT_GROUP_NAME, RatingInputError } from "./compile.js";
import type {
  CompiledMapping,
  CompiledThreshold,
  RatingIndex,
  ServicePlan,
  Slot,
  ThresholdGroup,
} from "./compile.js";
import { describeLoss, describeRule } from "./describe.js";
import { MINUS_ONE, ONE, ZERO, formatDecimal, parseFiniteDecimal } from "./decimal.js";
import { addInto, copyExact, decimalOfExact, exactRegister } from "./exact.js";
import { priceExactly } from "./fast-price.js";
import { metadataNumber, metadataText } from "./metadata.js";
import type { GroupBreakdown, PointBreakdown, UsagePoint } from "./types.js";

/** One entry of CloudKitty's `_res`: a group's running flat, rate and threshold slot. */
interface GroupState {
  flat: Decimal;
  /** Whether flat has at most 28 significant digits, so that rounding it changes nothing. */
  flatFitsPrecision: boolean;
  rate: Decimal;
  threshold: Slot<CompiledThreshold> | null;
  thresholdLevel: Decimal;
}

/** Collected only by explainPoint, so that pricePoint allocates nothing for it. */
interface Trace {
  serviceKnown: boolean;
  appliedMappings: Map<string, Slot<CompiledMapping>[]>;
  reachedThresholds: Map<string, Slot<CompiledThreshold>[]>;
  groupPrices: Map<string, Decimal>;
  warnings: string[];
}

/**
 * The price of one usage point, as CloudKitty's hashmap module computes it. Exact BigInt
 * arithmetic (fast-price.ts) prices it whenever no result needs CloudKitty's 28-digit rounding,
 * which is then the same number; decimal.js does the rest.
 */
export function pricePoint(index: RatingIndex, point: UsagePoint): Decimal {
  const exact = priceExactly(index, point);
  return exact === null ? pricePointInDecimal(index, point) : decimalOfExact(exact);
}

/** pricePoint without the exact fast path: every step in decimal.js, rounded as CloudKitty rounds. */
export function pricePointInDecimal(index: RatingIndex, point: UsagePoint): Decimal {
  return ratePoint(index, point, null).total;
}

/** Sums points in the order CloudKitty's quote does: grouped by service, services in first-seen order. */
export function priceQuote(index: RatingIndex, points: readonly UsagePoint[]): Decimal {
  // Exact while every running sum fits CloudKitty's precision, then decimal.js from there on.
  const exactTotal = exactRegister();
  const exactSum = exactRegister();
  let total: Decimal | null = null;
  for (const point of inQuoteOrder(points)) {
    const price = priceExactly(index, point);
    if (total === null && price !== null && addInto(exactSum, exactTotal, price)) {
      copyExact(exactTotal, exactSum);
      continue;
    }
    total ??= decimalOfExact(exactTotal);
    total = total.plus(price === null ? pricePointInDecimal(index, point) : decimalOfExact(price));
  }
  return total ?? decimalOfExact(exactTotal);
}

/** priceQuote without the exact fast path. */
export function priceQuoteInDecimal(index: RatingIndex, points: readonly UsagePoint[]): Decimal {
  let total = ZERO;
  for (const point of inQuoteOrder(points)) total = total.plus(pricePointInDecimal(index, point));
  return total;
}

function inQuoteOrder(points: readonly UsagePoint[]): readonly UsagePoint[] {
  // Most quotes price one service: they are in that order already.
  const first = points[0]?.service;
  if (points.every((point) => point.service === first)) return points;
  const byService = new Map<string, UsagePoint[]>();
  for (const point of points) {
    const list = byService.get(point.service);
    if (list) list.push(point);
    else byService.set(point.service, [point]);
  }
  return [...byService.values()].flat();
}

/** The price of one usage point with every step that produced it. */
export function explainPoint(index: RatingIndex, point: UsagePoint): PointBreakdown {
  const trace: Trace = {
    serviceKnown: false,
    appliedMappings: new Map(),
    reachedThresholds: new Map(),
    groupPrices: new Map(),
    warnings: [],
  };
  const { total, groups } = ratePoint(index, point, trace);
  const breakdowns: GroupBreakdown[] = [];
  for (const [groupName, state] of groups) {
    breakdowns.push(groupBreakdown(index, groupName, state, trace));
  }
  return {
    service: point.service,
    tenant: point.tenant ?? null,
    service_known: trace.serviceKnown,
    groups: breakdowns,
    total: formatDecimal(total),
    warnings: trace.warnings,
  };
}

function ratePoint(
  index: RatingIndex,
  point: UsagePoint,
  trace: Trace | null,
): { total: Decimal; groups: Map<string, GroupState> } {
  const quantity = parseVolume(point.volume);
  const groups = new Map<string, GroupState>();
  const serviceRules = index.services.get(point.service);
  if (!serviceRules) return { total: ZERO, groups };
  if (trace) trace.serviceKnown = true;
  const tenant = point.tenant ?? null;
  const plan = (tenant !== null && serviceRules.byTenant.get(tenant)) || serviceRules.global;
  processService(plan, quantity, groups, trace);
  processFields(plan, point.metadata ?? {}, groups, trace);
  return { total: addRatingInformations(groups, quantity, trace), groups };
}

function parseVolume(volume: unknown): Decimal {
  const quantity = typeof volume === "string" ? parseFiniteDecimal(volume) : null;
  if (quantity === null)
    throw new RatingInputError(`volume is not a finite decimal: ${String(volume)}`);
  return quantity;
}

function processService(
  plan: ServicePlan,
  quantity: Decimal,
  groups: Map<string, GroupState>,
  trace: Trace | null,
): void {
  for (const slot of plan.serviceMappings) applyMapping(groups, slot, trace);
  for (const thresholdGroup of plan.serviceThresholds) {
    applyReachedThreshold(groups, thresholdGroup, quantity, trace);
  }
}

function processFields(
  plan: ServicePlan,
  metadata: Readonly<Record<string, unknown>>,
  groups: Map<string, GroupState>,
  trace: Trace | null,
): void {
  for (const field of plan.fields) {
    if (!Object.hasOwn(metadata, field.name)) continue;
    const value = metadata[field.name];
    if (value === undefined) continue;
    const text = metadataText(value);
    if (text !== undefined) {
      const matches = field.mappingMatches.get(text) ?? field.fallbackMatches?.get(text) ?? [];
      for (const slot of matches) applyMapping(groups, slot, trace);
    }
    if (field.thresholdGroups.length === 0) continue;
    const level = metadataNumber(value);
    // CloudKitty raises here and fails the rating of the whole point; Ratecard
    // deliberately prices the point without this field's thresholds instead.
    if (level === null) {
      trace?.warnings.push(
        `metadata ${field.name}=${describeValue(value)} is not a number: its field thresholds were skipped (CloudKitty would fail this point)`,
      );
      continue;
    }
    for (const thresholdGroup of field.thresholdGroups) {
      applyReachedThreshold(groups, thresholdGroup, level, trace);
    }
  }
}

function describeValue(value: unknown): string {
  return typeof value === "string"
    ? JSON.stringify(value)
    : String(metadataText(value) ?? typeof value);
}

function groupState(groups: Map<string, GroupState>, groupName: string): GroupState {
  let state = groups.get(groupName);
  if (!state) {
    state = {
      flat: ZERO,
      flatFitsPrecision: true,
      rate: ONE,
      threshold: null,
      thresholdLevel: MINUS_ONE,
    };
    groups.set(groupName, state);
  }
  return state;
}

/** update_result for a mapping: a flat only wins if strictly above the group's flat (which starts at 0). */
function applyMapping(
  groups: Map<string, GroupState>,
  slot: Slot<CompiledMapping>,
  trace: Trace | null,
): void {
  const mapping = slot.rule;
  const state = groupState(groups, mapping.groupName);
  if (mapping.type === "rate") state.rate = state.rate.times(mapping.cost);
  else if (mapping.cost.gt(state.flat)) {
    state.flat = mapping.cost;
    state.flatFitsPrecision = mapping.costFitsPrecision;
  }
  if (trace) appendTo(trace.appliedMappings, mapping.groupName, slot);
}

/**
 * process_thresholds for one group: CloudKitty offers every reached level to
 * update_result, which keeps a strictly higher one, so only the highest
 * reached level of this group can take the slot.
 */
function applyReachedThreshold(
  groups: Map<string, GroupState>,
  thresholdGroup: ThresholdGroup,
  measured: Decimal,
  trace: Trace | null,
): void {
  for (const slot of thresholdGroup.slotsByLevelDesc) {
    if (!measured.gte(slot.rule.level)) continue;
    const state = groupState(groups, thresholdGroup.groupName);
    if (slot.rule.level.gt(state.thresholdLevel)) {
      state.threshold = slot;
      state.thresholdLevel = slot.rule.level;
    }
    if (trace) appendTo(trace.reachedThresholds, thresholdGroup.groupName, slot);
    return;
  }
}

/**
 * add_rating_informations: every product and sum rounds to 28 digits, so the
 * order of operations is part of the result. Groups are summed in the order
 * rules first touched them.
 */
function addRatingInformations(
  groups: Map<string, GroupState>,
  quantity: Decimal,
  trace: Trace | null,
): Decimal {
  let total = ZERO;
  for (const [groupName, state] of groups) {
    const price = groupPrice(state, quantity);
    trace?.groupPrices.set(groupName, price);
    total = total.plus(price);
  }
  return total;
}

function groupPrice(state: GroupState, quantity: Decimal): Decimal {
  const threshold = state.threshold?.rule;
  let { flat, rate } = state;
  let flatFitsPrecision = state.flatFitsPrecision;
  if (threshold?.scope === "field") {
    if (threshold.type === "flat") {
      flat = flat.plus(threshold.cost);
      flatFitsPrecision = true;
    } else {
      rate = rate.times(threshold.cost);
    }
  } else if (!threshold && !flatFitsPrecision) {
    // An empty slot is CloudKitty's default threshold, a field flat of 0: adding it rounds flat.
    flat = flat.plus(ZERO);
    flatFitsPrecision = true;
  }
  // Skipping 1 x flat when it could not round saves a third of the arithmetic of a typical point.
  let price = rate === ONE && flatFitsPrecision ? flat : rate.times(flat);
  price = price.times(quantity);
  if (threshold?.scope === "service") {
    price = threshold.type === "flat" ? price.plus(threshold.cost) : price.times(threshold.cost);
  }
  return price;
}

function appendTo<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function groupBreakdown(
  index: RatingIndex,
  groupName: string,
  state: GroupState,
  trace: Trace,
): GroupBreakdown {
  const applied = trace.appliedMappings.get(groupName) ?? [];
  const threshold = state.threshold?.rule ?? null;
  const warnings = applied.flatMap((slot) => slot.losses.map(describeLoss));
  if (state.threshold) warnings.push(...state.threshold.losses.map(describeLoss));
  for (const reached of trace.reachedThresholds.get(groupName) ?? []) {
    if (reached !== state.threshold && threshold)
      warnings.push(describeLostCompetition(reached.rule, threshold));
  }
  const groupId = index.groupIds.get(groupName) ?? null;
  if (groupName === DEFAULT_GROUP_NAME && groupId !== null) {
    warnings.push(
      `group ${groupId} is named ${DEFAULT_GROUP_NAME}: it shares its slots with the rules that have no group`,
    );
  }
  return {
    group_id: groupId,
    group_name: groupName,
    flat: formatDecimal(state.flat),
    rate: formatDecimal(state.rate),
    threshold: threshold && {
      threshold_id: threshold.id,
      level: formatDecimal(threshold.level),
      type: threshold.type,
      cost: formatDecimal(threshold.cost),
      kind: threshold.scope,
      field_name: threshold.fieldName,
    },
    price: formatDecimal(trace.groupPrices.get(groupName) ?? ZERO),
    mapping_ids: applied.map((slot) => slot.rule.id),
    warnings,
  };
}

function describeLostCompetition(loser: CompiledThreshold, winner: CompiledThreshold): string {
  const outcome = loser.level.eq(winner.level)
    ? "ties with it and was processed later"
    : "has a lower level";
  return `threshold ${loser.id} (${describeRule(loser)}) was reached but the group's one threshold slot went to ${winner.id} (${describeRule(winner)}): it ${outcome}`;
}
