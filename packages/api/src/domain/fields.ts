import { isForeignKeyViolation, isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TField } from "@ratecard/validators";
import { fail } from "./errors.js";
import { alreadyExists, noSuchField, noSuchService } from "./messages.js";
import { renderField } from "./render.js";

export async function listFields(prisma: PrismaClient, serviceId: string): Promise<TField[]> {
  const rows = await prisma.field.findMany({ where: { serviceId }, orderBy: { seq: "asc" } });
  return rows.map(renderField);
}

export async function getField(prisma: PrismaClient, fieldId: string): Promise<TField> {
  const row = await prisma.field.findUnique({ where: { id: fieldId } });
  if (!row) throw fail.notFound(noSuchField(fieldId));
  return renderField(row);
}

export async function createField(
  prisma: PrismaClient,
  input: { name: string; serviceId: string },
): Promise<TField> {
  const service = await prisma.service.findUnique({ where: { id: input.serviceId } });
  if (!service) throw fail.badRequest(noSuchService(input.serviceId));
  try {
    return renderField(await prisma.field.create({ data: input }));
  } catch (error) {
    if (isForeignKeyViolation(error)) throw fail.badRequest(noSuchService(input.serviceId));
    if (!isUniqueViolation(error)) throw error;
    const existing = await prisma.field.findUnique({
      where: { serviceId_name: { serviceId: input.serviceId, name: input.name } },
    });
    throw fail.conflict(alreadyExists("Field", input.name, existing?.id ?? "unknown"));
  }
}

/** Deletes the field with its mappings and thresholds (FK cascade). */
export async function deleteFieldCascade(prisma: PrismaClient, fieldId: string): Promise<void> {
  const { count } = await prisma.field.deleteMany({ where: { id: fieldId } });
  if (count === 0) throw fail.notFound(noSuchField(fieldId));
}
