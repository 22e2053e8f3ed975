export type {
  AppliedThreshold,
  GroupBreakdown,
  HashmapField,
  HashmapGroup,
  HashmapMapping,
  HashmapRuleSet,
  HashmapService,
  HashmapThreshold,
  PointBreakdown,
  RuleScope,
  RuleType,
  UsagePoint,
} from "./types.js";
export type { RatingIndex } from "./compile.js";
export { DEFAULT_GROUP_NAME, RatingInputError, compileRuleSet } from "./compile.js";
export { RatingDecimal, formatDecimal, parsePythonDecimal } from "./decimal.js";
export { metadataNumber, metadataText } from "./metadata.js";
export { explainPoint, pricePoint, priceQuote } from "./price.js";
export type { RuleSetWarning, RuleSetWarningCode } from "./warnings.js";
export { findRuleSetWarnings } from "./warnings.js";
