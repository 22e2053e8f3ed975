import type { CompiledMapping, CompiledThreshold, SlotLoss } from "./compile.js";
import { formatDecimal } from "./decimal.js";

export function describeRule(rule: CompiledMapping | CompiledThreshold): string {
  const parent = rule.scope === "service" ? "service" : `field ${rule.fieldName ?? ""}`;
  const detail =
    rule.kind === "mapping"
      ? rule.value === null
        ? ""
        : ` value ${JSON.stringify(rule.value)}`
      : ` level ${formatDecimal(rule.level)}`;
  return `${parent} ${rule.kind} ${rule.id}${detail}`;
}

export function describeLoss(loss: SlotLoss<CompiledMapping | CompiledThreshold>): string {
  const { rule, replacedBy } = loss;
  if (rule.tenantId === null && replacedBy.tenantId !== null) {
    return `tenant ${replacedBy.tenantId} rule ${replacedBy.id} overrides global rule ${rule.id} (${describeRule(rule)})`;
  }
  return `${slotDescription(rule)}: the later one wins, ${replacedBy.id} replaces ${rule.id}`;
}

function slotDescription(rule: CompiledMapping | CompiledThreshold): string {
  if (rule.kind === "threshold") {
    return `two ${rule.scope} thresholds at level ${formatDecimal(rule.level)} in one group`;
  }
  if (rule.scope === "service") return "two service mappings in one group";
  return `two mappings of field ${rule.fieldName ?? ""} for value ${JSON.stringify(rule.value)} in one group`;
}
