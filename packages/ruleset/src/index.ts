export * from "./document.js";
export * from "./serialize.js";
export * from "./plan.js";
export { exportRuleSet, type ExportOptions } from "./export.js";
export {
  canonicalCost,
  canonicalLevel,
  compareDecimals,
  toStoredCost,
  toStoredLevel,
  type CanonicalDecimal,
} from "./decimal.js";
export * from "./output-schemas.js";
