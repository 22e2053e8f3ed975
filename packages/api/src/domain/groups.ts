import { isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TGroup } from "@ratecard/validators";
import { fail } from "./errors.js";
import { alreadyExists, noSuchGroup } from "./messages.js";
import { renderGroup } from "./render.js";

export async function listGroups(prisma: PrismaClient): Promise<TGroup[]> {
  const rows = await prisma.group.findMany({ orderBy: { seq: "asc" } });
  return rows.map(renderGroup);
}

export async function getGroup(prisma: PrismaClient, groupId: string): Promise<TGroup> {
  const row = await prisma.group.findUnique({ where: { id: groupId } });
  if (!row) throw fail.notFound(noSuchGroup(groupId));
  return renderGroup(row);
}

export async function createGroup(prisma: PrismaClient, name: string): Promise<TGroup> {
  try {
    return renderGroup(await prisma.group.create({ data: { name } }));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await prisma.group.findUnique({ where: { name } });
    throw fail.conflict(alreadyExists("Group", name, existing?.id ?? "unknown"));
  }
}

/**
 * Deletes a group. `recursive` deletes its mappings and thresholds too; otherwise they move to no
 * group (the default group), which is refused when that would make two rules identical.
 */
export async function deleteGroup(
  prisma: PrismaClient,
  groupId: string,
  recursive: boolean,
): Promise<void> {
  try {
    await prisma.$transaction(async (tx) => {
      const where = { groupId };
      if (recursive) {
        await tx.mapping.deleteMany({ where });
        await tx.threshold.deleteMany({ where });
      } else {
        await tx.mapping.updateMany({ where, data: { groupId: null } });
        await tx.threshold.updateMany({ where, data: { groupId: null } });
      }
      const { count } = await tx.group.deleteMany({ where: { id: groupId } });
      if (count === 0) throw fail.notFound(noSuchGroup(groupId));
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw fail.conflict(
      `Group ${groupId} cannot be deleted without its rules: moved to no group, some would be ` +
        `identical to rules that are already there. Delete it with recursive=true, or delete or ` +
        `move those rules first.`,
    );
  }
}
