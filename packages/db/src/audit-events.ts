import { clientProvider } from "./database.js";
import type { Prisma, PrismaClient } from "./generated/prisma/client.js";

// The audit trail's one write: an event appended in the transaction of the change it records.

/** One row of audit_events as written (see prisma/models.prisma); JSON columns as text. */
export interface NewAuditEvent {
  at: Date;
  userId: string | null;
  userName: string | null;
  projectId: string | null;
  address: string | null;
  requestId: string | null;
  operation: "create" | "update" | "delete";
  resourceType: string;
  resourceId: string;
  revision: number | null;
  before: string | null;
  after: string | null;
  cascade: string | null;
}

/** Any constant key will do, as long as nothing else in Ratecard uses it (accounts: 7261630741). */
const AUDIT_ORDER_LOCK = 7261630742;

/**
 * Appends `event` with `tx`, which must be the transaction of the change, as its last statement.
 * On PostgreSQL two transactions may take their `seq` in one order and commit in the other, and a
 * reader paging by `seq` would skip the first; the transaction-scoped advisory lock taken before
 * the insert makes `seq` order commit order (held from the insert to the commit only). SQLite
 * writers are serial already.
 */
export async function appendAuditEvent(
  tx: Prisma.TransactionClient | PrismaClient,
  event: NewAuditEvent,
): Promise<void> {
  await holdAuditOrder(tx);
  await tx.auditEvent.create({ data: event });
}

/**
 * Takes the lock that orders audit events (above) until `tx` commits. A transaction that reads
 * the newest event and must know that no other change commits before it does (a rule-set apply
 * checking its planned revision) takes it first. A no-op on SQLite, whose writers are serial.
 */
export async function holdAuditOrder(tx: Prisma.TransactionClient | PrismaClient): Promise<void> {
  if (clientProvider(tx) === "postgresql") {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_ORDER_LOCK}::bigint)`;
  }
}

export const INSERT_AUDIT_EVENT = `INSERT INTO "audit_events"
  ("at", "user_id", "user_name", "project_id", "address", "request_id", "operation",
   "resource_type", "resource_id", "revision", "before", "after", "cascade")
  VALUES (@at, @userId, @userName, @projectId, @address, @requestId, @operation,
   @resourceType, @resourceId, @revision, @before, @after, @cascade)`;
