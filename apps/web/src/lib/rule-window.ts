import {
  RULE_WINDOW_SORTS,
  type TRuleWindowInput,
  type TRuleWindowRow,
  type TRuleWindowSort,
} from "@ratecard/validators";
import { trimDecimal } from "./decimal";
import type { ExplorerSearch, RuleKind, RuleRow, RuleStatus } from "./rules";

// The rule lists read their rules a window at a time (console.rules): the server filters, searches,
// sorts and counts; the list asks for the windows its visible rows fall in.

/** Rules per window: a few screens of rows, one small answer. */
export const RULE_WINDOW_SIZE = 100;

/** What a list asks console.rules for, without the window (`offset`, `limit`). */
export type RuleWindowFilters = Omit<TRuleWindowInput, "offset" | "limit">;

/** The windows (by index) that hold the rows `first`..`last` (inclusive) of `total`. */
export function windowIndexes(
  first: number,
  last: number,
  total: number | undefined,
  size = RULE_WINDOW_SIZE,
): number[] {
  const end = total === undefined ? last : Math.min(last, total - 1);
  if (end < first || end < 0) return [Math.max(0, Math.floor(first / size))];
  const indexes: number[] = [];
  for (let index = Math.floor(Math.max(0, first) / size); index <= Math.floor(end / size); index++)
    indexes.push(index);
  return indexes;
}

/** A window's row as the lists render it (the shape buildRuleRows gives). */
export function windowRowToRuleRow(row: TRuleWindowRow): RuleRow {
  return {
    kind: row.kind,
    id: row.id,
    match:
      row.kind === "threshold"
        ? trimDecimal(row.level ?? "")
        : row.field_id
          ? (row.value ?? "")
          : "",
    type: row.type,
    cost: trimDecimal(row.cost),
    serviceId: row.service_id,
    fieldId: row.field_id,
    attachedTo:
      row.field_name === null ? row.service_name : `${row.service_name} › ${row.field_name}`,
    groupId: row.group_id,
    groupName: row.group_name ?? "",
    tenant: row.tenant_id ?? "",
    revision: row.revision,
    start: row.start,
    end: row.end,
    deleted: row.deleted,
    deleted_by: row.deleted_by,
    created_by: row.created_by,
    name: row.name,
    description: row.description,
    ...(row.warnings && { warnings: row.warnings }),
  };
}

/** The sort of the address ("-cost") as console.rules takes it; an unknown column is no sort. */
export function windowSort(sort: string | undefined): { sort?: TRuleWindowSort; desc?: boolean } {
  if (!sort) return {};
  const desc = sort.startsWith("-");
  const id = desc ? sort.slice(1) : sort;
  return (RULE_WINDOW_SORTS as readonly string[]).includes(id)
    ? { sort: id as TRuleWindowSort, ...(desc && { desc }) }
    : {};
}

/** The lifecycle filter of a list as console.rules takes it. */
export function windowStatus(
  status: RuleStatus | undefined,
  at: Date,
): Pick<RuleWindowFilters, "status" | "at"> {
  if (!status) return {};
  return status === "deleted" ? { status } : { status, at: at.toISOString() };
}

/** The list's own filters: text, type and status (what "3 of 2,000 shown" leaves out). */
export function narrowingFilters(
  search: { q?: string | undefined; type?: "flat" | "rate" | undefined; status?: RuleStatus },
  /** The moment in_force, scheduled and ended are judged at (one for every window of a list). */
  at: Date = new Date(),
): RuleWindowFilters {
  const q = search.q?.trim();
  return {
    ...(q && { q }),
    ...(search.type && { type: search.type }),
    ...windowStatus(search.status, at),
  };
}

/** The rules of a service, field or group page's list. */
export function pageWindowFilters(
  context: { parent?: { field_id: string } | { service_id: string }; groupId?: string },
  kind: RuleKind | undefined,
): RuleWindowFilters {
  return {
    ...(kind && { kind }),
    ...(context.parent ?? (context.groupId ? { group_id: context.groupId } : {})),
  };
}

/** The explorer's filters from its address, except text, type and status (narrowingFilters). */
export function explorerWindowFilters(search: ExplorerSearch): RuleWindowFilters {
  return {
    ...(search.kind && { kind: search.kind === "mappings" ? "mapping" : "threshold" }),
    ...(search.field_id
      ? { field_id: search.field_id }
      : search.service_id
        ? { service_id: search.service_id }
        : {}),
    ...(search.no_group
      ? { no_group: true }
      : search.group_id
        ? { group_id: search.group_id }
        : {}),
    ...(search.no_tenant
      ? { no_tenant: true }
      : search.tenant_id
        ? { tenant_id: search.tenant_id }
        : {}),
    ...(search.created_by && { created_by: search.created_by }),
    ...(search.description && { description: search.description }),
  };
}

/** Whether the list's own filters narrow it (so the count says "of N shown"). */
export function isNarrowed(filters: RuleWindowFilters): boolean {
  return Boolean(filters.q || filters.type || filters.status);
}
