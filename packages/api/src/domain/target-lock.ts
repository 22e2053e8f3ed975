import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Prisma, PrismaClient } from "@ratecard/db";
import { fail } from "./errors.js";
import { recordRun } from "./target-runs.js";
import { findRow } from "./targets.js";

// The apply lease of a CloudKitty target (docs/cloudkitty-targets.md, "Apply lock"). Several
// stateless Ratecard instances may share one database (issue 9), and two of them applying the same
// plan at once would both pass the revision and fingerprint checks and both create the plan's rules
// in CloudKitty, which accepts a second identical tenant-less mapping and bills it. So an apply
// first takes a lease on the target's row, kept in the database that every instance shares:
//
// - taken by one conditional UPDATE (the lease is free or has expired), so that on SQLite (writes
//   serialized) and on PostgreSQL (the second UPDATE waits for the first's row lock and then sees
//   the lease taken) exactly one instance wins;
// - renewed every quarter of its length while the apply runs, so that an apply of minutes keeps it;
// - cleared when the apply ends, whatever the outcome;
// - left to expire when its holder dies (SIGKILL, a lost host): no target stays locked longer than
//   one lease after its holder stopped renewing.
// - lost when a renewal finds another apply's token, or when none succeeded until shortly before
//   the lease's end: the holder's apply is then told to stop (an AbortSignal), since another
//   instance may be applying by now.
//
// Times are the holder's clock: instances on several hosts need clocks that agree (NTP) to well
// within a lease.

/** How long a lease lasts without renewal: TARGET_APPLY_LEASE_SECONDS, 60 s by default. */
export const TARGET_APPLY_LEASE_MS = 60_000;

/** Renewed four times per lease: three renewals may fail (a database hiccup) before it lapses. */
export const applyLeaseRenewalMs = (leaseMs: number) => Math.max(100, Math.floor(leaseMs / 4));

/** This process, as a lease names its holder. */
export const THIS_INSTANCE = `${hostname()} pid ${process.pid}`;

export interface ApplyLeaseRequest {
  targetId: string;
  /** The plan the apply carries out: named to whoever is refused meanwhile. */
  planId: string;
  /** Who asked for the apply (the run history's actor). */
  actor: string | null;
  /** Defaults to TARGET_APPLY_LEASE_MS. */
  leaseMs?: number;
  /** Defaults to THIS_INSTANCE. */
  holder?: string;
}

interface HeldLease {
  targetId: string;
  token: string;
}

const ATTEMPTS = 5;

/**
 * One conditional UPDATE of the target's row (`condition` and the lease columns in `data`) that
 * leaves `updated_at` as it was: the lease is not a change of the target's settings. The row's
 * `updated_at` is read first and the UPDATE also requires it unchanged; when that alone failed (the
 * target was edited meanwhile) it is read again. Answers whether the row was written.
 */
async function writeLease(
  prisma: PrismaClient,
  targetId: string,
  condition: Prisma.CloudKittyTargetWhereInput,
  data: Prisma.CloudKittyTargetUpdateManyMutationInput,
): Promise<boolean> {
  const where = { ...condition, id: targetId };
  for (let attempt = 1; attempt < ATTEMPTS; attempt += 1) {
    const row = await prisma.cloudKittyTarget.findUnique({
      where: { id: targetId },
      select: { updatedAt: true },
    });
    if (!row) return false;
    const { count } = await prisma.cloudKittyTarget.updateMany({
      where: { ...where, updatedAt: row.updatedAt },
      data: { ...data, updatedAt: row.updatedAt },
    });
    if (count === 1) return true;
    if ((await prisma.cloudKittyTarget.count({ where })) === 0) return false;
  }
  // The target's settings keep changing: the lease matters more than an exact updated_at.
  return (await prisma.cloudKittyTarget.updateMany({ where, data })).count === 1;
}

/** Takes the lease, or refuses (409, kept as a 'refused' apply run) naming who holds it. */
async function takeApplyLease(
  prisma: PrismaClient,
  request: ApplyLeaseRequest,
  leaseMs: number,
  startedAt: Date,
): Promise<HeldLease> {
  const { targetId, planId, actor } = request;
  const token = randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    const now = new Date();
    const taken = await writeLease(
      prisma,
      targetId,
      { OR: [{ applyLockUntil: null }, { applyLockUntil: { lt: now } }] },
      {
        applyLockToken: token,
        applyLockHolder: request.holder ?? THIS_INSTANCE,
        applyLockActor: actor,
        applyLockPlanId: planId,
        applyLockSince: now,
        applyLockUntil: new Date(now.getTime() + leaseMs),
      },
    );
    if (taken) return { targetId, token };
    const row = await findRow(prisma, targetId);
    const { applyLockSince: since, applyLockUntil: until } = row;
    // Released or expired between the UPDATE and this read: try again.
    if ((!since || !until || until < new Date()) && attempt < ATTEMPTS) continue;
    const holding = {
      holder: row.applyLockHolder,
      actor: row.applyLockActor,
      plan_id: row.applyLockPlanId,
      since: since?.toISOString() ?? null,
      until: until?.toISOString() ?? null,
    };
    const message =
      `Target ${row.name}: an apply is under way since ${holding.since ?? "?"} ` +
      `(plan ${holding.plan_id ?? "?"}, by ${holding.actor ?? "an unnamed caller"}, on instance ` +
      `${holding.holder ?? "?"}). Its lease is renewed while it runs and lapses at ` +
      `${holding.until ?? "?"} if that instance stops. Wait for it to finish, then plan again.`;
    await recordRun(prisma, {
      targetId,
      kind: "apply",
      status: "refused",
      actor,
      planId,
      startedAt,
      summary: { apply_lock: holding },
      error: message,
    });
    throw fail.conflict(message);
  }
}

/** Pushes the lease's end to `until`; false when it is no longer this holding's (expired and taken). */
function renewApplyLease(prisma: PrismaClient, lease: HeldLease, until: number) {
  return writeLease(
    prisma,
    lease.targetId,
    { applyLockToken: lease.token },
    { applyLockUntil: new Date(until) },
  );
}

function releaseApplyLease(prisma: PrismaClient, lease: HeldLease) {
  return writeLease(
    prisma,
    lease.targetId,
    { applyLockToken: lease.token },
    {
      applyLockToken: null,
      applyLockHolder: null,
      applyLockActor: null,
      applyLockPlanId: null,
      applyLockSince: null,
      applyLockUntil: null,
    },
  );
}

/** How long before its end a lease that could not be renewed stops the apply: a tenth of it. */
export const applyLeaseMarginMs = (leaseMs: number) => Math.max(50, Math.floor(leaseMs / 10));

/** The error an apply that lost its lease stops with (the signal's reason). */
export class ApplyLeaseLostError extends Error {
  constructor(detail: string) {
    super(`the apply lease was lost: ${detail}`);
    this.name = "ApplyLeaseLostError";
  }
}

/** Who holds the target's lease now, for the message of a holder that lost it. */
async function holdingNow(prisma: PrismaClient, targetId: string): Promise<string> {
  try {
    const row = await prisma.cloudKittyTarget.findUnique({
      where: { id: targetId },
      select: { applyLockHolder: true, applyLockPlanId: true, applyLockUntil: true },
    });
    if (!row?.applyLockHolder) return "the target's lease is no longer this apply's";
    return (
      `the target's lease is held by instance ${row.applyLockHolder} ` +
      `(plan ${row.applyLockPlanId ?? "?"}, until ${row.applyLockUntil?.toISOString() ?? "?"})`
    );
  } catch {
    return "the target's lease is no longer this apply's";
  }
}

/**
 * Runs `apply` holding the target's apply lease: refused with a 409 (and a 'refused' run) while
 * another apply, on this instance or any other on the database, holds it; renewed while `apply`
 * runs; released when it settles.
 *
 * `apply` gets a signal that is aborted, with an ApplyLeaseLostError as its reason, when this
 * holding can no longer be relied on: a renewal found the lease taken (it lapsed and another apply
 * took it), or no renewal succeeded until shortly before the lease's end (the database unreachable,
 * the process stalled), after which another instance may take it. The apply must then send nothing
 * more to CloudKitty: two holders writing at once is what the lease prevents.
 */
export async function withTargetApplyLease<T>(
  prisma: PrismaClient,
  request: ApplyLeaseRequest,
  apply: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const leaseMs = request.leaseMs ?? TARGET_APPLY_LEASE_MS;
  const margin = applyLeaseMarginMs(leaseMs);
  const takenAt = Date.now();
  const lease = await takeApplyLease(prisma, request, leaseMs, new Date(takenAt));
  const lost = new AbortController();
  let lastFailure: string | null = null;
  /** The lease's end as last written; the apply is stopped `margin` before it unless renewed. */
  let heldUntil = takenAt + leaseMs;
  let deadline: NodeJS.Timeout | undefined;
  const stop = (reason: ApplyLeaseLostError) => {
    clearInterval(renewal);
    clearTimeout(deadline);
    if (!lost.signal.aborted) lost.abort(reason);
  };
  /** Stops the apply once the lease's end is near without a renewal; answers whether it did. */
  const expired = () => {
    if (Date.now() < heldUntil - margin) return false;
    stop(
      new ApplyLeaseLostError(
        `it could not be renewed before its end at ${new Date(heldUntil).toISOString()}` +
          (lastFailure ? ` (last renewal: ${lastFailure})` : " (no renewal finished in time)") +
          ": another instance may take the target",
      ),
    );
    return true;
  };
  const watch = () => {
    clearTimeout(deadline);
    deadline = setTimeout(expired, Math.max(0, heldUntil - margin - Date.now()));
    deadline.unref();
  };
  let renewing: Promise<void> = Promise.resolve();
  let busy = false;
  const renewal = setInterval(() => {
    // A renewal that comes after the lease's end (a stalled process) is too late: another
    // instance may have taken and released the target meanwhile.
    if (busy || lost.signal.aborted || expired()) return;
    busy = true;
    const until = Date.now() + leaseMs;
    renewing = renewApplyLease(prisma, lease, until)
      .then(async (held) => {
        if (lost.signal.aborted || expired()) return;
        if (held) {
          lastFailure = null;
          heldUntil = until;
          watch();
          return;
        }
        // Lapsed (renewals failed for a whole lease) and taken by another apply, or cleared.
        stop(new ApplyLeaseLostError(await holdingNow(prisma, lease.targetId)));
      })
      // The database is unreachable: the next tick tries again, until the lease's end.
      .catch((error: unknown) => {
        lastFailure = error instanceof Error ? error.message : String(error);
      })
      .finally(() => {
        busy = false;
      });
  }, applyLeaseRenewalMs(leaseMs));
  renewal.unref();
  watch();
  try {
    return await apply(lost.signal);
  } finally {
    clearInterval(renewal);
    clearTimeout(deadline);
    await renewing;
    // A release that fails leaves the lease to lapse by itself; the apply's answer matters more.
    // A lost lease is another apply's now: the release, conditional on this token, leaves it.
    await releaseApplyLease(prisma, lease).catch(() => undefined);
  }
}
