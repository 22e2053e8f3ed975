import { randomUUID } from "node:crypto";
import type { Mapping, Prisma, PrismaClient, Threshold } from "./generated/prisma/client.js";
import { appendAuditEvent, INSERT_AUDIT_EVENT, type NewAuditEvent } from "./audit-events.js";
import { preparedConnectionOf, type PreparedConnection } from "./prepared-connection.js";

// Creating a rule is the hot write (scripts create thousands): two prepared INSERTs, the rule and
// its audit event, in one savepoint of the transaction that the creates of the same event-loop
// turn share (group commit, see PreparedConnection.write), or Prisma's create and appendAuditEvent
// in one interactive transaction for any other client.

/** The audit event of a created row, made once its id and revision are known. */
export type AuditEventOf<Row> = (row: Row) => NewAuditEvent;

/**
 * A new rule's lifecycle (docs/lifecycle.md): `start` defaults to the creation time; the rest to
 * null. Optional, so that writers that know nothing of it keep CloudKitty 17's rules.
 */
export interface NewRuleLifecycle {
  /** The creation time, when the caller made `start` from it (they must be the same moment). */
  createdAt?: Date;
  name?: string | null;
  start?: Date;
  end?: Date | null;
  description?: string | null;
  createdBy?: string | null;
}

/** What a new mapping stores; its id, sequence number and timestamps are made here. */
export interface NewMapping extends NewRuleLifecycle {
  serviceId: string | null;
  fieldId: string | null;
  value: string | null;
  type: string;
  cost: string;
  groupId: string | null;
  tenantId: string | null;
}

export interface NewThreshold extends NewRuleLifecycle {
  serviceId: string | null;
  fieldId: string | null;
  level: string;
  type: string;
  cost: string;
  groupId: string | null;
  tenantId: string | null;
}

const INSERT_MAPPING = `INSERT INTO "hashmap_mappings"
  ("id", "value", "type", "cost", "service_id", "field_id", "group_id", "tenant_id",
   "created_at", "updated_at", "name", "start", "end", "description", "created_by")
  VALUES (@id, @value, @type, @cost, @serviceId, @fieldId, @groupId, @tenantId, @now, @now,
   @name, @start, @end, @description, @createdBy)`;

const INSERT_THRESHOLD = `INSERT INTO "hashmap_thresholds"
  ("id", "level", "type", "cost", "service_id", "field_id", "group_id", "tenant_id",
   "created_at", "updated_at", "name", "start", "end", "description", "created_by")
  VALUES (@id, @level, @type, @cost, @serviceId, @fieldId, @groupId, @tenantId, @now, @now,
   @name, @start, @end, @description, @createdBy)`;

/** Prisma stores DateTime as ISO text with an explicit offset; rows written here read the same. */
const timestamp = (date: Date) => date.toISOString().replace("Z", "+00:00");

/** Runs `work` in a transaction of `prisma`, or in `prisma` itself when it is one already. */
function inTransaction<T>(
  prisma: PrismaClient | Prisma.TransactionClient,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  return "$transaction" in prisma && typeof prisma.$transaction === "function"
    ? prisma.$transaction(work)
    : work(prisma);
}

function auditParameters(event: NewAuditEvent) {
  return { ...event, at: timestamp(event.at) };
}

/**
 * On the prepared connection: the rule's INSERT (`sql`) and its event's, committed together; the
 * row is made here from what was stored, as Prisma would return it.
 */
function insertPrepared<Data extends NewMapping | NewThreshold>(
  connection: PreparedConnection,
  sql: string,
  data: Data,
  eventOf: AuditEventOf<PreparedRow<Data>> | undefined,
): Promise<PreparedRow<Data>> {
  return connection.write(() => {
    const { createdAt, ...given } = data;
    const now = createdAt ?? new Date();
    const id = randomUUID();
    const lifecycle = lifecycleOf(given, now);
    const { lastInsertRowid } = connection.statement(sql).run({
      ...given,
      ...lifecycle,
      start: timestamp(lifecycle.start),
      end: lifecycle.end && timestamp(lifecycle.end),
      id,
      now: timestamp(now),
    });
    const row = {
      seq: Number(lastInsertRowid),
      id,
      ...given,
      createdAt: now,
      updatedAt: now,
      revision: 1,
      ...lifecycle,
      updatedBy: null,
      deleted: null,
      deletedBy: null,
    };
    if (eventOf) connection.statement(INSERT_AUDIT_EVENT).run(auditParameters(eventOf(row)));
    return row;
  });
}

/** The lifecycle columns of a new row, every one given (start: the creation time unless given). */
function lifecycleOf(data: NewRuleLifecycle, now: Date) {
  return {
    name: data.name ?? null,
    start: data.start ?? now,
    end: data.end ?? null,
    description: data.description ?? null,
    createdBy: data.createdBy ?? null,
  };
}

/** A created rule's row: what was given, and what the insert made. */
type PreparedRow<Data> = { seq: number; id: string } & Omit<Data, "createdAt"> & {
    createdAt: Date;
    updatedAt: Date;
    revision: number;
  } & ReturnType<typeof lifecycleOf> & {
    updatedBy: null;
    deleted: null;
    deletedBy: null;
  };

/** Creates a mapping and appends its audit event in one transaction, and returns its row. */
export function insertMapping(
  prisma: PrismaClient,
  data: NewMapping,
  eventOf?: AuditEventOf<Mapping>,
): Promise<Mapping> {
  const connection = preparedConnectionOf(prisma);
  if (!connection)
    return inTransaction(prisma, async (tx) => {
      const row = await tx.mapping.create({ data });
      if (eventOf) await appendAuditEvent(tx, eventOf(row));
      return row;
    });
  return insertPrepared(connection, INSERT_MAPPING, data, eventOf);
}

/** Creates a threshold and appends its audit event in one transaction, and returns its row. */
export function insertThreshold(
  prisma: PrismaClient,
  data: NewThreshold,
  eventOf?: AuditEventOf<Threshold>,
): Promise<Threshold> {
  const connection = preparedConnectionOf(prisma);
  if (!connection)
    return inTransaction(prisma, async (tx) => {
      const row = await tx.threshold.create({ data });
      if (eventOf) await appendAuditEvent(tx, eventOf(row));
      return row;
    });
  return insertPrepared(connection, INSERT_THRESHOLD, data, eventOf);
}
