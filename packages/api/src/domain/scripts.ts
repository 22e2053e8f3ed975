import { createHash } from "node:crypto";
import { isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TScript } from "@ratecard/validators";
import { fail } from "./errors.js";
import { alreadyExists, noSuchScript } from "./messages.js";
import { renderScript } from "./render.js";

/** SHA-512 hex of the UTF-8 source, as CloudKitty computes it. */
export function scriptChecksum(data: string): string {
  return createHash("sha512").update(data, "utf8").digest("hex");
}

export async function listScripts(prisma: PrismaClient, withData: boolean): Promise<TScript[]> {
  const rows = await prisma.script.findMany({ orderBy: { seq: "asc" } });
  return rows.map((row) => renderScript(row, withData));
}

export async function getScript(prisma: PrismaClient, scriptId: string): Promise<TScript> {
  const row = await prisma.script.findUnique({ where: { id: scriptId } });
  if (!row) throw fail.notFound(noSuchScript(scriptId));
  return renderScript(row);
}

async function scriptNameTaken(prisma: PrismaClient, name: string): Promise<never> {
  const existing = await prisma.script.findUnique({ where: { name } });
  throw fail.conflict(alreadyExists("Script", name, existing?.id ?? "unknown"));
}

export async function createScript(
  prisma: PrismaClient,
  input: { name: string; data: string },
): Promise<TScript> {
  try {
    const row = await prisma.script.create({
      data: { name: input.name, data: input.data, checksum: scriptChecksum(input.data) },
    });
    return renderScript(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return scriptNameTaken(prisma, input.name);
  }
}

/** Renames and/or replaces the source; what is omitted stays. Renaming onto another script's name is a 409. */
export async function updateScript(
  prisma: PrismaClient,
  input: { scriptId: string; name?: string | undefined; data?: string | undefined },
): Promise<TScript> {
  const changes = {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.data !== undefined && { data: input.data, checksum: scriptChecksum(input.data) }),
  };
  if (Object.keys(changes).length === 0) return getScript(prisma, input.scriptId);
  // One conditional write, no read-then-write: a script deleted meanwhile is a 404, never a 500.
  try {
    const { count } = await prisma.script.updateMany({
      where: { id: input.scriptId },
      data: changes,
    });
    if (count === 0) throw fail.notFound(noSuchScript(input.scriptId));
  } catch (error) {
    if (!isUniqueViolation(error) || input.name === undefined) throw error;
    return scriptNameTaken(prisma, input.name);
  }
  return getScript(prisma, input.scriptId);
}

export async function deleteScript(prisma: PrismaClient, scriptId: string): Promise<void> {
  const { count } = await prisma.script.deleteMany({ where: { id: scriptId } });
  if (count === 0) throw fail.notFound(noSuchScript(scriptId));
}
