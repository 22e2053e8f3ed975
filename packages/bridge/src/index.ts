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
  type SupersededRule,
} from "./convert.js";
export { formatMoment, momentMillis } from "./moments.js";
export { isEmptyRuleSet, mergeRuleSets, type Merge, type MergeConflict } from "./merge.js";
export {
  isEmptyTargetPlan,
  planTarget,
  SUPERSEDE_DELAY_MS,
  TARGET_PLAN_OPS,
  type PlanGeneration,
  type TargetMatch,
  type TargetOperation,
  type TargetPlan,
  type TargetPlanOp,
  type TargetPlanOptions,
} from "./target-plan.js";
export {
  DRIFT_KINDS,
  driftTarget,
  type DriftAgainst,
  type DriftDifference,
  type DriftInput,
  type DriftKind,
  type TargetDrift,
  type TargetMetric,
} from "./target-drift.js";
export {
  APPLY_OUTCOMES,
  applyTargetPlan,
  type AppliedOperation,
  type AppliedRequest,
  type ApplyOutcome,
  type IdKind,
  type TargetApplyInput,
  type TargetApplyResult,
  type TargetApplyStatus,
} from "./target-apply.js";
