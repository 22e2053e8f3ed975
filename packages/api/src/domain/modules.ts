import type { PrismaClient } from "@ratecard/db";
import type { TRatingModule } from "@ratecard/validators";
import { fail } from "./errors.js";
import { moduleNotFound } from "./messages.js";
import { renderRatingModule } from "./render.js";

export async function listRatingModules(prisma: PrismaClient): Promise<TRatingModule[]> {
  const rows = await prisma.ratingModule.findMany({ orderBy: { id: "asc" } });
  return rows.map(renderRatingModule);
}

export async function getRatingModule(
  prisma: PrismaClient,
  moduleId: string,
): Promise<TRatingModule> {
  const row = await prisma.ratingModule.findUnique({ where: { id: moduleId } });
  if (!row) throw fail.notFound(moduleNotFound);
  return renderRatingModule(row);
}

/** Enables or disables a module and sets its priority; what is omitted stays. */
export async function updateRatingModule(
  prisma: PrismaClient,
  input: { moduleId: string; enabled?: boolean | undefined; priority?: number | undefined },
): Promise<TRatingModule> {
  const { count } = await prisma.ratingModule.updateMany({
    where: { id: input.moduleId },
    data: {
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      ...(input.priority !== undefined && { priority: input.priority }),
    },
  });
  if (count === 0) throw fail.notFound(moduleNotFound);
  return getRatingModule(prisma, input.moduleId);
}
