import { driftTarget, type DriftDifference, type DriftKind } from "@ratecard/bridge";
import { CloudKittyClientError, type CkMetric } from "@ratecard/cloudkitty";
import type { PrismaClient } from "@ratecard/db";
import type { RuleSetDocument } from "@ratecard/ruleset";
import type { AuditContext } from "./audit.js";
import { desiredRuleSet, lastGeneration, loadIdMap } from "./target-apply.js";
import { lastRun, recordRun, runActor } from "./target-runs.js";
import { findRow, readTargetRuleSet, targetClient, type TargetSecretBox } from "./targets.js";

// Drift (issue 14, section 4): how a CloudKitty target differs, now, from what was last applied to
// it and from Ratecard's rule set now, plus what is wrong with the target on its own (duplicates,
// a disabled module holding rules, services and fields no collected metric feeds). Read only on
// both sides; each check is kept as a run of kind 'drift'.

export interface TargetDriftResult {
  run_id: string;
  target_id: string;
  checked_at: string;
  last_apply: {
    run_id: string;
    finished_at: string | null;
    actor: string | null;
    ratecard_revision: string | null;
  } | null;
  /** Whether costs and levels were compared as doubles (the target stores doubles: SQLite). */
  double_precision: boolean;
  differences: DriftDifference[];
  counts: Record<DriftKind, number>;
  /** What the check could not do (the metrics unreadable, ...). */
  notes: string[];
  request_count: number;
}

export async function checkTargetDrift(
  prisma: PrismaClient,
  box: TargetSecretBox,
  targetId: string,
  audit: AuditContext,
): Promise<TargetDriftResult> {
  const row = await findRow(prisma, targetId);
  const startedAt = new Date();
  const actor = runActor(audit);
  // Ratecard's side is what a plan would send now: before 23 the rules in force (a scheduled or
  // ended rule is left out of a plan, so it is not "missing" from CloudKitty either); to a 23+
  // target the rules with their validity dates, compared as its plan does.
  const generation = lastGeneration(row);
  const { document: current } = await desiredRuleSet(prisma, startedAt, generation);

  let read;
  try {
    read = await readTargetRuleSet(prisma, box, row, { lifecycle: generation === "23+" });
  } catch (error) {
    await recordRun(prisma, {
      targetId,
      kind: "drift",
      status: "failed",
      actor,
      ratecardRevision: current.revision,
      startedAt,
      error: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
  const { document, report } = read;
  let requestCount = read.requestCount;

  const notes: string[] = [];
  let metrics: CkMetric[] | null = null;
  try {
    requestCount++;
    metrics = await targetClient(row, box).listMetrics();
    if (metrics === null)
      notes.push(
        "the target has no metrics configured: services and fields were not checked against metrics",
      );
  } catch (error) {
    if (!(error instanceof CloudKittyClientError)) throw error;
    notes.push(
      `the target's metrics could not be read (${error.message}): services and fields were not checked against metrics`,
    );
  }

  const lastApply = await lastRun(prisma, targetId, "apply", ["ok", "partial"]);
  const idMap = await loadIdMap(prisma, targetId);

  const drift = driftTarget({
    target: document,
    ratecard: current,
    lastApplied: (lastApply?.document as RuleSetDocument | null | undefined) ?? null,
    duplicates: report.duplicates,
    // Costs that came back as a double's expansion: the target stores doubles (SQLite).
    doublePrecision: report.doubles.length > 0,
    metrics,
    scripts: row.pushScripts,
    modules: row.pushModules,
    idMap,
    generation,
    now: startedAt,
  });
  if (!row.pushScripts) notes.push("scripts are not pushed to this target: not compared");
  if (!row.pushModules) notes.push("module states are not pushed to this target: not compared");

  const run = await recordRun(prisma, {
    targetId,
    kind: "drift",
    status: drift.differences.length === 0 ? "empty" : "ok",
    actor,
    ratecardRevision: current.revision,
    targetFingerprint: read.fingerprint,
    planId: null,
    startedAt,
    summary: {
      counts: drift.counts,
      double_precision: drift.doublePrecision,
      last_apply: lastApply?.run_id ?? null,
      request_count: requestCount,
    },
    operations: drift.differences,
  });
  return {
    run_id: run.run_id,
    target_id: targetId,
    checked_at: run.finished_at ?? startedAt.toISOString(),
    last_apply: lastApply
      ? {
          run_id: lastApply.run_id,
          finished_at: lastApply.finished_at,
          actor: lastApply.actor,
          ratecard_revision: lastApply.ratecard_revision,
        }
      : null,
    double_precision: drift.doublePrecision,
    differences: drift.differences,
    counts: drift.counts,
    notes,
    request_count: requestCount,
  };
}
