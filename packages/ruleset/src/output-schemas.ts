import { z } from "zod";
import { RULE_TYPES, RULESET_FORMAT, RULESET_VERSIONS } from "./document.js";
import { OBJECT_KINDS } from "./plan.js";

/*
 * What the server answers, as plain zod schemas (no transforms), for the procedures' `.output()`
 * and the OpenAPI document: the canonical rule-set document (`GET /v1/ratecard/ruleset`) and a plan
 * (`POST /v1/ratecard/ruleset/plan`). Requests are read with ZRuleSetDocument (document.ts).
 */

const ZId = z.uuid();
const ZDecimal = (example: string) =>
  z.string().meta({ description: "Exact decimal, shortest form, as a string", example });
const ZType = z.enum(RULE_TYPES);

const ZMoment = z.string().meta({
  description: "UTC, ISO 8601 without an offset, microseconds when not zero",
  example: "2027-01-01T00:00:00",
});
/** The lifecycle's desired state: every key in an export; absent in a document means "keep". */
const lifecycleOut = {
  start: ZMoment.optional(),
  end: ZMoment.nullable().optional(),
  description: z.string().nullable().optional(),
};
const ruleLifecycleOut = {
  start: lifecycleOut.start,
  end: lifecycleOut.end,
  name: z.string().nullable().optional(),
  description: lifecycleOut.description,
};

const ZMappingOut = z.object({
  id: ZId,
  value: z.string().nullable().meta({ description: "null on a service mapping" }),
  type: ZType,
  cost: ZDecimal("0.5"),
  tenant_id: z.string().nullable(),
  group_id: ZId.nullable(),
  ...ruleLifecycleOut,
});

const ZThresholdOut = z.object({
  id: ZId,
  level: ZDecimal("10"),
  type: ZType,
  cost: ZDecimal("0.5"),
  tenant_id: z.string().nullable(),
  group_id: ZId.nullable(),
  ...ruleLifecycleOut,
});

export const ZRuleSetDocumentOutput = z
  .object({
    format: z.literal(RULESET_FORMAT),
    version: z.literal(RULESET_VERSIONS),
    revision: z.string(),
    modules: z.array(z.object({ id: z.string(), enabled: z.boolean(), priority: z.int() })),
    groups: z.array(z.object({ id: ZId, name: z.string() })),
    services: z.array(
      z.object({
        id: ZId,
        name: z.string(),
        mappings: z.array(ZMappingOut),
        thresholds: z.array(ZThresholdOut),
        fields: z.array(
          z.object({
            id: ZId,
            name: z.string(),
            mappings: z.array(ZMappingOut),
            thresholds: z.array(ZThresholdOut),
          }),
        ),
      }),
    ),
    scripts: z.array(z.object({ id: ZId, name: z.string(), data: z.string(), ...lifecycleOut })),
  })
  .meta({ id: "RuleSet" });

const ZRecord = z.record(z.string(), z.unknown()).meta({
  description:
    "The object without its children, with its parent's id (field: service_id; rule: service_id or field_id)",
});

const ZActionCounts = z.object({ create: z.int(), update: z.int(), delete: z.int() });

export const ZRuleSetIssueOutput = z
  .object({ path: z.string(), message: z.string() })
  .meta({ id: "RuleSetIssue" });

export const ZRuleSetPlanOutput = z
  .object({
    revision: z.string(),
    operations: z.array(
      z.object({
        op: z.enum(["create", "update", "delete"]),
        kind: z.enum(OBJECT_KINDS),
        id: z.string(),
        path: z.string(),
        before: ZRecord.nullable(),
        after: ZRecord.nullable(),
        changes: z.array(z.string()).optional(),
        reason: z.string().optional(),
      }),
    ),
    counts: ZActionCounts.extend({
      byKind: z.object(
        Object.fromEntries(OBJECT_KINDS.map((kind) => [kind, ZActionCounts])) as Record<
          (typeof OBJECT_KINDS)[number],
          typeof ZActionCounts
        >,
      ),
    }),
    errors: z.array(ZRuleSetIssueOutput),
  })
  .meta({ id: "RuleSetPlan" });
