import { isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TService } from "@ratecard/validators";
import { fail } from "./errors.js";
import { alreadyExists, noSuchService } from "./messages.js";
import { renderService } from "./render.js";

export async function listServices(prisma: PrismaClient): Promise<TService[]> {
  const rows = await prisma.service.findMany({ orderBy: { seq: "asc" } });
  return rows.map(renderService);
}

export async function getService(prisma: PrismaClient, serviceId: string): Promise<TService> {
  const row = await prisma.service.findUnique({ where: { id: serviceId } });
  if (!row) throw fail.notFound(noSuchService(serviceId));
  return renderService(row);
}

export async function createService(prisma: PrismaClient, name: string): Promise<TService> {
  try {
    return renderService(await prisma.service.create({ data: { name } }));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await prisma.service.findUnique({ where: { name } });
    throw fail.conflict(alreadyExists("Service", name, existing?.id ?? "unknown"));
  }
}

/** Deletes the service with its fields and every mapping and threshold beneath them (FK cascade). */
export async function deleteServiceCascade(prisma: PrismaClient, serviceId: string): Promise<void> {
  const { count } = await prisma.service.deleteMany({ where: { id: serviceId } });
  if (count === 0) throw fail.notFound(noSuchService(serviceId));
}
