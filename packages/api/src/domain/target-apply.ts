import { randomUUID } from "node:crypto";
import {
  applyTargetPlan,
  isEmptyTargetPlan,
  planTarget,
  SUPERSEDE_DELAY_MS,
  type AppliedOperation,
  type ApplyOutcome,
  type IdKind,
  type ImportReport,
  type PlanGeneration,
  type TargetApplyStatus,
  type TargetMatch,
  type TargetPlan,
} from "@ratecard/bridge";
import type { ProbeReport } from "@ratecard/cloudkitty";
import type { Prisma, PrismaClient } from "@ratecard/db";
import type { RuleSetDocument } from "@ratecard/ruleset";
import type { AuditContext } from "./audit.js";
import { DomainError, fail } from "./errors.js";
import { currentRuleSet } from "./ruleset.js";
import { getRun, recordRun, runActor } from "./target-runs.js";
import {
  auditTargetRun,
  findRow,
  probeTarget,
  readTargetRuleSet,
  targetClient,
  type TargetRow,
  type TargetSecretBox,
} from "./targets.js";

// Plan and apply against a managed CloudKitty target (issue 14, section 4). The plan is a run in
// the target's history; an apply names the plan it carries out and is refused (409) when either
// side moved since: Ratecard's rule-set revision, the target's fingerprint (the SHA-256 of its rule
// set as read) or the target's own settings. The writes go through @ratecard/bridge's
// applyTargetPlan, which stops at the first failure without rolling back: each CloudKitty id is
// written to the target's id map as soon as CloudKitty acknowledges it, so planning and applying
// again converges.

// ----------------------------------------------------------------------------------- the id map

export async function loadIdMap(
  prisma: PrismaClient | Prisma.TransactionClient,
  targetId: string,
): Promise<Map<string, string>> {
  const rows = await prisma.cloudKittyTargetId.findMany({
    where: { targetId },
    select: { kind: true, ratecardId: true, cloudkittyId: true },
  });
  return new Map(rows.map((r) => [`${r.kind}:${r.ratecardId}`, r.cloudkittyId]));
}

/** One entry: whichever Ratecard object held that CloudKitty id before lets go of it. */
function writeIdEntry(
  prisma: PrismaClient | Prisma.TransactionClient,
  targetId: string,
  entry: { kind: IdKind; ratecard_id: string; target_id: string },
) {
  const { kind, ratecard_id: ratecardId, target_id: cloudkittyId } = entry;
  return [
    prisma.cloudKittyTargetId.deleteMany({
      where: { targetId, kind, cloudkittyId, NOT: { ratecardId } },
    }),
    prisma.cloudKittyTargetId.upsert({
      where: { targetId_kind_ratecardId: { targetId, kind, ratecardId } },
      create: { targetId, kind, ratecardId, cloudkittyId },
      update: { cloudkittyId },
    }),
  ] as const;
}

/** Rebuilds the entries the plan's pairing found missing or stale. */
async function syncIdMap(
  prisma: PrismaClient,
  targetId: string,
  known: ReadonlyMap<string, string>,
  matched: readonly TargetMatch[],
): Promise<void> {
  const changed = matched.filter((m) => known.get(`${m.kind}:${m.ratecard_id}`) !== m.target_id);
  if (changed.length === 0) return;
  await prisma.$transaction(async (tx) => {
    for (const m of changed) {
      const [release, upsert] = writeIdEntry(tx, targetId, m);
      await release;
      await upsert;
    }
  });
}

// ---------------------------------------------------------------------------- the desired side

export interface DesiredRuleSet {
  document: RuleSetDocument;
  revision: string;
  /** Rules and scripts left out because they are not in force now. */
  leftOut: { scheduled: number; ended: number };
}

/**
 * Ratecard's rule set as the target can hold it. Before 23: the rules and scripts in force now
 * (started, not ended; soft-deleted ones are never in the rule set): CloudKitty 17 has no validity
 * dates, so a scheduled rule sent now would bill at once, and an ended one would go on billing.
 * 23+: mappings and scripts with their validity dates, scheduled and ended ones included (the plan
 * creates a scheduled rule with its start and ends a rule Ratecard ended); thresholds in force only,
 * since CloudKitty 23's thresholds have no dates.
 */
export async function desiredRuleSet(
  prisma: PrismaClient,
  now: Date,
  generation: PlanGeneration = "pre-23",
): Promise<DesiredRuleSet> {
  const v23 = generation === "23+";
  const current = await currentRuleSet(prisma, v23 ? { lifecycle: true } : {});
  const notInForce = { deleted: null, OR: [{ start: { gt: now } }, { end: { lte: now } }] };
  const select = { id: true, start: true } as const;
  const none = Promise.resolve([] as { id: string; start: Date }[]);
  const [mappings, thresholds, scripts] = await Promise.all([
    v23 ? none : prisma.mapping.findMany({ where: notInForce, select }),
    prisma.threshold.findMany({ where: notInForce, select }),
    v23 ? none : prisma.script.findMany({ where: notInForce, select }),
  ]);
  const out = new Set([
    ...mappings.map((r) => `mapping:${r.id}`),
    ...thresholds.map((r) => `threshold:${r.id}`),
    ...scripts.map((r) => `script:${r.id}`),
  ]);
  const scheduled = [...mappings, ...thresholds, ...scripts].filter((r) => r.start > now).length;
  const leftOut = { scheduled, ended: out.size - scheduled };
  if (out.size === 0) return { document: current, revision: current.revision, leftOut };
  const keep = <T extends { id: string }>(kind: string, list: T[]) =>
    list.filter((x) => !out.has(`${kind}:${x.id}`));
  const document: RuleSetDocument = {
    ...current,
    services: current.services.map((service) => ({
      ...service,
      mappings: keep("mapping", service.mappings),
      thresholds: keep("threshold", service.thresholds),
      fields: service.fields.map((field) => ({
        ...field,
        mappings: keep("mapping", field.mappings),
        thresholds: keep("threshold", field.thresholds),
      })),
    })),
    scripts: keep("script", current.scripts),
  };
  return { document, revision: current.revision, leftOut };
}

/** The API generation of the target's last probe ("pre-23" when none said 23+). */
export function lastGeneration(row: TargetRow): PlanGeneration {
  const last = row.lastProbe ? (JSON.parse(row.lastProbe) as ProbeReport) : null;
  return last?.generation === "23+" ? "23+" : "pre-23";
}

// -------------------------------------------------------------------------------------- plan

type Generation = ProbeReport["generation"];

export interface TargetPlanResult extends Omit<TargetPlan, "matched"> {
  /** The plan's run: what an apply names. */
  plan_id: string;
  target_id: string;
  /** Ratecard's rule-set revision the plan was made against (`ratecard_revision` too). */
  revision: string;
  ratecard_revision: string;
  /** The SHA-256 of the target's rule set as read. */
  target_fingerprint: string;
  /** The target's API generation (its last probe; probed now when unknown). */
  generation: Generation;
  /** Whether the target's prune setting made objects only in CloudKitty deletes. */
  prune: boolean;
  push_scripts: boolean;
  push_modules: boolean;
  /** Whether only the rules in force now were planned (a CloudKitty before 23). */
  in_force_only: boolean;
  left_out: { scheduled: number; ended: number };
  /** What the plan wants the reader to know (rules left out, opt-ins, a 23+ target). */
  notes: string[];
  /** CloudKitty's objects that Ratecard could not represent (see the import report). */
  skipped: ImportReport["skipped"];
  request_count: number;
}

/** The generation the last probe found; a target never probed (or unknown) is probed now. */
async function generationOf(
  prisma: PrismaClient,
  box: TargetSecretBox,
  row: TargetRow,
): Promise<Generation> {
  const last = row.lastProbe ? (JSON.parse(row.lastProbe) as ProbeReport) : null;
  if (last && last.generation !== "unknown") return last.generation;
  return (await probeTarget(prisma, box, row.id)).generation;
}

interface Planned {
  plan: TargetPlan;
  desired: DesiredRuleSet;
  fingerprint: string;
  report: ImportReport;
  requestCount: number;
}

/** Both sides read, and the plan between them through the id map (rebuilt where it was off). */
async function makePlan(
  prisma: PrismaClient,
  box: TargetSecretBox,
  row: TargetRow,
  now: Date,
  generation: PlanGeneration,
): Promise<Planned> {
  const v23 = generation === "23+";
  const read = await readTargetRuleSet(prisma, box, row, { lifecycle: v23 });
  const desired = await desiredRuleSet(prisma, now, generation);
  const idMap = await loadIdMap(prisma, row.id);
  const plan = planTarget(desired.document, read.document, {
    generation,
    now,
    prune: row.prune,
    duplicates: read.report.duplicates,
    // Costs that came back as a double's expansion: the target stores doubles (SQLite).
    doublePrecision: read.report.doubles.length > 0,
    idMap,
    scripts: row.pushScripts,
    modules: row.pushModules,
  });
  await syncIdMap(prisma, row.id, idMap, plan.matched);
  return {
    plan,
    desired,
    fingerprint: read.fingerprint,
    report: read.report,
    requestCount: read.requestCount,
  };
}

function planNotes(
  row: TargetRow,
  generation: Generation,
  desired: DesiredRuleSet,
  plan: TargetPlan,
  superseded: number,
): string[] {
  const notes: string[] = [];
  if (generation === "unknown")
    notes.push("The target's API generation is unknown (its probe failed): apply is refused.");
  if (generation === "23+") {
    const { scheduled, ended } = desired.leftOut;
    notes.push(
      "This target runs CloudKitty 23 or later: mappings and scripts are planned with their " +
        "validity dates, scheduled ones included (sent with their start). CloudKitty 23 forbids " +
        "changing a started rule except its end, once: such a change is a 'supersede' (the old " +
        "rule ends at T and Ratecard's starts at T: no gap, no overlap; T is Ratecard's start when " +
        `later than the apply, else the apply's moment plus ${SUPERSEDE_DELAY_MS / 1000} s), a rule that has not ` +
        "started is updated in place (cost, start, end, description) or replaced (type, value, " +
        "tenant, group), and an end is an update. The start of a rule that has started on both " +
        "sides is not compared, nor its description; names are sent on create, never compared. " +
        "CloudKitty's ended rules are its history: never deleted or reported.",
    );
    if (plan.counts.frozen > 0)
      notes.push(
        `${plan.counts.frozen} changes CloudKitty 23 refuses on a started rule ('frozen', not applied): see each one's reason.`,
      );
    if (superseded > 0)
      notes.push(
        `${superseded} CloudKitty rules are followed by a later one of the same key (the past of a supersede): left alone.`,
      );
    notes.push(
      "CloudKitty 23's thresholds have no validity dates: they are planned as before 23, in force now only" +
        (scheduled + ended > 0
          ? ` (${scheduled} scheduled and ${ended} ended thresholds left out).`
          : "."),
    );
  } else {
    const { scheduled, ended } = desired.leftOut;
    notes.push(
      "Planned against the rules in force now: CloudKitty before 23 has no validity dates" +
        (scheduled + ended > 0
          ? ` (${scheduled} scheduled and ${ended} ended rules or scripts left out).`
          : "."),
    );
  }
  if (!row.pushScripts) notes.push("Scripts are not planned: the target does not push scripts.");
  if (!row.pushModules)
    notes.push("Module states are not planned: the target does not push modules.");
  return notes;
}

/**
 * What CloudKitty would need to hold Ratecard's rule set, kept as a 'plan' run whose id an apply
 * names. Nothing changes in CloudKitty; in Ratecard only the run and the target's id map.
 */
export async function planTargetRules(
  prisma: PrismaClient,
  box: TargetSecretBox,
  targetId: string,
  audit: AuditContext,
): Promise<TargetPlanResult> {
  const startedAt = new Date();
  let row = await findRow(prisma, targetId);
  const generation = await generationOf(prisma, box, row);
  row = await findRow(prisma, targetId);
  const planGeneration: PlanGeneration = generation === "23+" ? "23+" : "pre-23";
  const { plan, desired, fingerprint, report, requestCount } = await makePlan(
    prisma,
    box,
    row,
    startedAt,
    planGeneration,
  );
  const { matched: _matched, ...shown } = plan;
  const notes = planNotes(row, generation, desired, plan, report.superseded?.length ?? 0);
  const inForceOnly = planGeneration !== "23+";
  const run = await recordRun(prisma, {
    targetId,
    kind: "plan",
    status: isEmptyTargetPlan(plan) ? "empty" : "ok",
    actor: runActor(audit),
    ratecardRevision: desired.revision,
    targetFingerprint: fingerprint,
    startedAt,
    summary: {
      counts: plan.counts,
      generation,
      target_revision: row.revision,
      in_force_only: inForceOnly,
      left_out: desired.leftOut,
      notes,
    },
    operations: plan.operations,
  });
  return {
    plan_id: run.run_id,
    target_id: targetId,
    revision: desired.revision,
    ratecard_revision: desired.revision,
    target_fingerprint: fingerprint,
    generation,
    prune: row.prune,
    push_scripts: row.pushScripts,
    push_modules: row.pushModules,
    in_force_only: inForceOnly,
    left_out: desired.leftOut,
    notes,
    ...shown,
    skipped: report.skipped,
    request_count: requestCount,
  };
}

// ------------------------------------------------------------------------------------- apply

export interface TargetApplyAnswer {
  run_id: string;
  target_id: string;
  plan_id: string;
  status: TargetApplyStatus;
  ratecard_revision: string;
  operations: AppliedOperation[];
  counts: Record<ApplyOutcome, number>;
  error: string | null;
  started_at: string;
  finished_at: string;
}

/** Targets with an apply under way in this process: a second one waits for a new plan. */
const applying = new Set<string>();

/**
 * Carries out the plan `planId` on the target. Refused (409, kept as a 'refused' run) when the
 * target is an import source, its generation was unknown when planned, or when Ratecard's revision, the target's
 * fingerprint or the target's settings moved since the plan. The answer is the apply's run.
 */
export async function applyTargetRules(
  prisma: PrismaClient,
  box: TargetSecretBox,
  targetId: string,
  planId: string,
  audit: AuditContext,
  options: {
    concurrency?: number;
    /**
     * Aborted when the apply's lease on the target is lost (target-lock.ts): the apply then sends
     * nothing more to CloudKitty and ends `partial` (or `failed` before any write) with the
     * signal's reason as its error; what it wrote is in the id map as usual.
     */
    signal?: AbortSignal;
  } = {},
): Promise<TargetApplyAnswer> {
  const startedAt = new Date();
  const row = await findRow(prisma, targetId);
  const planRun = await getRun(prisma, targetId, planId).catch((error: unknown) => {
    if (error instanceof DomainError)
      throw fail.notFound(`No such plan of target ${targetId}: ${planId}`);
    throw error;
  });
  if (planRun.kind !== "plan") {
    throw fail.badRequest(
      `Run ${planId} is a${planRun.kind === "import" ? "n" : ""} ${planRun.kind}, not a plan`,
    );
  }
  const actor = runActor(audit);
  const refuse = async (
    message: string,
    extra: { revision?: string; fingerprint?: string } = {},
  ) => {
    await recordRun(prisma, {
      targetId,
      kind: "apply",
      status: "refused",
      actor,
      planId,
      ratecardRevision: extra.revision ?? null,
      targetFingerprint: extra.fingerprint ?? null,
      startedAt,
      error: message,
    });
    return fail.conflict(message);
  };

  if (row.mode !== "managed") {
    throw await refuse(
      `Target ${row.name} is an import source (read only): Ratecard does not apply to it. ` +
        "Change its mode to managed to apply.",
    );
  }
  const summary = planRun.summary as { generation?: Generation; target_revision?: number };
  if (summary.generation !== "pre-23" && summary.generation !== "23+") {
    throw await refuse(
      `Target ${row.name}: its API generation was unknown when planned (probe it, then plan again).`,
    );
  }
  if (summary.target_revision !== row.revision) {
    throw await refuse(
      `Target ${row.name}'s settings changed since plan ${planId} (prune, opt-ins or connection): plan again.`,
    );
  }
  if (applying.has(targetId)) {
    throw fail.conflict(
      `An apply to target ${row.name} is under way: wait for it, then plan again.`,
    );
  }
  applying.add(targetId);
  try {
    let planned: Planned;
    try {
      planned = await makePlan(prisma, box, row, startedAt, summary.generation);
    } catch (error) {
      await recordRun(prisma, {
        targetId,
        kind: "apply",
        status: "failed",
        actor,
        planId,
        startedAt,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
    const moved = { revision: planned.desired.revision, fingerprint: planned.fingerprint };
    if (planned.desired.revision !== planRun.ratecard_revision) {
      throw await refuse(
        `Ratecard's rule set changed since plan ${planId} (revision ${planRun.ratecard_revision ?? "?"}, ` +
          `now ${planned.desired.revision}): plan again.`,
        moved,
      );
    }
    if (planned.fingerprint !== planRun.target_fingerprint) {
      throw await refuse(
        `Target ${row.name} changed since plan ${planId} (its rule set or module states as read ` +
          "now differ from the plan's): plan again.",
        moved,
      );
    }

    const result = await applyTargetPlan(targetClient(row, box), {
      plan: planned.plan,
      ratecard: planned.desired.document,
      pushScripts: row.pushScripts,
      pushModules: row.pushModules,
      generation: summary.generation,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.signal ? { signal: options.signal } : {}),
      onId: async (entry) => {
        await prisma.$transaction([...writeIdEntry(prisma, targetId, entry)]);
      },
      onRemoved: async ({ kind, target_id }) => {
        await prisma.cloudKittyTargetId.deleteMany({
          where: { targetId, kind, cloudkittyId: target_id },
        });
      },
    });

    const runId = randomUUID();
    const finishedAt = new Date();
    await prisma.$transaction(async (tx) => {
      await recordRun(tx, {
        id: runId,
        targetId,
        kind: "apply",
        status: result.status,
        actor,
        planId,
        ratecardRevision: planned.desired.revision,
        targetFingerprint: planned.fingerprint,
        startedAt,
        finishedAt,
        summary: { counts: result.counts, planned: planned.plan.counts },
        operations: result.operations,
        document: planned.desired.document,
        error: result.error,
      });
      await auditTargetRun(tx, audit, row, { run_id: runId, kind: "apply", status: result.status });
    });
    return {
      run_id: runId,
      target_id: targetId,
      plan_id: planId,
      status: result.status,
      ratecard_revision: planned.desired.revision,
      operations: result.operations,
      counts: result.counts,
      error: result.error,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
    };
  } finally {
    applying.delete(targetId);
  }
}
