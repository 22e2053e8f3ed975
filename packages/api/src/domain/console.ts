import type { Prisma, PrismaClient } from "@ratecard/db";
import type { TField } from "@ratecard/validators";
import { fail } from "./errors.js";
import { NOT_DELETED } from "./lifecycle.js";
import { noSuchField, noSuchGroup, noSuchService } from "./messages.js";
import { renderField } from "./render.js";

// What the admin console needs beyond the REST contract: what a delete takes with it, and the
// fields of every service at once (the REST list needs a service_id).

export interface RuleCounts {
  mappings: number;
  thresholds: number;
}

export interface ServiceDeletionImpact extends RuleCounts {
  fields: number;
}

/** The mappings and thresholds that match one filter. */
async function countRules(
  prisma: PrismaClient,
  where: Prisma.MappingWhereInput & Prisma.ThresholdWhereInput,
): Promise<RuleCounts> {
  const [mappings, thresholds] = await Promise.all([
    prisma.mapping.count({ where: { ...where, ...NOT_DELETED } }),
    prisma.threshold.count({ where: { ...where, ...NOT_DELETED } }),
  ]);
  return { mappings, thresholds };
}

/** Everything deleting the service removes: its fields, and the rules on it and on its fields. */
export async function serviceDeletionImpact(
  prisma: PrismaClient,
  serviceId: string,
): Promise<ServiceDeletionImpact> {
  const found = await prisma.service.count({ where: { id: serviceId } });
  if (!found) throw fail.notFound(noSuchService(serviceId));
  const [fields, rules] = await Promise.all([
    prisma.field.count({ where: { serviceId } }),
    countRules(prisma, { OR: [{ serviceId }, { field: { serviceId } }] }),
  ]);
  return { fields, ...rules };
}

export async function fieldDeletionImpact(
  prisma: PrismaClient,
  fieldId: string,
): Promise<RuleCounts> {
  const found = await prisma.field.count({ where: { id: fieldId } });
  if (!found) throw fail.notFound(noSuchField(fieldId));
  return countRules(prisma, { fieldId });
}

/** The rules in the group: deleted with it (recursive) or moved to no group. */
export async function groupDeletionImpact(
  prisma: PrismaClient,
  groupId: string,
): Promise<RuleCounts> {
  const found = await prisma.group.count({ where: { id: groupId } });
  if (!found) throw fail.notFound(noSuchGroup(groupId));
  return countRules(prisma, { groupId });
}

export async function listAllFields(prisma: PrismaClient): Promise<TField[]> {
  const rows = await prisma.field.findMany({ orderBy: { seq: "asc" } });
  return rows.map(renderField);
}

/** How many of each rating object the database holds (for monitoring). */
export async function countRatingObjects(prisma: PrismaClient): Promise<Record<string, number>> {
  const [services, fields, groups, mappings, thresholds, scripts] = await Promise.all([
    prisma.service.count(),
    prisma.field.count(),
    prisma.group.count(),
    // Soft-deleted rules are history (docs/lifecycle.md), not rules.
    prisma.mapping.count({ where: NOT_DELETED }),
    prisma.threshold.count({ where: NOT_DELETED }),
    prisma.script.count({ where: NOT_DELETED }),
  ]);
  return { services, fields, groups, mappings, thresholds, scripts };
}
