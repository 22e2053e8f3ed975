import type { Prisma } from "@ratecard/db";
import { formatRuleDate, type TLifecycleFilters } from "@ratecard/validators";
import type { AuditContext } from "./audit.js";
import { fail } from "./errors.js";

// CloudKitty master's rule lifecycle (cloudkitty/rating/common/: VolatileAuditableModel, the
// validations and the list filters), shared by mappings, thresholds and scripts: a validity period
// (`start`, `end`), a name and a description, who created, last updated and deleted the rule, and
// soft deletion. See docs/lifecycle.md; the messages are CloudKitty's, word for word.

/**
 * How an update treats a rule already in force (RULE_UPDATE_MODE): `in-place` edits it, as
 * CloudKitty 17 does; `strict` allows only its `end` to change, as CloudKitty master does.
 */
export const RULE_UPDATE_MODES = ["in-place", "strict"] as const;
export type RuleUpdateMode = (typeof RULE_UPDATE_MODES)[number];

/** The lifecycle columns of a rule row (mappings, thresholds and scripts have them all). */
export interface LifecycleRow {
  createdAt: Date;
  start: Date;
  end: Date | null;
  name: string | null;
  description: string | null;
  deleted: Date | null;
  createdBy: string | null;
  updatedBy: string | null;
  deletedBy: string | null;
}

/**
 * What a create or an update may say about the lifecycle (undefined: not said). Moments come as
 * the validators leave them, ISO 8601 strings in UTC.
 */
export interface LifecycleInput {
  start?: string | null | undefined;
  end?: string | null | undefined;
  description?: string | null | undefined;
}

/** A moment given as the validators leave it, as a Date (null and undefined kept). */
function moment<T extends null | undefined>(value: string | T): Date | T {
  return typeof value === "string" ? new Date(value) : value;
}

/** The lifecycle keys of an answer, in CloudKitty master's order of VolatileAuditableModel. */
export function renderLifecycle(row: LifecycleRow) {
  return {
    created_at: formatRuleDate(row.createdAt),
    start: formatRuleDate(row.start),
    end: row.end && formatRuleDate(row.end),
    name: row.name,
    description: row.description,
    deleted: row.deleted && formatRuleDate(row.deleted),
    created_by: row.createdBy,
    updated_by: row.updatedBy,
    deleted_by: row.deletedBy,
  };
}

/** How CloudKitty's messages print a moment: Python's str(datetime), in UTC. */
export function pythonDate(date: Date): string {
  const iso = date.toISOString();
  const ms = date.getUTCMilliseconds();
  const seconds = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return ms === 0 ? seconds : `${seconds}.${String(ms * 1000).padStart(6, "0")}`;
}

/**
 * Who a rule's created_by, updated_by and deleted_by name: the user id the audit trail records
 * (Keystone's user id, a local user's, `noauth`); CloudKitty says `unknown` without a token.
 */
export const actorOf = (audit: AuditContext): string => audit.userId ?? "unknown";

/**
 * CloudKitty master's validate_resource: a start in the past only with force, and an end not
 * before the start (equal is allowed).
 */
export function checkPeriod(start: Date, end: Date | null, now: Date, checkStart: boolean): void {
  if (checkStart && start < now)
    throw fail.badRequest(
      `Cannot create a rule with start in the past. start=[${pythonDate(start)}] ` +
        `current time=[${pythonDate(now)}].`,
    );
  if (end && end < start)
    throw fail.badRequest(
      `Cannot create a rule with start after end. start=[${pythonDate(start)}] ` +
        `end=[${pythonDate(end)}].`,
    );
}

/** A create's lifecycle: start defaults to the creation time; `force` allows one in the past. */
export function createdLifecycle(
  input: LifecycleInput,
  options: { force: boolean; now: Date; audit: AuditContext },
) {
  const start = moment(input.start) ?? options.now;
  const end = moment(input.end) ?? null;
  checkPeriod(start, end, options.now, !options.force && input.start != null);
  return {
    createdAt: options.now,
    start,
    end,
    description: input.description ?? null,
    createdBy: actorOf(options.audit),
  };
}

/**
 * An update's lifecycle columns. What is not said stays (CloudKitty 17's clients never say it);
 * null removes an end or a description. A new start may not be in the past, the end not before
 * the start. In `strict` mode (CloudKitty master's validate_update_allowing_only_end_date), a rule
 * whose start has passed may only have its end changed: `otherChanges` says whether the update
 * would change anything else, and the end must then be in the future; a running rule that already
 * has an end cannot be changed at all.
 */
export function updatedLifecycle(
  current: LifecycleRow,
  input: LifecycleInput,
  options: {
    mode: RuleUpdateMode;
    now: Date;
    audit: AuditContext;
    otherChanges: boolean;
  },
): { endOnly: boolean; data: Partial<LifecycleRow> } {
  const { now } = options;
  const givenStart = moment(input.start);
  const start = givenStart ?? current.start;
  const end = input.end === undefined ? current.end : moment(input.end);
  const description = input.description === undefined ? current.description : input.description;
  const updatedBy = actorOf(options.audit);
  if (options.mode === "strict" && current.start < now) {
    if (current.end !== null)
      throw fail.badRequest(
        "Cannot update a rule that was already processed and has a defined end date.",
      );
    const startChanged = givenStart != null && givenStart.getTime() !== current.start.getTime();
    const descriptionChanged = input.description != null && description !== current.description;
    if (options.otherChanges || startChanged || descriptionChanged)
      throw fail.badRequest(
        `You are allowed to update only the attribute [end] as this rule is already running as ` +
          `it started on [${pythonDate(current.start)}]`,
      );
    if (end && end < now)
      throw fail.badRequest(
        `End date must be in the future. end=[${pythonDate(end)}] current time=[${pythonDate(now)}]`,
      );
    return { endOnly: true, data: { end, updatedBy } };
  }
  const startChanged = start.getTime() !== current.start.getTime();
  checkPeriod(start, end, now, startChanged);
  return { endOnly: false, data: { start, end, description, updatedBy } };
}

/** The columns a soft delete sets. */
export function deletion(audit: AuditContext, now: Date) {
  return { deleted: now, deletedBy: actorOf(audit) };
}

/** Not soft-deleted. */
export const NOT_DELETED = { deleted: null } as const;

/**
 * The rules in force at a moment: started, not ended, not deleted (CloudKitty master's is_active).
 * Pricing at a moment filters its rules with this (mappings, thresholds and scripts alike).
 */
export function inForceAt(moment: Date) {
  return {
    deleted: null,
    start: { lte: moment },
    OR: [{ end: null }, { end: { gt: moment } }],
  } satisfies Prisma.MappingWhereInput & Prisma.ThresholdWhereInput & Prisma.ScriptWhereInput;
}

/**
 * CloudKitty master's list filters (rating/common/db/filters.py): deleted rules are hidden unless
 * `deleted=true` (which adds them), `start` keeps rules starting at or after it, `end` rules
 * ending before it, `description` matches a part in any case, `is_active=true` keeps the rules in
 * force now.
 */
export function lifecycleWhere(filters: TLifecycleFilters, now: Date) {
  const and: (Prisma.MappingWhereInput & Prisma.ThresholdWhereInput & Prisma.ScriptWhereInput)[] =
    [];
  if (filters.is_active) and.push(inForceAt(now));
  if (!filters.deleted) and.push(NOT_DELETED);
  if (filters.start) and.push({ start: { gte: new Date(filters.start) } });
  if (filters.end) and.push({ end: { lt: new Date(filters.end) } });
  if (filters.created_by !== undefined) and.push({ createdBy: filters.created_by });
  if (filters.updated_by !== undefined) and.push({ updatedBy: filters.updated_by });
  if (filters.deleted_by !== undefined) and.push({ deletedBy: filters.deleted_by });
  if (filters.description) and.push({ description: { not: null } });
  return and;
}

/**
 * The description filter is ILIKE '%text%' in CloudKitty. Prisma has no case-insensitive match on
 * SQLite (its LIKE folds ASCII only) and PostgreSQL's LIKE folds none, so the query keeps the rules
 * with a description and this keeps those whose description contains the text in any case.
 */
export function matchesDescription(description: string | null, text: string | undefined): boolean {
  if (!text) return true;
  return description !== null && description.toLowerCase().includes(text.toLowerCase());
}
