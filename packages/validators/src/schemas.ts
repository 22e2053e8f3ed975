import { z } from "zod";
import { COST_PRECISION, LEVEL_PRECISION, parseDecimal, type DecimalPrecision } from "./decimal.js";
import { parseQueryBoolean } from "./query.js";
import { lifecycleFilters, lifecycleOut, ruleLifecycleBody, ZRuleName } from "./lifecycle.js";

// Input schemas avoid bare z.boolean()/z.number() leaves: trpc-to-openapi switches those to
// coercion on the shared schema object (so "false" would become true, on REST and RPC alike).
// Booleans and numbers go through explicit transforms instead; a test walks every input to check.

/** Ids inside JSON bodies must be UUIDs (CloudKitty's UuidType). */
export const ZUuid = z
  .string({ error: "Wrong type, expected a UUID string." })
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
    error: (issue) => `Invalid UUID, got '${String(issue.input)}'`,
  })
  .transform((id) => id.toLowerCase());

/** Ids in paths and filters are not checked: an unknown one is a 404 or an empty list. */
export const ZPathId = z.string().min(1);

/** The input of an operation without arguments: an unknown query argument is a 400, as in CloudKitty. */
export const ZNoArguments = z.strictObject({}).optional();

export const ZName = z.string({ error: "Wrong type, expected a string." }).trim().min(1, {
  error: "Must not be empty.",
});

export function decimalInput(precision: DecimalPrecision) {
  return z
    .union([z.string(), z.number()], { error: "Wrong type, expected a decimal number or string." })
    .transform((input, ctx) => {
      const parsed = parseDecimal(input, precision);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: "custom", message: parsed.reason, input });
      return z.NEVER;
    });
}

/** Exact decimal, rendered with 28 fractional digits. */
export const ZCostInput = decimalInput(COST_PRECISION);
/** Exact decimal, rendered with 8 fractional digits. */
export const ZLevelInput = decimalInput(LEVEL_PRECISION);

export const RULE_TYPES = ["flat", "rate"] as const;
export const ZRuleType = z.enum(RULE_TYPES, { error: "Value should be one of: flat, rate" });
export type TRuleType = z.infer<typeof ZRuleType>;

const ZTenantId = z.string({ error: "Wrong type, expected a string." }).nullable();

/** A query-string boolean (see parseQueryBoolean); RPC callers may send a real boolean. */
export const ZQueryBoolean = z
  .union([z.string(), z.boolean()], { error: "Expected true or false." })
  .transform((input, ctx) => {
    const parsed = parseQueryBoolean(input);
    if (parsed !== undefined) return parsed;
    ctx.addIssue({ code: "custom", message: "Expected true or false.", input });
    return z.NEVER;
  });

/** A JSON boolean in a body (never coerced from strings). */
export const ZBodyBoolean = z
  .boolean({ error: "Wrong type, expected true or false." })
  .transform((value) => value);

/** A JSON integer in a body (never coerced from strings). */
export const ZBodyInteger = z
  .int({ error: "Wrong type, expected an integer." })
  .transform((value) => value);

const ZDecimalString = z.string().meta({ example: "0.5000000000000000000000000000" });

// ---------------------------------------------------------------------------------------------
// Objects as the REST contract renders them (keys in CloudKitty's order).

export const ZService = z
  .object({ service_id: z.uuid(), name: z.string() })
  .meta({ id: "Service" });
export const ZField = z
  .object({ field_id: z.uuid(), name: z.string(), service_id: z.uuid() })
  .meta({ id: "Field" });
export const ZGroup = z.object({ group_id: z.uuid(), name: z.string() }).meta({ id: "Group" });

export const ZMapping = z
  .object({
    mapping_id: z.uuid(),
    value: z.string().nullable(),
    type: ZRuleType,
    cost: ZDecimalString,
    service_id: z.uuid().nullable(),
    field_id: z.uuid().nullable(),
    group_id: z.uuid().nullable(),
    tenant_id: z.string().nullable(),
    ...lifecycleOut,
  })
  .meta({ id: "Mapping" });

export const ZThreshold = z
  .object({
    threshold_id: z.uuid(),
    level: z.string().meta({ example: "10.00000000" }),
    type: ZRuleType,
    cost: ZDecimalString,
    service_id: z.uuid().nullable(),
    field_id: z.uuid().nullable(),
    group_id: z.uuid().nullable(),
    tenant_id: z.string().nullable(),
    ...lifecycleOut,
  })
  .meta({ id: "Threshold" });

/** A script's name is its own key (never null), so its lifecycle has no `name`. */
const { name: _ruleName, ...scriptLifecycleOut } = lifecycleOut;

export const ZScript = z
  .object({
    script_id: z.uuid(),
    name: z.string(),
    data: z.string().optional(),
    checksum: z.string(),
    ...scriptLifecycleOut,
  })
  .meta({ id: "Script" });

export const ZRatingModule = z
  .object({
    module_id: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    "hot-config": z.boolean(),
    priority: z.int(),
  })
  .meta({ id: "RatingModule" });

export type TService = z.infer<typeof ZService>;
export type TField = z.infer<typeof ZField>;
export type TGroup = z.infer<typeof ZGroup>;
export type TMapping = z.infer<typeof ZMapping>;
export type TThreshold = z.infer<typeof ZThreshold>;
export type TScript = z.infer<typeof ZScript>;
export type TRatingModule = z.infer<typeof ZRatingModule>;

// ---------------------------------------------------------------------------------------------
// Request bodies. Unknown attributes are refused, as CloudKitty does. A client-supplied id on
// create is accepted and ignored (the server generates ids).

export const ZServiceCreate = z.strictObject({ name: ZName, service_id: ZUuid.optional() });
export const ZFieldCreate = z.strictObject({
  name: ZName,
  service_id: ZUuid,
  field_id: ZUuid.optional(),
});
export const ZGroupCreate = z.strictObject({ name: ZName, group_id: ZUuid.optional() });

const ruleBody = {
  type: ZRuleType.optional(),
  cost: ZCostInput,
  service_id: ZUuid.nullable().optional(),
  field_id: ZUuid.nullable().optional(),
  group_id: ZUuid.nullable().optional(),
  tenant_id: ZTenantId.optional(),
  ...ruleLifecycleBody,
  name: ZRuleName.nullable().optional(),
};
const ZMappingValue = z.string({ error: "Wrong type, expected a string." }).nullable();

export const ZMappingCreate = z.strictObject({
  ...ruleBody,
  value: ZMappingValue.optional(),
  mapping_id: ZUuid.optional(),
});
export const ZThresholdCreate = z.strictObject({
  ...ruleBody,
  level: ZLevelInput,
  threshold_id: ZUuid.optional(),
});

/** PUT replaces the editable attributes; parents are accepted (the CLI sends the whole object) but never change. */
export const ZMappingUpdate = z.strictObject({
  ...ruleBody,
  value: ZMappingValue.optional(),
  mapping_id: ZPathId,
});
export const ZThresholdUpdate = z.strictObject({
  ...ruleBody,
  level: ZLevelInput,
  threshold_id: ZPathId,
});

export const ZRatingModuleUpdate = z.strictObject({
  module_id: ZPathId,
  description: z.string().optional(),
  enabled: ZBodyBoolean.optional(),
  "hot-config": ZBodyBoolean.optional(),
  priority: ZBodyInteger.optional(),
});

// ---------------------------------------------------------------------------------------------
// List filters (query strings).

export const ZRuleListFilters = z.strictObject({
  service_id: ZPathId.optional(),
  field_id: ZPathId.optional(),
  group_id: ZPathId.optional(),
  no_group: ZQueryBoolean.optional(),
  tenant_id: z.string().optional(),
  filter_tenant: ZQueryBoolean.optional(),
  ...lifecycleFilters,
  /** CloudKitty master: all=false without service_id, field_id or group_id is refused. */
  all: ZQueryBoolean.optional(),
});
export type TRuleListFilters = z.output<typeof ZRuleListFilters>;
export type TMappingCreate = z.output<typeof ZMappingCreate>;
export type TThresholdCreate = z.output<typeof ZThresholdCreate>;
export type TMappingUpdate = z.output<typeof ZMappingUpdate>;
export type TThresholdUpdate = z.output<typeof ZThresholdUpdate>;
