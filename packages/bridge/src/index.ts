export {
  convertRuleSet,
  countRuleSet,
  describeReport,
  RATECARD_MODULES,
  type Conversion,
  type ConvertOptions,
  type DoubleArtifact,
  type DuplicateRule,
  type ImportReport,
  type RuleKind,
  type SkippedObject,
} from "./convert.js";
export { isEmptyRuleSet, mergeRuleSets, type Merge, type MergeConflict } from "./merge.js";
export {
  isEmptyTargetPlan,
  planTarget,
  TARGET_PLAN_OPS,
  type TargetOperation,
  type TargetPlan,
  type TargetPlanOp,
  type TargetPlanOptions,
} from "./target-plan.js";
