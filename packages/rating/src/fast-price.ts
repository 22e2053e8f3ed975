import type {
  CompiledMapping,
  CompiledThreshold,
  RatingIndex,
  ServicePlan,
  ThresholdGroup,
} from "./compile.js";
import { parsePythonDecimal } from "./decimal.js";
import {
  EXACT_MINUS_ONE,
  EXACT_ONE,
  EXACT_ZERO,
  addInto,
  compareExact,
  copyExact,
  exactInteger,
  exactOfDecimal,
  exactOfDouble,
  exactRegister,
  fitsPrecision,
  multiplyInto,
  parseExactDecimal,
  type ExactDecimal,
} from "./exact.js";
import { metadataText } from "./metadata.js";
import type { UsagePoint } from "./types.js";

/**
 * The per-group running state of one point (CloudKitty's `_res`), in arrays indexed by
 * groupIndex and reused from point to point, so that pricing a point allocates nothing unless a
 * coefficient outgrows a double. `touchedAt[group] === point` marks the groups the current point
 * has touched; `order` lists them in the order rules first touched them, the order CloudKitty sums
 * group prices in (which matters as soon as a sum rounds).
 */
class PointScratch {
  point = 0;
  touchedCount = 0;
  readonly touchedAt: Int32Array;
  readonly order: Int32Array;
  /** The winning flat cost per group (a rule's cost, never changed). */
  readonly flat: Readonly<ExactDecimal>[];
  /** The product of the rate costs per group (registers). */
  readonly rate: ExactDecimal[];
  readonly threshold: (CompiledThreshold | null)[];
  readonly flatWithThreshold = exactRegister();
  readonly price = exactRegister();
  readonly total = exactRegister();

  constructor(groupCount: number) {
    this.touchedAt = new Int32Array(groupCount);
    this.order = new Int32Array(groupCount);
    this.flat = Array.from({ length: groupCount }, () => EXACT_ZERO);
    this.rate = Array.from({ length: groupCount }, exactRegister);
    this.threshold = Array.from({ length: groupCount }, () => null);
  }

  startPoint(): void {
    this.point = this.point === 0x7fffffff ? 1 : this.point + 1;
    if (this.point === 1) this.touchedAt.fill(0);
    this.touchedCount = 0;
  }

  touch(group: number): void {
    if (this.touchedAt[group] === this.point) return;
    this.touchedAt[group] = this.point;
    this.flat[group] = EXACT_ZERO;
    copyExact(this.rate[group] ?? exactRegister(), EXACT_ONE);
    this.threshold[group] = null;
    this.order[this.touchedCount] = group;
    this.touchedCount += 1;
  }
}

const scratches = new WeakMap<RatingIndex, PointScratch>();

function scratchOf(index: RatingIndex): PointScratch {
  let scratch = scratches.get(index);
  if (!scratch) {
    scratch = new PointScratch(index.groupNames.length);
    scratches.set(index, scratch);
  }
  return scratch;
}

/**
 * The price of one point in exact arithmetic, or null when the fast path cannot vouch for it: a
 * product or sum CloudKitty would round (more than 28 significant digits), a volume or metadata
 * value outside the plain decimal form, an infinite metadata number, an exponent out of range.
 * The caller then prices the point with decimal.js (price.ts), which also raises the errors: this
 * function never throws for bad input. Same steps, same order as price.ts's ratePoint.
 *
 * The result is a register of the index's scratch state: read it before the next call.
 */
export function priceExactly(index: RatingIndex, point: UsagePoint): Readonly<ExactDecimal> | null {
  if (typeof point.volume !== "string") return null;
  const quantity = quantityOf(point.volume);
  if (quantity === null) return null;
  const serviceRules = index.services.get(point.service);
  if (!serviceRules) return EXACT_ZERO;
  const tenant = point.tenant ?? null;
  const plan = (tenant !== null && serviceRules.byTenant.get(tenant)) || serviceRules.global;
  const scratch = scratchOf(index);
  scratch.startPoint();
  if (!processService(scratch, plan, quantity)) return null;
  if (!processFields(scratch, plan, point.metadata ?? {})) return null;
  return addRatingInformations(scratch, quantity) ? scratch.total : null;
}

// A quote's points mostly share one volume text (the validators hand out one string per value):
// parsed once. Parsed values are never changed, so sharing one is safe.
let lastVolume = "";
let lastQuantity: Readonly<ExactDecimal> | null = parseExactDecimal(lastVolume);

function quantityOf(volume: string): Readonly<ExactDecimal> | null {
  if (volume !== lastVolume) {
    lastQuantity = parseExactDecimal(volume);
    lastVolume = volume;
  }
  return lastQuantity;
}

function processService(
  scratch: PointScratch,
  plan: ServicePlan,
  quantity: Readonly<ExactDecimal>,
): boolean {
  for (const slot of plan.serviceMappings) {
    if (!applyMapping(scratch, slot.rule)) return false;
  }
  for (const thresholdGroup of plan.serviceThresholds) {
    if (!applyReachedThreshold(scratch, thresholdGroup, quantity)) return false;
  }
  return true;
}

function processFields(
  scratch: PointScratch,
  plan: ServicePlan,
  metadata: Readonly<Record<string, unknown>>,
): boolean {
  for (const field of plan.fields) {
    if (!Object.hasOwn(metadata, field.name)) continue;
    const value = metadata[field.name];
    if (value === undefined) continue;
    const text = metadataText(value);
    if (text !== undefined) {
      const matches = field.mappingMatches.get(text) ?? field.fallbackMatches?.get(text);
      if (matches) {
        for (const slot of matches) if (!applyMapping(scratch, slot.rule)) return false;
      }
    }
    if (field.thresholdGroups.length === 0) continue;
    const level = metadataLevel(value);
    if (level === undefined) return false;
    // Not a number: price.ts skips this field's thresholds (a deliberate deviation).
    if (level === null) continue;
    for (const thresholdGroup of field.thresholdGroups) {
      if (!applyReachedThreshold(scratch, thresholdGroup, level)) return false;
    }
  }
  return true;
}

/**
 * metadataNumber's value, exactly: null where it is not a number, undefined where only the
 * decimal.js path can say (an infinity, an exponent out of range).
 */
function metadataLevel(value: unknown): Readonly<ExactDecimal> | null | undefined {
  switch (typeof value) {
    case "string": {
      const plain = parseExactDecimal(value);
      if (plain !== null) return plain;
      const pythonic = parsePythonDecimal(value);
      return pythonic === null ? null : (exactOfDecimal(pythonic) ?? undefined);
    }
    case "number":
      return Number.isNaN(value) ? null : (exactOfDouble(value) ?? undefined);
    case "boolean":
      return value ? EXACT_ONE : EXACT_ZERO;
    case "bigint":
      return exactInteger(value);
    default:
      return null;
  }
}

function applyMapping(scratch: PointScratch, mapping: CompiledMapping): boolean {
  const cost = mapping.exactCost;
  if (cost === null) return false;
  const group = mapping.groupIndex;
  scratch.touch(group);
  if (mapping.type === "rate") {
    const rate = scratch.rate[group];
    return rate !== undefined && multiplyInto(rate, rate, cost);
  }
  if (compareExact(cost, scratch.flat[group] ?? EXACT_ZERO) > 0) scratch.flat[group] = cost;
  return true;
}

function applyReachedThreshold(
  scratch: PointScratch,
  thresholdGroup: ThresholdGroup,
  measured: Readonly<ExactDecimal>,
): boolean {
  for (const slot of thresholdGroup.slotsByLevelDesc) {
    const level = slot.rule.exactLevel;
    if (level === null) return false;
    if (compareExact(measured, level) < 0) continue;
    const group = thresholdGroup.groupIndex;
    scratch.touch(group);
    const current = scratch.threshold[group];
    const currentLevel = current ? current.exactLevel : EXACT_MINUS_ONE;
    if (currentLevel === null) return false;
    if (compareExact(level, currentLevel) > 0) scratch.threshold[group] = slot.rule;
    return true;
  }
  return true;
}

/** Sums the group prices into scratch.total; false when a step would round. */
function addRatingInformations(scratch: PointScratch, quantity: Readonly<ExactDecimal>): boolean {
  copyExact(scratch.total, EXACT_ZERO);
  for (let position = 0; position < scratch.touchedCount; position += 1) {
    const group = scratch.order[position] ?? 0;
    if (!groupPrice(scratch, group, quantity)) return false;
    if (!addInto(scratch.total, scratch.total, scratch.price)) return false;
  }
  return true;
}

/**
 * price.ts's groupPrice into scratch.price, with every intermediate result checked against
 * CloudKitty's rounding; false when one would round.
 */
function groupPrice(
  scratch: PointScratch,
  group: number,
  quantity: Readonly<ExactDecimal>,
): boolean {
  const threshold = scratch.threshold[group] ?? null;
  const thresholdCost = threshold === null ? EXACT_ZERO : threshold.exactCost;
  const rate = scratch.rate[group];
  if (thresholdCost === null || rate === undefined) return false;
  const price = scratch.price;
  let flat = scratch.flat[group] ?? EXACT_ZERO;
  if (threshold?.scope === "field" && threshold.type === "flat") {
    if (!addInto(scratch.flatWithThreshold, flat, thresholdCost)) return false;
    flat = scratch.flatWithThreshold;
  }
  // With no threshold CloudKitty adds its default one (a field flat of 0), which rounds flat;
  // with a service threshold flat is rounded by the product below. Either way it must fit.
  if (!fitsPrecision(flat)) return false;
  if (threshold?.scope === "field" && threshold.type === "rate") {
    if (!multiplyInto(price, rate, thresholdCost) || !multiplyInto(price, price, flat)) {
      return false;
    }
  } else if (!multiplyInto(price, rate, flat)) {
    return false;
  }
  if (!multiplyInto(price, price, quantity)) return false;
  if (threshold?.scope === "service") {
    return threshold.type === "flat"
      ? addInto(price, price, thresholdCost)
      : multiplyInto(price, price, thresholdCost);
  }
  return true;
}
