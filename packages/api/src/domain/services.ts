import { appendAuditEvent, isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TService } from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import { alreadyExists, noSuchService } from "./messages.js";
import {
  renderField,
  renderMapping,
  renderService,
  renderThreshold,
  type Revisioned,
} from "./render.js";
import { moved, requireRevision, writeAtRevision, type WriteContext } from "./revisions.js";

export async function listServices(prisma: PrismaClient): Promise<Revisioned<TService>[]> {
  const rows = await prisma.service.findMany({ orderBy: { seq: "asc" } });
  return rows.map(renderService);
}

export async function getService(
  prisma: PrismaClient,
  serviceId: string,
): Promise<Revisioned<TService>> {
  const row = await prisma.service.findUnique({ where: { id: serviceId } });
  if (!row) throw fail.notFound(noSuchService(serviceId));
  return renderService(row);
}

export async function createService(
  prisma: PrismaClient,
  name: string,
  audit: AuditContext,
): Promise<Revisioned<TService>> {
  try {
    return await prisma.$transaction(async (tx) => {
      const service = renderService(await tx.service.create({ data: { name } }));
      await appendAuditEvent(
        tx,
        auditEvent(audit, {
          operation: "create",
          resourceType: "service",
          resourceId: service.service_id,
          before: null,
          after: service,
        }),
      );
      return service;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await prisma.service.findUnique({ where: { name } });
    throw fail.conflict(alreadyExists("Service", name, existing?.id ?? "unknown"));
  }
}

/**
 * Deletes the service with its fields and every mapping and threshold beneath them (FK cascade);
 * its audit event lists them all.
 */
export function deleteServiceCascade(
  prisma: PrismaClient,
  serviceId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.service.findUnique({ where: { id: serviceId } });
    if (!current) throw fail.notFound(noSuchService(serviceId));
    await requireRevision(
      prisma,
      { type: "service", name: "Service", id: serviceId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      // Claims the row first, so that nothing beneath it is read before the write lock is held.
      const { count } = await tx.service.updateMany({
        where: { id: serviceId, revision: current.revision },
        data: { revision: { increment: 1 } },
      });
      if (count === 0) throw moved();
      const beneath = { OR: [{ serviceId }, { field: { serviceId } }] };
      const fields = await tx.field.findMany({ where: { serviceId }, orderBy: { seq: "asc" } });
      const mappings = await tx.mapping.findMany({ where: beneath, orderBy: { seq: "asc" } });
      const thresholds = await tx.threshold.findMany({ where: beneath, orderBy: { seq: "asc" } });
      await tx.service.deleteMany({ where: { id: serviceId } });
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "delete",
          resourceType: "service",
          resourceId: serviceId,
          before: renderService(current),
          after: null,
          cascade: {
            deleted: {
              fields: fields.map(renderField),
              mappings: mappings.map(renderMapping),
              thresholds: thresholds.map(renderThreshold),
            },
          },
        }),
      );
    });
  });
}
