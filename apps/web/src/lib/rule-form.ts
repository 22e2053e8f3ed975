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
  /** "" lets the server make one up. */
  name: string;
  description: string;
  /** A datetime-local value in the browser's time zone; "" is now. */
  start: string;
  /** A datetime-local value in the browser's time zone; "" is never. */
  end: string;
  /** The operator confirmed a start in the past (the API's `force`). */
  force: boolean;
}

/**
 * A moment as the API writes it (UTC without an offset, CloudKitty's format) or with an offset,
 * as a datetime-local value in the browser's time zone; "" for none.
 */
export function utcToLocalInput(moment: string | null | undefined): string {
  if (!moment) return "";
  const date = parseApiMoment(moment);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/** The API's moments carry no offset and are UTC; `new Date()` would read them as local time. */
export function parseApiMoment(moment: string): Date {
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(moment) ? moment : `${moment}Z`);
}

/** A datetime-local value (browser time zone) as an ISO 8601 moment in UTC; undefined if unreadable. */
export function localInputToUtc(local: string): string | undefined {
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Whether a datetime-local value is before `now`. */
export function isPastLocal(local: string, now: Date = new Date()): boolean {
  const date = new Date(local);
  return !Number.isNaN(date.getTime()) && date.getTime() < now.getTime();
}

/** "Scheduled" (not started), "Ended", or null for a rule in force (or deleted: shown apart). */
export function ruleStatus(
  rule: { start?: string | null | undefined; end?: string | null | undefined },
  now: Date = new Date(),
): "Scheduled" | "Ended" | null {
  if (rule.end && parseApiMoment(rule.end).getTime() <= now.getTime()) return "Ended";
  if (rule.start && parseApiMoment(rule.start).getTime() > now.getTime()) return "Scheduled";
  return null;
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
  name: z.string(),
  description: z.string(),
  start: z.string(),
  end: z.string(),
  force: z.boolean(),
});

type FormValuesParsed = z.output<typeof ZRuleFormValues>;

export const PAST_START =
  "This start is in the past: prices already rated are not changed. Tick “Start in the past” to confirm.";

/** Date checks the browser can make before asking (the server checks them again). */
function checkDates(values: FormValuesParsed, ctx: z.RefinementCtx, initial?: RuleFormValues) {
  const startChanged = !initial || values.start !== initial.start;
  if (values.start && !localInputToUtc(values.start))
    ctx.addIssue({ code: "custom", path: ["start"], message: "Enter a date and time." });
  if (values.end && !localInputToUtc(values.end))
    ctx.addIssue({ code: "custom", path: ["end"], message: "Enter a date and time." });
  if (!initial && startChanged && values.start && isPastLocal(values.start) && !values.force)
    ctx.addIssue({ code: "custom", path: ["start"], message: PAST_START });
  const start = values.start ? localInputToUtc(values.start) : new Date().toISOString();
  const end = values.end ? localInputToUtc(values.end) : undefined;
  if (start && end && end < start)
    ctx.addIssue({
      code: "custom",
      path: ["end"],
      message: "The end must not be before the start.",
    });
}

/**
 * The lifecycle attributes to send. Editing, an unchanged start or end is left out (it stays as
 * it is, to the microsecond, and strict mode accepts only what changes).
 */
function lifecycleInput(values: FormValuesParsed, initial?: RuleFormValues) {
  const name = values.name.trim();
  const description = values.description.trim();
  return {
    ...(name && { name }),
    ...(description ? { description } : initial?.description ? { description: null } : {}),
    ...((!initial || values.start !== initial.start) &&
      values.start && { start: localInputToUtc(values.start) }),
    ...((!initial || values.end !== initial.end) &&
      (values.end ? { end: localInputToUtc(values.end) } : initial ? { end: null } : {})),
  };
}

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

/** The mapping form's schema; `initial` is the rule's values when editing. */
export const mappingFormSchema = (initial?: RuleFormValues) =>
  ZRuleFormValues.superRefine((values, ctx) => {
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
    checkDates(values, ctx, initial);
  })
    .transform((values): z.input<typeof ZMappingCreate> => ({
      ...commonRuleInput(values),
      ...(isFieldParent(decodeParent(values.parent)) && { value: values.value }),
      ...lifecycleInput(values, initial),
    }))
    .pipe(ZMappingCreate);
export const ZMappingForm = mappingFormSchema();

/** The threshold form's schema; `initial` is the rule's values when editing. */
export const thresholdFormSchema = (initial?: RuleFormValues) =>
  ZRuleFormValues.superRefine((values, ctx) => {
    if (!decodeParent(values.parent))
      ctx.addIssue({ code: "custom", path: ["parent"], message: PARENT_MISSING });
    if (!values.level.trim()) {
      ctx.addIssue({ code: "custom", path: ["level"], message: "Enter a level, for example 100." });
    }
    if (!values.cost.trim()) {
      ctx.addIssue({ code: "custom", path: ["cost"], message: "Enter a cost, for example 0.95." });
    }
    checkDates(values, ctx, initial);
  })
    .transform((values): z.input<typeof ZThresholdCreate> => ({
      ...commonRuleInput(values),
      level: values.level.trim(),
      ...lifecycleInput(values, initial),
    }))
    .pipe(ZThresholdCreate);
export const ZThresholdForm = thresholdFormSchema();

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
  name?: string | null | undefined;
  description?: string | null | undefined;
  start?: string | null | undefined;
  end?: string | null | undefined;
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
    name: rule.name ?? "",
    description: rule.description ?? "",
    start: utcToLocalInput(rule.start),
    end: utcToLocalInput(rule.end),
    force: false,
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
    name: "",
    description: "",
    start: "",
    end: "",
    force: false,
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

/** An API moment for people, in the browser's time zone. */
export function formatApiMoment(moment: string): string {
  const date = parseApiMoment(moment);
  return Number.isNaN(date.getTime())
    ? moment
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * The field a lifecycle refusal of the server is about (CloudKitty master's messages), or
 * undefined for one about the whole rule (strict mode's "only the attribute [end]").
 */
export function lifecycleErrorField(message: string): "start" | "end" | undefined {
  if (/start in the past/i.test(message)) return "start";
  if (/start after end|end date must be in the future/i.test(message)) return "end";
  return undefined;
}
