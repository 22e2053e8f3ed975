import { randomUUID } from "node:crypto";
import type { Prisma, PrismaClient } from "@ratecard/db";
import type { AuditContext } from "./audit.js";
import { fail } from "./errors.js";

// The run history of CloudKitty targets (issue 14): every import, plan, apply and drift check is
// kept with who ran it, when, Ratecard's rule-set revision, the target's fingerprint, each
// operation with CloudKitty's status and request id, and the outcome. Plan runs are what an apply
// refers to (`plan_id`); the last 'ok' or 'partial' apply's document is what drift compares with.

export const TARGET_RUN_KINDS = ["import", "plan", "apply", "drift"] as const;
export type TargetRunKind = (typeof TARGET_RUN_KINDS)[number];

export const TARGET_RUN_STATUSES = ["ok", "empty", "partial", "failed", "refused"] as const;
export type TargetRunStatus = (typeof TARGET_RUN_STATUSES)[number];

/** A run as the list answers it: without its operations and document (they can be large). */
export interface TTargetRunBrief {
  run_id: string;
  target_id: string;
  kind: TargetRunKind;
  status: TargetRunStatus;
  /** Who ran it: the user's name (else id), null when nobody said. */
  actor: string | null;
  ratecard_revision: string | null;
  target_fingerprint: string | null;
  plan_id: string | null;
  started_at: string;
  finished_at: string | null;
  summary: Record<string, unknown>;
  operation_count: number;
  error: string | null;
}

/** A run with everything kept of it. */
export interface TTargetRun extends TTargetRunBrief {
  operations: unknown[];
  /** For an apply: the Ratecard rule-set document applied (drift compares with it). */
  document: unknown;
}

export interface NewTargetRun {
  /** Given when the caller needs the id before the run is stored (an audit event names it). */
  id?: string;
  targetId: string;
  kind: TargetRunKind;
  status: TargetRunStatus;
  actor: string | null;
  ratecardRevision?: string | null;
  targetFingerprint?: string | null;
  planId?: string | null;
  startedAt: Date;
  finishedAt?: Date | null;
  summary?: Record<string, unknown>;
  operations?: unknown[];
  document?: unknown;
  error?: string | null;
}

/** Who ran it, as the run history names them. */
export function runActor(audit: AuditContext): string | null {
  return audit.userName ?? audit.userId;
}

type RunRow = NonNullable<Awaited<ReturnType<PrismaClient["cloudKittyTargetRun"]["findUnique"]>>>;

function brief(row: Omit<RunRow, "operations" | "document">, count: number): TTargetRunBrief {
  return {
    run_id: row.id,
    target_id: row.targetId,
    kind: row.kind as TargetRunKind,
    status: row.status as TargetRunStatus,
    actor: row.actor,
    ratecard_revision: row.ratecardRevision,
    target_fingerprint: row.targetFingerprint,
    plan_id: row.planId,
    started_at: row.startedAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    summary: JSON.parse(row.summary) as Record<string, unknown>,
    operation_count: count,
    error: row.error,
  };
}

function full(row: RunRow): TTargetRun {
  const operations = JSON.parse(row.operations) as unknown[];
  return {
    ...brief(row, operations.length),
    operations,
    document: row.document === null ? null : (JSON.parse(row.document) as unknown),
  };
}

/** Stores one finished (or refused) run; answers it as `getRun` would. */
export async function recordRun(
  prisma: PrismaClient | Prisma.TransactionClient,
  run: NewTargetRun,
): Promise<TTargetRun> {
  const operations = run.operations ?? [];
  const row = await prisma.cloudKittyTargetRun.create({
    data: {
      id: run.id ?? randomUUID(),
      targetId: run.targetId,
      kind: run.kind,
      status: run.status,
      actor: run.actor,
      ratecardRevision: run.ratecardRevision ?? null,
      targetFingerprint: run.targetFingerprint ?? null,
      planId: run.planId ?? null,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt === undefined ? new Date() : run.finishedAt,
      summary: JSON.stringify({ ...run.summary, operation_count: operations.length }),
      operations: JSON.stringify(operations),
      document:
        run.document === undefined || run.document === null ? null : JSON.stringify(run.document),
      error: run.error ?? null,
    },
  });
  return full(row);
}

const noSuchRun = (targetId: string, runId: string) =>
  `No such run of target ${targetId}: ${runId}`;

/** The target's runs, newest first, without operations and documents. */
export async function listRuns(
  prisma: PrismaClient,
  targetId: string,
  options: { limit?: number; kind?: TargetRunKind } = {},
): Promise<TTargetRunBrief[]> {
  const target = await prisma.cloudKittyTarget.findUnique({
    where: { id: targetId },
    select: { id: true },
  });
  if (!target) throw fail.notFound(`No such target: ${targetId}`);
  const rows = await prisma.cloudKittyTargetRun.findMany({
    where: { targetId, ...(options.kind ? { kind: options.kind } : {}) },
    orderBy: [{ startedAt: "desc" }, { finishedAt: "desc" }],
    take: options.limit ?? 50,
    omit: { operations: true, document: true },
  });
  return rows.map((row) => {
    const summary = JSON.parse(row.summary) as { operation_count?: number };
    return brief(row, summary.operation_count ?? 0);
  });
}

export async function getRun(
  prisma: PrismaClient | Prisma.TransactionClient,
  targetId: string,
  runId: string,
): Promise<TTargetRun> {
  const row = await prisma.cloudKittyTargetRun.findUnique({ where: { id: runId } });
  if (!row || row.targetId !== targetId) throw fail.notFound(noSuchRun(targetId, runId));
  return full(row);
}

/** The newest run of `kind` with one of `statuses`, or null (drift: the last apply). */
export async function lastRun(
  prisma: PrismaClient | Prisma.TransactionClient,
  targetId: string,
  kind: TargetRunKind,
  statuses: readonly TargetRunStatus[] = TARGET_RUN_STATUSES,
): Promise<TTargetRun | null> {
  const row = await prisma.cloudKittyTargetRun.findFirst({
    where: { targetId, kind, status: { in: [...statuses] } },
    orderBy: [{ startedAt: "desc" }, { finishedAt: "desc" }],
  });
  return row ? full(row) : null;
}
