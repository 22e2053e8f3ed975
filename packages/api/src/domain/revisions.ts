import type { PrismaClient } from "@ratecard/db";
import type { AuditContext, AuditResourceType } from "./audit.js";
import { fail } from "./errors.js";

// No lost updates: every write to an existing resource reads it, checks the revision the caller
// expects (If-Match over REST, `revision` over RPC), and then writes with one conditional
// UPDATE/DELETE ... WHERE "revision" = <the revision read>, first in its transaction. When that
// changes no row the resource moved in between: the write is tried again from the read, where a
// named revision now fails (412) and an unconditional write applies to the new state, so the
// audit event's `before` is always exactly what the write replaced.

/** What every write to an existing resource is told: who writes, and the revision expected. */
export interface WriteContext {
  audit: AuditContext;
  /** The revision the caller last saw; undefined: write whatever the current one is. */
  expected?: number | undefined;
}

class Moved extends Error {
  constructor() {
    super("The resource changed between its read and its conditional write.");
  }
}

/** Thrown inside a write's transaction when its conditional write changed nothing. */
export const moved = (): Error => new Moved();

/**
 * Of writers racing on one row, each round commits one (the first conditional write; the others
 * find the revision moved): this many attempts outlast that many simultaneous writers of one row.
 */
const ATTEMPTS = 50;

/** Runs `attempt` (read, check, conditional write) again while the resource moves under it. */
export async function writeAtRevision<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof Moved)) throw error;
      if (tries >= ATTEMPTS)
        throw fail.conflict("The resource is being changed by others right now; try again.");
    }
    // A little jitter, so that the losers of a round do not meet again in lockstep.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(tries, 10)));
  }
}

/**
 * Refuses a write that expects another revision than the current one (HTTP 412), saying who made
 * the last change and when, from the audit trail, so that the caller knows whose work it would
 * have undone.
 */
export async function requireRevision(
  prisma: PrismaClient,
  resource: { type: AuditResourceType; name: string; id: string },
  expected: number | undefined,
  current: number,
): Promise<void> {
  if (expected === undefined || expected === current) return;
  const last = await prisma.auditEvent.findFirst({
    where: { resourceType: resource.type, resourceId: resource.id },
    orderBy: { seq: "desc" },
    select: { userName: true, at: true },
  });
  // 0 is no revision: an If-Match whose tags are none of this resource's (see rest/entity-tags.ts).
  const expectation = expected < 1 ? "the ETag given" : `revision ${expected}`;
  const by = last
    ? ` (last changed by ${last.userName ?? "an unknown user"} at ${last.at.toISOString()})`
    : "";
  throw fail.stale(
    `${resource.name} ${resource.id} was changed since it was read: it is at revision ${current}, ` +
      `not ${expectation}${by}. Read it again and reapply the change.`,
  );
}
