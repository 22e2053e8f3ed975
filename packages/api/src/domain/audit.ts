import {
  clientProvider,
  type AuditEventRow,
  type NewAuditEvent,
  type Prisma,
  type PrismaClient,
} from "@ratecard/db";
import {
  AUDIT_OPERATIONS,
  AUDIT_RESOURCE_TYPES,
  type AuditOperation,
  type AuditResourceType,
} from "@ratecard/validators";
import { fail } from "./errors.js";

// The audit trail: every change to a resource appends one event in the transaction of the change
// (see docs/audit.md). The domain is told who and where by a plain AuditContext; routers build it
// from the request.

/** Who made a change and from where, as the HTTP edge knows it; nulls when nobody says. */
export interface AuditContext {
  userId: string | null;
  userName: string | null;
  projectId: string | null;
  /** The client's address (after trusted proxies). */
  address: string | null;
  /** The request's `x-openstack-request-id`. */
  requestId: string | null;
}

/** Changes made without a request (tests, scripts): recorded with nobody's name. */
export const UNATTRIBUTED: AuditContext = {
  userId: null,
  userName: null,
  projectId: null,
  address: null,
  requestId: null,
};

// The lists live in the validators, which the console reads too.
export { AUDIT_OPERATIONS, AUDIT_RESOURCE_TYPES, type AuditOperation, type AuditResourceType };

/**
 * What a delete took with it (`deleted`: the rows removed beneath it) or changed (`detached`: the
 * rules a group's deletion moved to no group, as they stand after), each as its REST answer shows
 * it, so that the trail can be replayed without the parent's children having events of their own.
 */
export interface AuditCascade {
  deleted?: Partial<
    Record<"fields" | "mappings" | "thresholds" | "tokens", Record<string, unknown>[]>
  >;
  detached?: Partial<Record<"mappings" | "thresholds", Record<string, unknown>[]>>;
  /** A user's update that set a new password (never the password or its hash) ... */
  password_changed?: true;
  /** ... and so revoked this many of the user's console sessions. */
  sessions_revoked?: number;
}

export interface AuditChange {
  operation: AuditOperation;
  resourceType: AuditResourceType;
  resourceId: string;
  /** The object as its REST answer shows it (with its revision), null for a create. */
  before: object | null;
  /** Likewise after the change, null for a delete (users and tokens have no revision). */
  after: (object & { revision?: number }) | null;
  cascade?: AuditCascade;
}

/** The row to append for `change`, made by `audit`'s caller now. */
export function auditEvent(audit: AuditContext, change: AuditChange): NewAuditEvent {
  return {
    at: new Date(),
    ...audit,
    operation: change.operation,
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    revision: change.after?.revision ?? null,
    before: change.before === null ? null : JSON.stringify(change.before),
    after: change.after === null ? null : JSON.stringify(change.after),
    cascade: change.cascade ? JSON.stringify(change.cascade) : null,
  };
}

export type Tx = Prisma.TransactionClient;

/** An event as the API answers it. */
export interface TAuditEvent {
  event_id: number;
  at: string;
  user_id: string | null;
  user_name: string | null;
  project_id: string | null;
  address: string | null;
  request_id: string | null;
  operation: AuditOperation;
  resource_type: AuditResourceType;
  resource_id: string;
  resource_revision: number | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  cascade: AuditCascade | null;
}

const parsed = <T>(text: string | null): T | null =>
  text === null ? null : (JSON.parse(text) as T);

export function renderAuditEvent(row: AuditEventRow): TAuditEvent {
  return {
    event_id: row.seq,
    at: row.at.toISOString(),
    user_id: row.userId,
    user_name: row.userName,
    project_id: row.projectId,
    address: row.address,
    request_id: row.requestId,
    operation: row.operation as AuditOperation,
    resource_type: row.resourceType as AuditResourceType,
    resource_id: row.resourceId,
    resource_revision: row.revision,
    before: parsed(row.before),
    after: parsed(row.after),
    cascade: parsed(row.cascade),
  };
}

export interface AuditFilters {
  resource_type?: AuditResourceType | undefined;
  resource_id?: string | undefined;
  user_id?: string | undefined;
  operation?: AuditOperation | undefined;
  /** Events at or after this moment. */
  since?: Date | undefined;
  /** Events before this moment. */
  until?: Date | undefined;
  /** At most this many events (default 100, at most 1000). */
  limit?: number | undefined;
  /** The `next` of the previous page: events older than it. */
  cursor?: string | undefined;
}

export const DEFAULT_AUDIT_PAGE = 100;
export const MAX_AUDIT_PAGE = 1000;

/**
 * Events newest first, filtered, one page at a time. The cursor is the last event's number: the
 * next page is what is older, so events appended meanwhile never shift a page.
 */
export async function listAuditEvents(
  prisma: PrismaClient,
  filters: AuditFilters,
): Promise<{ events: TAuditEvent[]; next: string | null }> {
  const limit = filters.limit ?? DEFAULT_AUDIT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE)
    throw fail.badRequest(`limit must be an integer from 1 to ${MAX_AUDIT_PAGE}.`);
  let before: number | undefined;
  if (filters.cursor !== undefined) {
    before = /^[1-9][0-9]{0,15}$/.test(filters.cursor) ? Number(filters.cursor) : NaN;
    if (!Number.isSafeInteger(before)) throw fail.badRequest("cursor is not one this API gave.");
  }
  const rows = await prisma.auditEvent.findMany({
    where: {
      ...(filters.resource_type !== undefined && { resourceType: filters.resource_type }),
      ...(filters.resource_id !== undefined && { resourceId: filters.resource_id }),
      ...(filters.user_id !== undefined && { userId: filters.user_id }),
      ...(filters.operation !== undefined && { operation: filters.operation }),
      ...((filters.since !== undefined || filters.until !== undefined) && {
        at: {
          ...(filters.since !== undefined && { gte: filters.since }),
          ...(filters.until !== undefined && { lt: filters.until }),
        },
      }),
      ...(before !== undefined && { seq: { lt: before } }),
    },
    orderBy: { seq: "desc" },
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    events: page.map(renderAuditEvent),
    next: rows.length > limit ? String(page[page.length - 1]!.seq) : null,
  };
}

/** Which records sit beneath a service, a field or a group, as (audit type, table, column). */
const BENEATH: Record<"service" | "field" | "group", [AuditResourceType, string, string][]> = {
  // A service's history holds its fields and its own rules; its fields' rules are on their pages.
  service: [
    ["field", "hashmap_fields", "service_id"],
    ["mapping", "hashmap_mappings", "service_id"],
    ["threshold", "hashmap_thresholds", "service_id"],
  ],
  field: [
    ["mapping", "hashmap_mappings", "field_id"],
    ["threshold", "hashmap_thresholds", "field_id"],
  ],
  group: [
    ["mapping", "hashmap_mappings", "group_id"],
    ["threshold", "hashmap_thresholds", "group_id"],
  ],
};

/**
 * A record's history, newest first and paged like listAuditEvents: its own events and those of
 * the records beneath it now (soft-deleted rules included), found by the database through the
 * (resource_type, resource_id) index, whatever the number of rules.
 */
export async function listRecordHistory(
  prisma: PrismaClient,
  record: {
    resource_type: "service" | "field" | "group";
    resource_id: string;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
): Promise<{ events: TAuditEvent[]; next: string | null }> {
  const limit = record.limit ?? DEFAULT_AUDIT_PAGE;
  let before: number | undefined;
  if (record.cursor !== undefined) {
    before = /^[1-9][0-9]{0,15}$/.test(record.cursor) ? Number(record.cursor) : NaN;
    if (!Number.isSafeInteger(before)) throw fail.badRequest("cursor is not one this API gave.");
  }
  const postgres = clientProvider(prisma) === "postgresql";
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return postgres ? `$${params.length}` : "?";
  };
  // Each branch carries its own parameters: SQLite's "?" placeholders are positional.
  const older = () => (before === undefined ? "" : ` AND "seq" < ${param(before)}`);
  const branches = [
    `SELECT "seq" FROM "audit_events" WHERE "resource_type" = ${param(record.resource_type)}
      AND "resource_id" = ${param(record.resource_id)}${older()}`,
    ...BENEATH[record.resource_type].map(
      ([type, table, column]) =>
        `SELECT "seq" FROM "audit_events" WHERE "resource_type" = ${param(type)}
          AND "resource_id" IN (SELECT "id" FROM "${table}" WHERE "${column}" = ${param(record.resource_id)})${older()}`,
    ),
  ];
  const found = await prisma.$queryRawUnsafe<{ seq: number | bigint }[]>(
    `SELECT "seq" FROM (${branches.join("\nUNION ALL\n")}) events
      ORDER BY "seq" DESC LIMIT ${param(limit + 1)}`,
    ...params,
  );
  const seqs = found.map((row) => Number(row.seq));
  const page = seqs.slice(0, limit);
  const rows = page.length
    ? await prisma.auditEvent.findMany({ where: { seq: { in: page } }, orderBy: { seq: "desc" } })
    : [];
  return {
    events: rows.map(renderAuditEvent),
    next: seqs.length > limit ? String(page[page.length - 1]!) : null,
  };
}
