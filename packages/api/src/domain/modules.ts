import { appendAuditEvent, type PrismaClient } from "@ratecard/db";
import type { TRatingModule } from "@ratecard/validators";
import { auditEvent } from "./audit.js";
import { fail } from "./errors.js";
import { moduleNotFound } from "./messages.js";
import { renderRatingModule, type Revisioned } from "./render.js";
import { moved, requireRevision, writeAtRevision, type WriteContext } from "./revisions.js";

export async function listRatingModules(
  prisma: PrismaClient,
): Promise<Revisioned<TRatingModule>[]> {
  const rows = await prisma.ratingModule.findMany({ orderBy: { id: "asc" } });
  return rows.map(renderRatingModule);
}

export async function getRatingModule(
  prisma: PrismaClient,
  moduleId: string,
): Promise<Revisioned<TRatingModule>> {
  const row = await prisma.ratingModule.findUnique({ where: { id: moduleId } });
  if (!row) throw fail.notFound(moduleNotFound);
  return renderRatingModule(row);
}

/**
 * Enables or disables a module and sets its priority; what is omitted stays. A request that
 * changes nothing writes nothing (no new revision, no event).
 */
export function updateRatingModule(
  prisma: PrismaClient,
  input: { moduleId: string; enabled?: boolean | undefined; priority?: number | undefined },
  write: WriteContext,
): Promise<Revisioned<TRatingModule>> {
  return writeAtRevision(async () => {
    const current = await prisma.ratingModule.findUnique({ where: { id: input.moduleId } });
    if (!current) throw fail.notFound(moduleNotFound);
    await requireRevision(
      prisma,
      { type: "module", name: "Module", id: current.id },
      write.expected,
      current.revision,
    );
    const changes = {
      ...(input.enabled !== undefined &&
        input.enabled !== current.enabled && { enabled: input.enabled }),
      ...(input.priority !== undefined &&
        input.priority !== current.priority && { priority: input.priority }),
    };
    if (Object.keys(changes).length === 0) return renderRatingModule(current);
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.ratingModule.updateMany({
        where: { id: current.id, revision: current.revision },
        data: { ...changes, revision: { increment: 1 } },
      });
      if (count === 0) throw moved();
      const module = renderRatingModule(
        await tx.ratingModule.findUniqueOrThrow({ where: { id: current.id } }),
      );
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "update",
          resourceType: "module",
          resourceId: current.id,
          before: renderRatingModule(current),
          after: module,
        }),
      );
      return module;
    });
  });
}
