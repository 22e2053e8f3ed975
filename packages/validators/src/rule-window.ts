import { z } from "zod";
import { ZQueryInteger } from "./query.js";
import { ZQueryBoolean, ZRuleType } from "./schemas.js";

// console.rules: one window of a rule list, filtered, searched, sorted and counted by the server,
// so that a console list of 10,000 rules downloads the rows it shows rather than all of them.

export const RULE_WINDOW_STATUSES = ["in_force", "scheduled", "ended", "deleted"] as const;
export type TRuleWindowStatus = (typeof RULE_WINDOW_STATUSES)[number];

/** The columns a rule list sorts by (the console's column ids). */
export const RULE_WINDOW_SORTS = [
  "kind",
  "attachedTo",
  "match",
  "type",
  "cost",
  "groupName",
  "tenant",
] as const;
export type TRuleWindowSort = (typeof RULE_WINDOW_SORTS)[number];

/** The most rows one window carries. */
export const RULE_WINDOW_MAX_LIMIT = 500;

/** The most rule ids one request names (they travel in a GET's query string). */
export const RULE_WINDOW_MAX_IDS = 100;

const ZText = z.string().min(1).max(1000);

export const ZRuleWindowInput = z
  .object({
    /** Only mappings or only thresholds; both without it. */
    kind: z.enum(["mapping", "threshold"]).optional(),
    /** Only these rules (mappings or thresholds, by id), e.g. those a price preview names. */
    ids: z.array(ZText).min(1).max(RULE_WINDOW_MAX_IDS).optional(),
    /** Rules attached to the service itself (not its fields' rules), as the REST filter. */
    service_id: ZText.optional(),
    field_id: ZText.optional(),
    group_id: ZText.optional(),
    /** Only rules in no group. */
    no_group: ZQueryBoolean.optional(),
    tenant_id: ZText.optional(),
    /** Only rules for every tenant (no tenant_id). */
    no_tenant: ZQueryBoolean.optional(),
    type: ZRuleType.optional(),
    /** Without it, every rule not deleted. */
    status: z.enum(RULE_WINDOW_STATUSES).optional(),
    /**
     * The moment in_force, scheduled and ended are judged at (ISO 8601). It is part of the input,
     * so that an answer depends only on its URL and the data (the server keeps answers per data
     * version), and every window of one list judges at the same moment.
     */
    at: z.iso.datetime({ offset: true }).optional(),
    /** Exact user id. */
    created_by: ZText.optional(),
    /** Contained in the description, in any case. */
    description: ZText.optional(),
    /**
     * Contained, in any case, in what a list shows: the service (and field) name, the value or
     * level, the group's name, the tenant, the cost, the type or the kind. Costs and levels are
     * searched in the stored fixed-digit form, so "0.50" finds a cost of 0.5.
     */
    q: ZText.optional(),
    sort: z.enum(RULE_WINDOW_SORTS).optional(),
    desc: ZQueryBoolean.optional(),
    /**
     * A rule whose position in this list the answer gives (`position`), e.g. one just saved that
     * the list scrolls to.
     */
    find: z.object({ kind: z.enum(["mapping", "threshold"]), id: ZText }).optional(),
    /** With each row, the warnings that involve it (what a list's warning badges show). */
    warnings: ZQueryBoolean.optional(),
    // Explicit transforms, not bare number leaves (see ZQueryInteger).
    offset: ZQueryInteger(0, 10_000_000).default(0),
    limit: ZQueryInteger(1, RULE_WINDOW_MAX_LIMIT).default(100),
  })
  .refine((input) => !input.status || input.status === "deleted" || input.at !== undefined, {
    message: "A status other than deleted is judged at a moment: give `at`.",
    path: ["at"],
  });
export type TRuleWindowInput = z.input<typeof ZRuleWindowInput>;

/** A warning that involves a rule, as the rule's row names it (console.rules with `warnings`). */
export const ZRuleWarningRef = z.object({
  warning_key: z.string(),
  code: z.string(),
  service_id: z.string().nullable(),
  group_id: z.string().nullable(),
  /** Acknowledged, and no rule involved changed since. */
  acknowledged: z.boolean(),
});
export type TRuleWarningRef = z.infer<typeof ZRuleWarningRef>;

/** A row of a rule list: the rule and the names the list shows beside it. */
export const ZRuleWindowRow = z.object({
  kind: z.enum(["mapping", "threshold"]),
  id: z.string(),
  /** Mappings: the matched value (null on service mappings). */
  value: z.string().nullable(),
  /** Thresholds: the level. */
  level: z.string().nullable(),
  type: ZRuleType,
  cost: z.string(),
  service_id: z.string().nullable(),
  field_id: z.string().nullable(),
  group_id: z.string().nullable(),
  tenant_id: z.string().nullable(),
  /** The service the rule is on, directly or through its field. */
  service_name: z.string(),
  field_name: z.string().nullable(),
  group_name: z.string().nullable(),
  revision: z.int(),
  start: z.string(),
  end: z.string().nullable(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  deleted: z.string().nullable(),
  created_by: z.string().nullable(),
  deleted_by: z.string().nullable(),
  /** With `warnings`: the warnings that involve the rule (none: an empty list). */
  warnings: z.array(ZRuleWarningRef).optional(),
});
export type TRuleWindowRow = z.infer<typeof ZRuleWindowRow>;

export const ZRuleWindow = z.object({
  /** How many rules match the filters (all windows together). */
  total: z.int(),
  offset: z.int(),
  rows: z.array(ZRuleWindowRow),
  /** With `find`: the rule's position in the whole list (0 first), null when it is not in it. */
  position: z.int().nullable().optional(),
});
export type TRuleWindow = z.infer<typeof ZRuleWindow>;
