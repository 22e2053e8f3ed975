import { createHash } from "node:crypto";
import { appendAuditEvent, isUniqueViolation, type PrismaClient } from "@ratecard/db";
import type { TLifecycleFilters, TScript } from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import {
  createdLifecycle,
  deletion,
  lifecycleWhere,
  matchesDescription,
  updatedLifecycle,
  type RuleUpdateMode,
} from "./lifecycle.js";
import { alreadyExists, noSuchScript } from "./messages.js";
import { renderScript, type Revisioned } from "./render.js";
import { moved, requireRevision, writeAtRevision, type WriteContext } from "./revisions.js";

/** SHA-512 hex of the UTF-8 source, as CloudKitty computes it. */
export function scriptChecksum(data: string): string {
  return createHash("sha512").update(data, "utf8").digest("hex");
}

/** Scripts, filtered as CloudKitty master filters them (deleted ones hidden by default). */
export async function listScripts(
  prisma: PrismaClient,
  withData: boolean,
  filters: TLifecycleFilters = {},
): Promise<Revisioned<TScript>[]> {
  const rows = await prisma.script.findMany({
    where: { AND: lifecycleWhere(filters, new Date()) },
    orderBy: { seq: "asc" },
  });
  return rows
    .filter((row) => matchesDescription(row.description, filters.description))
    .map((row) => renderScript(row, withData));
}

/** A script not deleted: CloudKitty master answers 404 for a deleted one. */
export async function getScript(
  prisma: PrismaClient,
  scriptId: string,
): Promise<Revisioned<TScript>> {
  const row = await prisma.script.findUnique({ where: { id: scriptId } });
  if (!row || row.deleted) throw fail.notFound(noSuchScript(scriptId));
  return renderScript(row);
}

/** What a script's create and update may say about its lifecycle. */
interface ScriptLifecycleInput {
  start?: string | null | undefined;
  end?: string | null | undefined;
  description?: string | null | undefined;
}

async function scriptNameTaken(prisma: PrismaClient, name: string): Promise<never> {
  const existing = await prisma.script.findFirst({ where: { name, deleted: null } });
  throw fail.conflict(alreadyExists("Script", name, existing?.id ?? "unknown"));
}

export async function createScript(
  prisma: PrismaClient,
  input: { name: string; data: string } & ScriptLifecycleInput,
  audit: AuditContext,
  options: { force?: boolean | undefined } = {},
): Promise<Revisioned<TScript>> {
  const now = new Date();
  const lifecycle = createdLifecycle(input, { force: options.force ?? false, now, audit });
  try {
    return await prisma.$transaction(async (tx) => {
      const script = renderScript(
        await tx.script.create({
          data: {
            name: input.name,
            data: input.data,
            checksum: scriptChecksum(input.data),
            ...lifecycle,
          },
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
  input: {
    scriptId: string;
    name?: string | undefined;
    data?: string | undefined;
  } & ScriptLifecycleInput,
  write: WriteContext,
  options: { mode: RuleUpdateMode } = { mode: "in-place" },
): Promise<Revisioned<TScript>> {
  return writeAtRevision(async () => {
    const current = await prisma.script.findUnique({ where: { id: input.scriptId } });
    if (!current || current.deleted) throw fail.notFound(noSuchScript(input.scriptId));
    await requireRevision(
      prisma,
      { type: "script", name: "Script", id: current.id },
      write.expected,
      current.revision,
    );
    const edits = {
      ...(input.name !== undefined && input.name !== current.name && { name: input.name }),
      ...(input.data !== undefined &&
        input.data !== current.data && { data: input.data, checksum: scriptChecksum(input.data) }),
    };
    const lifecycle = updatedLifecycle(current, input, {
      mode: options.mode,
      now: new Date(),
      audit: write.audit,
      otherChanges: Object.keys(edits).length > 0,
    });
    const { updatedBy, ...period } = lifecycle.data;
    const periodChanges = Object.fromEntries(
      Object.entries(period).filter(
        ([key, value]) => !sameValue(value, current[key as keyof typeof period]),
      ),
    );
    const changes = lifecycle.endOnly ? periodChanges : { ...edits, ...periodChanges };
    if (Object.keys(changes).length === 0) return renderScript(current);
    try {
      return await prisma.$transaction(async (tx) => {
        const { count } = await tx.script.updateMany({
          where: { id: current.id, revision: current.revision, deleted: null },
          data: { ...changes, updatedBy, revision: { increment: 1 } },
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

/**
 * CloudKitty master's soft delete: the script stays, marked deleted (when, by whom), and its name
 * is free for a new script. In the trail it is an `update` that sets `deleted`.
 */
export function deleteScript(
  prisma: PrismaClient,
  scriptId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.script.findUnique({ where: { id: scriptId } });
    if (!current || current.deleted) throw fail.notFound(noSuchScript(scriptId));
    await requireRevision(
      prisma,
      { type: "script", name: "Script", id: scriptId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.script.updateMany({
        where: { id: scriptId, revision: current.revision, deleted: null },
        data: { ...deletion(write.audit, new Date()), revision: { increment: 1 } },
      });
      if (count === 0) throw moved();
      const after = renderScript(await tx.script.findUniqueOrThrow({ where: { id: scriptId } }));
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "update",
          resourceType: "script",
          resourceId: scriptId,
          before: renderScript(current),
          after,
        }),
      );
    });
  });
}

function sameValue(a: Date | string | null | undefined, b: Date | string | null): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return (a ?? null) === b;
}
