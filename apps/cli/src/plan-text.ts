import type { PlanOperation, RuleSetPlan } from "@ratecard/ruleset";

// A plan as a reviewer reads it in a terminal or a CI log: one line per operation with its path,
// the changed keys with before -> after under an update, the reason under a replacement.

const SIGN = { create: "+", update: "~", delete: "-" } as const;

function show(value: unknown): string {
  if (value === null || value === undefined) return "null";
  const text = JSON.stringify(value);
  // A script's source: its size and start, not a wall of text (the file's diff shows the rest).
  return text.length > 120
    ? `${text.slice(0, 60)}..." (${typeof value === "string" ? value.length : text.length} characters)`
    : text;
}

/**
 * What identifies the object beyond its path: a rule's value or level, type, cost, tenant, group,
 * and its validity when it is scheduled or ends.
 */
function summary(operation: PlanOperation): string {
  const record = (operation.after ?? operation.before) as unknown as Record<string, unknown>;
  switch (operation.kind) {
    case "mapping":
    case "threshold": {
      const parts = [
        operation.kind === "mapping"
          ? record.value === null
            ? "service mapping"
            : `value ${show(record.value)}`
          : `level ${String(record.level)}`,
        `${String(record.type)} ${String(record.cost)}`,
      ];
      if (record.tenant_id !== null) parts.push(`tenant ${show(record.tenant_id)}`);
      if (record.group_id !== null) parts.push(`group ${show(record.group_id).replace(/"/g, "")}`);
      // The lifecycle, when it is not "in force from now on": a scheduled start, an end.
      if (typeof record.start === "string" && Date.parse(`${record.start}Z`) > Date.now())
        parts.push(`starts ${record.start}`);
      if (typeof record.end === "string") parts.push(`ends ${record.end}`);
      return ` (${parts.join(", ")})`;
    }
    case "module":
      return ` (enabled ${show(record.enabled)}, priority ${show(record.priority)})`;
    default:
      return "";
  }
}

export function countsLine(plan: RuleSetPlan): string {
  const { create, update, delete: remove } = plan.counts;
  return `${create} to create, ${update} to update, ${remove} to delete`;
}

export function formatPlan(plan: RuleSetPlan): string {
  const lines: string[] = [];
  if (plan.operations.length === 0) {
    lines.push(`No changes: Ratecard's rule set (revision ${plan.revision}) is the document.`);
    return `${lines.join("\n")}\n`;
  }
  lines.push(`Plan against revision ${plan.revision}: ${countsLine(plan)}.`, "");
  const width = Math.max(...plan.operations.map((op) => op.kind.length));
  for (const operation of plan.operations) {
    lines.push(
      `  ${SIGN[operation.op]} ${operation.op.padEnd(6)} ${operation.kind.padEnd(width)} ${operation.path}` +
        (operation.op === "update" ? "" : summary(operation)),
    );
    if (operation.op === "update") {
      const before = operation.before as unknown as Record<string, unknown>;
      const after = operation.after as unknown as Record<string, unknown>;
      for (const key of operation.changes ?? [])
        lines.push(`        ${key}: ${show(before[key])} -> ${show(after[key])}`);
    }
    if (operation.reason) lines.push(`        (${operation.reason})`);
  }
  return `${lines.join("\n")}\n`;
}
