// Confirmation texts for destructive actions: they name the object and what goes with it.

export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}

/** ["a"] -> "a"; ["a","b"] -> "a and b"; ["a","b","c"] -> "a, b and c". */
export function joinWithAnd(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

interface RuleCounts {
  mappings: number;
  thresholds: number;
}

function ruleParts(counts: RuleCounts): string[] {
  return [countOf(counts.mappings, "mapping"), countOf(counts.thresholds, "threshold")];
}

export function serviceDeletionText(name: string, counts: RuleCounts & { fields: number }): string {
  if (counts.fields + counts.mappings + counts.thresholds === 0) {
    return `Service “${name}” has no fields, mappings or thresholds. Only the service is deleted.`;
  }
  return (
    `Deleting service “${name}” also deletes ${joinWithAnd([countOf(counts.fields, "field"), ...ruleParts(counts)])}. ` +
    "Usage of this metric will no longer be priced by the hashmap module."
  );
}

export function fieldDeletionText(name: string, counts: RuleCounts): string {
  if (counts.mappings + counts.thresholds === 0) {
    return `Field “${name}” has no mappings or thresholds. Only the field is deleted.`;
  }
  return `Deleting field “${name}” also deletes its ${joinWithAnd(ruleParts(counts))}.`;
}

export type GroupDeletionMode = "keep-rules" | "delete-rules";

export function groupDeletionText(
  name: string,
  counts: RuleCounts,
  mode: GroupDeletionMode,
): string {
  const rules = joinWithAnd(ruleParts(counts));
  if (counts.mappings + counts.thresholds === 0) {
    return `Group “${name}” has no mappings or thresholds. Only the group is deleted.`;
  }
  if (mode === "delete-rules") return `Deleting group “${name}” also deletes its ${rules}.`;
  return (
    `Group “${name}” is deleted; its ${rules} stay and move to no group (the default group). ` +
    "They are then priced together with the other rules without a group, which can change prices."
  );
}
