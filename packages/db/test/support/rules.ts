import type { PrismaClient } from "../../src/index.js";

// The parent and the row the rule-write tests (rule-writes, group-commit, hot-statements) insert:
// a field mapping is the common case of the prepared creates.

/** A "compute" service with a "flavor" field, in a freshly migrated database. */
export async function seedFlavorField(
  prisma: PrismaClient,
): Promise<{ serviceId: string; fieldId: string }> {
  const serviceId = (await prisma.service.create({ data: { name: "compute" } })).id;
  const fieldId = (await prisma.field.create({ data: { name: "flavor", serviceId } })).id;
  return { serviceId, fieldId };
}

/** A flat mapping of `fieldId`'s `value`, in no group and for every tenant. */
export const flatFieldMapping = (fieldId: string, value: string, cost: string) => ({
  serviceId: null,
  fieldId,
  value,
  type: "flat",
  cost,
  groupId: null,
  tenantId: null,
});
