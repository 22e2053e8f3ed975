import { Decimal } from "decimal.js";
import {
  COST_PRECISION,
  LEVEL_PRECISION,
  parseDecimal,
  type DecimalPrecision,
} from "@ratecard/validators";

// The document writes costs and levels in their shortest exact form ("0.5", "10", "0.00000001"):
// one text per value, so that equal rule sets serialize to equal bytes and a price change is a
// one-token diff. The database keeps fixed digits (formatCost/formatLevel); both are exact, and
// toStoredCost/toStoredLevel turn one into the other.

export type CanonicalDecimal = { ok: true; value: string } | { ok: false; reason: string };

function shortest(fixed: string): string {
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
}

function canonical(input: string, precision: DecimalPrecision): CanonicalDecimal {
  const parsed = parseDecimal(input, precision);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  return { ok: true, value: shortest(parsed.value) };
}

/** Any decimal text Ratecard accepts for a cost (28 fractional digits at most) -> shortest form. */
export function canonicalCost(input: string): CanonicalDecimal {
  return canonical(input, COST_PRECISION);
}

/** Any decimal text Ratecard accepts for a level (8 fractional digits at most) -> shortest form. */
export function canonicalLevel(input: string): CanonicalDecimal {
  return canonical(input, LEVEL_PRECISION);
}

/** A document's decimal in the fixed-digit text the database stores (exact both ways). */
export function toStoredCost(cost: string): string {
  const parsed = parseDecimal(cost, COST_PRECISION);
  if (!parsed.ok) throw new RangeError(`${cost}: ${parsed.reason}`);
  return parsed.value;
}

export function toStoredLevel(level: string): string {
  const parsed = parseDecimal(level, LEVEL_PRECISION);
  if (!parsed.ok) throw new RangeError(`${level}: ${parsed.reason}`);
  return parsed.value;
}

/** The stored fixed-digit text (or any decimal text) -> the document's shortest form. */
export function fromStored(stored: string, precision: DecimalPrecision): string {
  const result = canonical(stored, precision);
  if (!result.ok) throw new RangeError(`${stored}: ${result.reason}`);
  return result.value;
}

const Exact = Decimal.clone({ precision: 64 });

/** Numeric order of two decimal texts (thresholds are ordered by level as numbers, not text). */
export function compareDecimals(a: string, b: string): number {
  return new Exact(a).cmp(new Exact(b));
}
