import { z } from "zod";
import type { SortingState } from "@tanstack/react-table";
import type {
  TField,
  TRuleWarningRef,
  TGroup,
  TMapping,
  TRuleType,
  TService,
  TThreshold,
} from "@ratecard/validators";
import { trimDecimal } from "./decimal";
import { ruleStatus } from "./rule-form";

// The rules explorer: mappings and thresholds of every service in one list. Server-side filters use
// the REST API's names (service_id, field_id, group_id, no_group, tenant_id); kind, type, the text
// filter and the sort order are applied in the browser.

export type RuleKind = "mapping" | "threshold";

export interface RuleRow {
  kind: RuleKind;
  id: string;
  /** Field mappings: the matched value. Thresholds: the level. Service mappings: empty. */
  match: string;
  type: TRuleType;
  cost: string;
  serviceId: string | null;
  fieldId: string | null;
  /** "service" or "service › field". */
  attachedTo: string;
  groupId: string | null;
  groupName: string;
  tenant: string;
  /** The revision read (RPC answers carry it), which a delete from the list sends. */
  revision?: number | undefined;
  // The lifecycle as the API gives it (docs/lifecycle.md): moments in UTC without an offset.
  start?: string | undefined;
  end?: string | null | undefined;
  deleted?: string | null | undefined;
  deleted_by?: string | null | undefined;
  created_by?: string | null | undefined;
  name?: string | null | undefined;
  description?: string | null | undefined;
  /** The warnings that involve the rule, when the list asked for them (console.rules). */
  warnings?: TRuleWarningRef[] | undefined;
}

/** Where a rule stands in its lifecycle; the rule lists filter on it (`?status=`). */
export const RULE_STATUSES = ["in_force", "scheduled", "ended", "deleted"] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];
export const ZRuleStatus = z.enum(RULE_STATUSES).optional().catch(undefined);

export function ruleLifecycleStatus(
  row: Pick<RuleRow, "start" | "end" | "deleted">,
  now: Date = new Date(),
): RuleStatus {
  if (row.deleted) return "deleted";
  const status = ruleStatus(row, now);
  return status === "Ended" ? "ended" : status === "Scheduled" ? "scheduled" : "in_force";
}

const ZFlag = z
  .union([z.boolean(), z.string()])
  .transform((flag) => flag === true || flag === "1" || flag === "true")
  .optional()
  .catch(undefined);
const ZOptionalText = z.string().optional().catch(undefined);

export const ZExplorerSearch = z.object({
  kind: z.enum(["mappings", "thresholds"]).optional().catch(undefined),
  service_id: ZOptionalText,
  field_id: ZOptionalText,
  group_id: ZOptionalText,
  no_group: ZFlag,
  tenant_id: ZOptionalText,
  no_tenant: ZFlag,
  type: z.enum(["flat", "rate"]).optional().catch(undefined),
  /** Deleted rules are listed only with status=deleted (the API's `deleted=true`). */
  status: ZRuleStatus,
  /** The API's exact `created_by` filter (a user id). */
  created_by: ZOptionalText,
  /** The API's `description` filter: contains, in any case. */
  description: ZOptionalText,
  q: ZOptionalText,
  sort: ZOptionalText,
  /** The rule open in the side panel (see parseRulePanel); not a filter. */
  rule: ZOptionalText,
});
export type ExplorerSearch = z.output<typeof ZExplorerSearch>;

/** True when a filter narrows the list, so an empty result means "no match" rather than "no rules yet". */
export function hasActiveFilter(search: ExplorerSearch): boolean {
  return Boolean(
    search.kind ||
    search.service_id ||
    search.field_id ||
    search.group_id ||
    search.no_group ||
    search.tenant_id ||
    search.no_tenant ||
    search.type ||
    search.status ||
    search.created_by ||
    search.description ||
    search.q,
  );
}

export interface RuleLookups {
  services: TService[];
  fields: TField[];
  groups: TGroup[];
}

export function ruleLabeller({ services, fields, groups }: RuleLookups) {
  const serviceNames = new Map(services.map((service) => [service.service_id, service.name]));
  const fieldsById = new Map(fields.map((field) => [field.field_id, field]));
  const groupNames = new Map(groups.map((group) => [group.group_id, group.name]));
  return {
    attachedTo(rule: { service_id: string | null; field_id: string | null }): string {
      if (rule.service_id) return serviceNames.get(rule.service_id) ?? rule.service_id;
      const field = rule.field_id ? fieldsById.get(rule.field_id) : undefined;
      if (!field) return rule.field_id ?? "";
      return `${serviceNames.get(field.service_id) ?? field.service_id} › ${field.name}`;
    },
    groupName(groupId: string | null): string {
      return groupId ? (groupNames.get(groupId) ?? groupId) : "";
    },
  };
}

export function buildRuleRows(
  mappings: TMapping[],
  thresholds: TThreshold[],
  lookups: RuleLookups,
): RuleRow[] {
  const label = ruleLabeller(lookups);
  const common = (rule: TMapping | TThreshold) => ({
    type: rule.type,
    cost: trimDecimal(rule.cost),
    serviceId: rule.service_id,
    fieldId: rule.field_id,
    attachedTo: label.attachedTo(rule),
    groupId: rule.group_id,
    groupName: label.groupName(rule.group_id),
    tenant: rule.tenant_id ?? "",
    revision: (rule as { revision?: number }).revision,
    start: rule.start,
    end: rule.end,
    deleted: rule.deleted,
    deleted_by: rule.deleted_by,
    created_by: rule.created_by,
    name: rule.name,
    description: rule.description,
  });
  return [
    ...mappings.map((mapping): RuleRow => ({
      kind: "mapping",
      id: mapping.mapping_id,
      match: mapping.field_id ? (mapping.value ?? "") : "",
      ...common(mapping),
    })),
    ...thresholds.map((threshold): RuleRow => ({
      kind: "threshold",
      id: threshold.threshold_id,
      match: trimDecimal(threshold.level),
      ...common(threshold),
    })),
  ];
}

/** "the flat mapping for m1.small on instance › flavor_id", "… for tenant acme": a tenant's override reads apart from the global rule. */
export function describeRule(row: RuleRow): string {
  const what =
    row.kind === "threshold"
      ? `the ${row.type} threshold at level ${row.match}`
      : row.match
        ? `the ${row.type} mapping for “${row.match}”`
        : `the ${row.type} service mapping`;
  return `${what} on ${row.attachedTo}${row.tenant ? ` for tenant ${row.tenant}` : ""}`;
}

/** Rule rows by id, for looking up the rules a price or a warning names. */
export function indexRules(rows: readonly RuleRow[]): Map<string, RuleRow> {
  return new Map(rows.map((row) => [row.id, row]));
}

/** "-cost" <-> [{ id: "cost", desc: true }]. */
export function parseSort(sort: string | undefined): SortingState {
  if (!sort) return [];
  const desc = sort.startsWith("-");
  const id = desc ? sort.slice(1) : sort;
  return id ? [{ id, desc }] : [];
}

export function formatSort(sorting: SortingState): string | undefined {
  const first = sorting[0];
  if (!first) return undefined;
  return `${first.desc ? "-" : ""}${first.id}`;
}
