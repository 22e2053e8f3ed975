import { createHash } from "node:crypto";
import { appendAuditEvent, isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TScript } from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import { alreadyExists, noSuchScript } from "./messages.js";
import { renderScript, type Revisioned } from "./render.js";
import { moved, requireRevision, writeAtRevision, type WriteContext } from "./revisions.js";

/** SHA-512 hex of the UTF-8 source, as CloudKitty computes it. */
export function scriptChecksum(data: string): string {
  return createHash("sha512").update(data, "utf8").digest("hex");
}

export async function listScripts(
  prisma: PrismaClient,
  withData: boolean,
): Promise<Revisioned<TScript>[]> {
  const rows = await prisma.script.findMany({ orderBy: { seq: "asc" } });
  return rows.map((row) => renderScript(row, withData));
}

export async function getScript(
  prisma: PrismaClient,
  scriptId: string,
): Promise<Revisioned<TScript>> {
  const row = await prisma.script.findUnique({ where: { id: scriptId } });
  if (!row) throw fail.notFound(noSuchScript(scriptId));
  return renderScript(row);
}

async function scriptNameTaken(prisma: PrismaClient, name: string): Promise<never> {
  const existing = await prisma.script.findFirst({ where: { name, deleted: null } });
  throw fail.conflict(alreadyExists("Script", name, existing?.id ?? "unknown"));
}

export async function createScript(
  prisma: PrismaClient,
  input: { name: string; data: string },
  audit: AuditContext,
): Promise<Revisioned<TScript>> {
  try {
    return await prisma.$transaction(async (tx) => {
      const script = renderScript(
        await tx.script.create({
          data: { name: input.name, data: input.data, checksum: scriptChecksum(input.data) },
        }),
      );
      await appendAuditEvent(
        tx,
        auditEvent(audit, {
          operation: "create",
          resourceType: "script",
          resourceId: script.script_id,
          before: null,
          after: script,
        }),
      );
      return script;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return scriptNameTaken(prisma, input.name);
  }
}

/**
 * Renames and/or replaces the source; what is omitted stays. Renaming onto another script's name is
 * a 409. A request that changes nothing writes nothing (no new revision, no event).
 */
export function updateScript(
  prisma: PrismaClient,
  input: { scriptId: string; name?: string | undefined; data?: string | undefined },
  write: WriteContext,
): Promise<Revisioned<TScript>> {
  return writeAtRevision(async () => {
    const current = await prisma.script.findUnique({ where: { id: input.scriptId } });
    if (!current) throw fail.notFound(noSuchScript(input.scriptId));
    await requireRevision(
      prisma,
      { type: "script", name: "Script", id: current.id },
      write.expected,
      current.revision,
    );
    const changes = {
      ...(input.name !== undefined && input.name !== current.name && { name: input.name }),
      ...(input.data !== undefined &&
        input.data !== current.data && { data: input.data, checksum: scriptChecksum(input.data) }),
    };
    if (Object.keys(changes).length === 0) return renderScript(current);
    try {
      return await prisma.$transaction(async (tx) => {
        const { count } = await tx.script.updateMany({
          where: { id: current.id, revision: current.revision },
          data: { ...changes, revision: { increment: 1 } },
        });
        if (count === 0) throw moved();
        const script = renderScript(
          await tx.script.findUniqueOrThrow({ where: { id: current.id } }),
        );
        await appendAuditEvent(
          tx,
          auditEvent(write.audit, {
            operation: "update",
            resourceType: "script",
            resourceId: current.id,
            before: renderScript(current),
            after: script,
          }),
        );
        return script;
      });
    } catch (error) {
      if (!isUniqueViolation(error) || input.name === undefined) throw error;
      return scriptNameTaken(prisma, input.name);
    }
  });
}

export function deleteScript(
  prisma: PrismaClient,
  scriptId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.script.findUnique({ where: { id: scriptId } });
    if (!current) throw fail.notFound(noSuchScript(scriptId));
    await requireRevision(
      prisma,
      { type: "script", name: "Script", id: scriptId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.script.deleteMany({
        where: { id: scriptId, revision: current.revision },
      });
      if (count === 0) throw moved();
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "delete",
          resourceType: "script",
          resourceId: scriptId,
          before: renderScript(current),
          after: null,
        }),
      );
    });
  });
}
