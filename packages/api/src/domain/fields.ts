import {
  appendAuditEvent,
  isForeignKeyViolation,
  isUniqueViolation,
  type PrismaClient,
} from "@ratecard/db";
import type { TField } from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import { alreadyExists, noSuchField, noSuchService } from "./messages.js";
import { renderField, renderMapping, renderThreshold, type Revisioned } from "./render.js";
import { moved, requireRevision, writeAtRevision, type WriteContext } from "./revisions.js";

export async function listFields(
  prisma: PrismaClient,
  serviceId: string,
): Promise<Revisioned<TField>[]> {
  const rows = await prisma.field.findMany({ where: { serviceId }, orderBy: { seq: "asc" } });
  return rows.map(renderField);
}

export async function getField(prisma: PrismaClient, fieldId: string): Promise<Revisioned<TField>> {
  const row = await prisma.field.findUnique({ where: { id: fieldId } });
  if (!row) throw fail.notFound(noSuchField(fieldId));
  return renderField(row);
}

export async function createField(
  prisma: PrismaClient,
  input: { name: string; serviceId: string },
  audit: AuditContext,
): Promise<Revisioned<TField>> {
  const service = await prisma.service.findUnique({ where: { id: input.serviceId } });
  if (!service) throw fail.badRequest(noSuchService(input.serviceId));
  try {
    return await prisma.$transaction(async (tx) => {
      const field = renderField(await tx.field.create({ data: input }));
      await appendAuditEvent(
        tx,
        auditEvent(audit, {
          operation: "create",
          resourceType: "field",
          resourceId: field.field_id,
          before: null,
          after: field,
        }),
      );
      return field;
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw fail.badRequest(noSuchService(input.serviceId));
    if (!isUniqueViolation(error)) throw error;
    const existing = await prisma.field.findUnique({
      where: { serviceId_name: { serviceId: input.serviceId, name: input.name } },
    });
    throw fail.conflict(alreadyExists("Field", input.name, existing?.id ?? "unknown"));
  }
}

/** Deletes the field with its mappings and thresholds (FK cascade); its audit event lists them. */
export function deleteFieldCascade(
  prisma: PrismaClient,
  fieldId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.field.findUnique({ where: { id: fieldId } });
    if (!current) throw fail.notFound(noSuchField(fieldId));
    await requireRevision(
      prisma,
      { type: "field", name: "Field", id: fieldId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.field.updateMany({
        where: { id: fieldId, revision: current.revision },
        data: { revision: { increment: 1 } },
      });
      if (count === 0) throw moved();
      const mappings = await tx.mapping.findMany({ where: { fieldId }, orderBy: { seq: "asc" } });
      const thresholds = await tx.threshold.findMany({
        where: { fieldId },
        orderBy: { seq: "asc" },
      });
      await tx.field.deleteMany({ where: { id: fieldId } });
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "delete",
          resourceType: "field",
          resourceId: fieldId,
          before: renderField(current),
          after: null,
          cascade: {
            deleted: {
              mappings: mappings.map(renderMapping),
              thresholds: thresholds.map(renderThreshold),
            },
          },
        }),
      );
    });
  });
}
