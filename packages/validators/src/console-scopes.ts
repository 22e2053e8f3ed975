import { z } from "zod";
import { ZQueryInteger } from "./query.js";
import { ZRuleWindowRow } from "./rule-window.js";
import { ZRuleType } from "./schemas.js";
import { ZAcknowledgeableWarning } from "./warning-acks.js";

// What a service, field or group page shows about the rules beneath it, read by scope on the
// server (RPC only): its warnings with the few rules each names, and its history. The page then
// downloads neither every rule nor one trail per rule, whatever the number of rules.

/** How many of a warning's rules a warnings panel names before it counts the rest. */
export const WARNING_RULES_SHOWN = 5;

const ZText = z.string().min(1).max(1000);

/** The warnings of one service or group, or those involving one field's rules. */
export const ZWarningScopeInput = z.object({
  service_id: ZText.optional(),
  group_id: ZText.optional(),
  /** Warnings that involve at least one of this field's rules. */
  field_id: ZText.optional(),
});
export type TWarningScopeInput = z.input<typeof ZWarningScopeInput>;

/**
 * The rules explorer's filters that hold every rule of a warning: what they all share (kind,
 * parent, type, tenant) and the warning's group. The explorer cannot filter by ids, so a warning
 * whose rules share less than its scope lists a few more rules there.
 */
export const ZWarningExplorerFilters = z.object({
  kind: z.enum(["mappings", "thresholds"]).optional(),
  service_id: z.string().optional(),
  field_id: z.string().optional(),
  group_id: z.string().optional(),
  no_group: z.literal(true).optional(),
  tenant_id: z.string().optional(),
  no_tenant: z.literal(true).optional(),
  type: ZRuleType.optional(),
});
export type TWarningExplorerFilters = z.infer<typeof ZWarningExplorerFilters>;

/**
 * A warning as a panel shows it: `rule_ids` holds only the first WARNING_RULES_SHOWN rules (a
 * warning about a whole group may involve thousands), `rule_count` all of them, `rules` those
 * first rules as list rows (a rule deleted meanwhile is missing), and `explorer` where to see the
 * rest.
 */
export const ZScopedWarning = ZAcknowledgeableWarning.extend({
  rule_count: z.int(),
  rules: z.array(ZRuleWindowRow),
  explorer: ZWarningExplorerFilters,
});
export type TScopedWarning = z.infer<typeof ZScopedWarning>;

export const ZScopedWarnings = z.object({ warnings: z.array(ZScopedWarning) });
export type TScopedWarnings = z.infer<typeof ZScopedWarnings>;

/** The most events one page of a record's history carries. */
export const RECORD_HISTORY_MAX_PAGE = 200;

/**
 * A record's history: its own events and those of the records beneath it (a service's fields and
 * service rules, a field's rules, a group's rules), newest first, a page at a time.
 */
export const ZRecordHistoryInput = z.object({
  resource_type: z.enum(["service", "field", "group"]),
  resource_id: ZText,
  limit: ZQueryInteger(1, RECORD_HISTORY_MAX_PAGE).optional(),
  /** The previous page's `next`. */
  cursor: z.string().max(20).optional(),
});
export type TRecordHistoryInput = z.input<typeof ZRecordHistoryInput>;
