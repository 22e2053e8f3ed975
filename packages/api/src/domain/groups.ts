import { appendAuditEvent, isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TGroup } from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import { alreadyExists, noSuchGroup } from "./messages.js";
import { renderGroup, renderMapping, renderThreshold, type Revisioned } from "./render.js";
import { moved, requireRevision, writeAtRevision, type WriteContext } from "./revisions.js";

export async function listGroups(prisma: PrismaClient): Promise<Revisioned<TGroup>[]> {
  const rows = await prisma.group.findMany({ orderBy: { seq: "asc" } });
  return rows.map(renderGroup);
}

export async function getGroup(prisma: PrismaClient, groupId: string): Promise<Revisioned<TGroup>> {
  const row = await prisma.group.findUnique({ where: { id: groupId } });
  if (!row) throw fail.notFound(noSuchGroup(groupId));
  return renderGroup(row);
}

export async function createGroup(
  prisma: PrismaClient,
  name: string,
  audit: AuditContext,
): Promise<Revisioned<TGroup>> {
  try {
    return await prisma.$transaction(async (tx) => {
      const group = renderGroup(await tx.group.create({ data: { name } }));
      await appendAuditEvent(
        tx,
        auditEvent(audit, {
          operation: "create",
          resourceType: "group",
          resourceId: group.group_id,
          before: null,
          after: group,
        }),
      );
      return group;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await prisma.group.findUnique({ where: { name } });
    throw fail.conflict(alreadyExists("Group", name, existing?.id ?? "unknown"));
  }
}

/**
 * Deletes a group. `recursive` deletes its mappings and thresholds too; otherwise they move to no
 * group (the default group), which is refused when that would make two rules identical. Moved
 * rules are changed rules: their revisions move, and the group's audit event lists them as they
 * stand after (`detached`), or as they were (`deleted`).
 */
export async function deleteGroup(
  prisma: PrismaClient,
  groupId: string,
  recursive: boolean,
  write: WriteContext,
): Promise<void> {
  try {
    await writeAtRevision(async () => {
      const current = await prisma.group.findUnique({ where: { id: groupId } });
      if (!current) throw fail.notFound(noSuchGroup(groupId));
      await requireRevision(
        prisma,
        { type: "group", name: "Group", id: groupId },
        write.expected,
        current.revision,
      );
      await prisma.$transaction(async (tx) => {
        const { count } = await tx.group.updateMany({
          where: { id: groupId, revision: current.revision },
          data: { revision: { increment: 1 } },
        });
        if (count === 0) throw moved();
        const where = { groupId };
        const mappings = await tx.mapping.findMany({ where, orderBy: { seq: "asc" } });
        const thresholds = await tx.threshold.findMany({ where, orderBy: { seq: "asc" } });
        let cascade;
        if (recursive) {
          await tx.mapping.deleteMany({ where });
          await tx.threshold.deleteMany({ where });
          cascade = {
            deleted: {
              mappings: mappings.map(renderMapping),
              thresholds: thresholds.map(renderThreshold),
            },
          };
        } else {
          const detach = { groupId: null, revision: { increment: 1 } };
          await tx.mapping.updateMany({ where, data: detach });
          await tx.threshold.updateMany({ where, data: detach });
          const detached = <T extends { groupId: string | null; revision: number }>(row: T) => ({
            ...row,
            groupId: null,
            revision: row.revision + 1,
          });
          cascade = {
            detached: {
              mappings: mappings.map((row) => renderMapping(detached(row))),
              thresholds: thresholds.map((row) => renderThreshold(detached(row))),
            },
          };
        }
        await tx.group.deleteMany({ where: { id: groupId } });
        await appendAuditEvent(
          tx,
          auditEvent(write.audit, {
            operation: "delete",
            resourceType: "group",
            resourceId: groupId,
            before: renderGroup(current),
            after: null,
            cascade,
          }),
        );
      });
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
