import { z } from "zod";
import { RULE_TYPES, ZMappingCreate, ZThresholdCreate, type TRuleType } from "@ratecard/validators";
import { trimDecimal } from "./decimal";

// The mapping and threshold forms hold text; these schemas check it and turn it into the API's
// input, then validate that with the API's own schemas (ZMappingCreate, ZThresholdCreate), so the
// form refuses exactly what the server would refuse, with the same messages.

export type RuleParent = { service_id: string } | { field_id: string };

export interface RuleFormValues {
  /** "service:<id>" or "field:<id>"; "" until chosen. */
  parent: string;
  type: TRuleType;
  cost: string;
  /** The metadata value a field mapping matches (unused for service mappings and thresholds). */
  value: string;
  /** Thresholds only. */
  level: string;
  /** "" is no group. */
  group_id: string;
  /** "" applies to every tenant. */
  tenant_id: string;
}

export function encodeParent(parent: RuleParent): string {
  return "field_id" in parent ? `field:${parent.field_id}` : `service:${parent.service_id}`;
}

export function decodeParent(text: string): RuleParent | null {
  const [kind, id] = [text.slice(0, text.indexOf(":")), text.slice(text.indexOf(":") + 1)];
  if (!id) return null;
  if (kind === "service") return { service_id: id };
  if (kind === "field") return { field_id: id };
  return null;
}

export const isFieldParent = (parent: RuleParent | null): parent is { field_id: string } =>
  parent !== null && "field_id" in parent;

const ZRuleFormValues = z.object({
  parent: z.string(),
  type: z.enum(RULE_TYPES, { error: "Choose flat or rate." }),
  cost: z.string(),
  value: z.string(),
  level: z.string(),
  group_id: z.string(),
  tenant_id: z.string(),
});

const PARENT_MISSING = "Choose the service or field this rule is attached to.";

function commonRuleInput(values: RuleFormValues) {
  return {
    ...decodeParent(values.parent),
    type: values.type,
    cost: values.cost.trim(),
    group_id: values.group_id || null,
    tenant_id: values.tenant_id.trim() || null,
  };
}

export const ZMappingForm = ZRuleFormValues.superRefine((values, ctx) => {
  const parent = decodeParent(values.parent);
  if (!parent) ctx.addIssue({ code: "custom", path: ["parent"], message: PARENT_MISSING });
  if (isFieldParent(parent) && values.value === "") {
    ctx.addIssue({
      code: "custom",
      path: ["value"],
      message: "Enter the metadata value this mapping matches, for example m1.small.",
    });
  }
  if (!values.cost.trim()) {
    ctx.addIssue({ code: "custom", path: ["cost"], message: "Enter a cost, for example 0.01." });
  }
})
  .transform((values): z.input<typeof ZMappingCreate> => ({
    ...commonRuleInput(values),
    ...(isFieldParent(decodeParent(values.parent)) && { value: values.value }),
  }))
  .pipe(ZMappingCreate);

export const ZThresholdForm = ZRuleFormValues.superRefine((values, ctx) => {
  if (!decodeParent(values.parent))
    ctx.addIssue({ code: "custom", path: ["parent"], message: PARENT_MISSING });
  if (!values.level.trim()) {
    ctx.addIssue({ code: "custom", path: ["level"], message: "Enter a level, for example 100." });
  }
  if (!values.cost.trim()) {
    ctx.addIssue({ code: "custom", path: ["cost"], message: "Enter a cost, for example 0.95." });
  }
})
  .transform((values): z.input<typeof ZThresholdCreate> => ({
    ...commonRuleInput(values),
    level: values.level.trim(),
  }))
  .pipe(ZThresholdCreate);

export type MappingInput = z.output<typeof ZMappingForm>;
export type ThresholdInput = z.output<typeof ZThresholdForm>;

export interface ExistingRule {
  type: TRuleType;
  cost: string;
  value?: string | null;
  level?: string;
  service_id: string | null;
  field_id: string | null;
  group_id: string | null;
  tenant_id: string | null;
  /** The revision read (RPC answers carry it); saves send it back. */
  revision?: number | undefined;
}

/** Form values for editing a rule. */
export function ruleFormValues(rule: ExistingRule): RuleFormValues {
  return {
    parent: rule.field_id
      ? `field:${rule.field_id}`
      : rule.service_id
        ? `service:${rule.service_id}`
        : "",
    type: rule.type,
    cost: trimDecimal(rule.cost),
    value: rule.value ?? "",
    level: rule.level ? trimDecimal(rule.level) : "",
    group_id: rule.group_id ?? "",
    tenant_id: rule.tenant_id ?? "",
  };
}

/** Form values for a new rule, with what the page it was opened from preselects. */
export function newRuleFormValues(preselected: {
  parent?: RuleParent | null;
  groupId?: string | undefined;
}): RuleFormValues {
  return {
    parent: preselected.parent ? encodeParent(preselected.parent) : "",
    type: "flat",
    cost: "",
    value: "",
    level: "",
    group_id: preselected.groupId ?? "",
    tenant_id: "",
  };
}

/** "Edit field mapping", "New service threshold", "Field mapping" (read only). */
export function ruleFormTitle(
  kind: "mapping" | "threshold",
  parent: RuleParent | null,
  editing: boolean,
  canWrite: boolean,
): string {
  const parentKind = isFieldParent(parent) ? "field" : parent ? "service" : "";
  const words = [editing ? (canWrite ? "Edit" : "") : "New", parentKind, kind].filter(Boolean);
  const title = words.join(" ");
  return title.charAt(0).toUpperCase() + title.slice(1);
}
