import { createHash } from "node:crypto";
import { appendAuditEvent, isUniqueViolation, type Prisma, type PrismaClient } from "@ratecard/db";
import {
  WARNING_RULES_SHOWN,
  type TAcknowledgeableWarning,
  type TAcknowledgeWarningRequest,
  type TRuleSetWarning,
  type TRuleType,
  type TRuleWarningRef,
  type TScopedWarning,
  type TWarningAcknowledgement,
  type TWarningExplorerFilters,
  type TWarningScopeInput,
} from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import { ruleSetWarnings } from "./pricing.js";
import type { RuleSetCache } from "./rating.js";
import { loadRows } from "./rule-window.js";

// Acknowledged warnings: an operator marks a rule-set warning as intended (a deliberate tenant
// override) with a note. An acknowledgement is kept per warning (its key) with the fingerprint of
// the rules involved as they were; it holds only while the fingerprint still matches, so any
// change to those rules (a cost, a group, a rule joining or leaving the warning) opens the warning
// again, and the console shows both what was accepted and that it changed since.

/**
 * Warnings about a whole group: the group is what they are about, and the rules involved (which
 * may be hundreds) only decide whether the acknowledgement still holds. Any other warning is about
 * its particular rules (this override, that lost slot), which are then part of its key.
 */
const ABOUT_A_GROUP = new Set([
  "rate-without-flat",
  "flats-do-not-add",
  "thresholds-compete",
  "group-named-default",
]);

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** What names one warning across reads: its code, where it is and, unless about a group, its rules. */
export function warningKey(warning: TRuleSetWarning): string {
  return sha256(
    JSON.stringify([
      warning.code,
      warning.service_id,
      warning.group_id,
      warning.tenant_id,
      ABOUT_A_GROUP.has(warning.code) ? [] : warning.rule_ids,
    ]),
  );
}

/**
 * The rules involved as they are: their ids and revisions (every change to a rule moves its
 * revision). A rule the database no longer has counts as revision 0.
 */
export function warningFingerprint(
  warning: TRuleSetWarning,
  revisions: ReadonlyMap<string, number>,
): string {
  const rules = [...warning.rule_ids].sort().map((id) => `${id}:${revisions.get(id) ?? 0}`);
  return sha256(JSON.stringify([warning.code, rules]));
}

/**
 * Up to this many rule ids are looked up by id (bound parameters, well below SQLite's and
 * PostgreSQL's limits); more, and reading every rule's id and revision at once is faster than
 * several queries by id (2,000 warnings on 4,000 rules: ~35 ms instead of ~250 ms).
 */
const IDS_PER_QUERY = 500;

async function ruleRevisions(
  prisma: PrismaClient,
  ruleIds: readonly string[],
): Promise<Map<string, number>> {
  const ids = [...new Set(ruleIds)];
  if (ids.length === 0) return new Map();
  const select = { id: true, revision: true } as const;
  const where = ids.length > IDS_PER_QUERY ? {} : { id: { in: ids } };
  const [mappings, thresholds] = await prisma.$transaction([
    prisma.mapping.findMany({ where, select }),
    prisma.threshold.findMany({ where, select }),
  ]);
  return new Map([...mappings, ...thresholds].map((row) => [row.id, row.revision]));
}

type AcknowledgementRow = Prisma.WarningAcknowledgementGetPayload<object>;

function renderAcknowledgement(
  row: AcknowledgementRow,
  fingerprint: string,
): TWarningAcknowledgement {
  return {
    note: row.note,
    user_id: row.userId,
    user_name: row.userName,
    at: row.at.toISOString(),
    revision: row.revision,
    reopened: row.fingerprint !== fingerprint,
  };
}

/** Each warning with its key, its current fingerprint and its acknowledgement, if any. */
async function withAcknowledgements(
  prisma: PrismaClient,
  warnings: readonly TRuleSetWarning[],
): Promise<TAcknowledgeableWarning[]> {
  const revisions = await ruleRevisions(
    prisma,
    warnings.flatMap((warning) => warning.rule_ids),
  );
  const keyed = warnings.map((warning) => ({
    warning,
    key: warningKey(warning),
    fingerprint: warningFingerprint(warning, revisions),
  }));
  // One row per warning an operator acknowledged: few enough to read whole.
  const acknowledgements = new Map<string, AcknowledgementRow>(
    keyed.length === 0
      ? []
      : (await prisma.warningAcknowledgement.findMany()).map((row) => [row.warningKey, row]),
  );
  return keyed.map(({ warning, key, fingerprint }) => {
    const row = acknowledgements.get(key);
    return {
      ...warning,
      warning_key: key,
      fingerprint,
      acknowledgement: row ? renderAcknowledgement(row, fingerprint) : null,
    };
  });
}

/** The rule set's warnings (optionally of one service or group), each with its acknowledgement. */
export async function acknowledgeableWarnings(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  filter: { service_id?: string | undefined; group_id?: string | undefined },
): Promise<TAcknowledgeableWarning[]> {
  return withAcknowledgements(prisma, await ruleSetWarnings(prisma, ruleSets, filter));
}

/** What the explorer filters on, per rule. */
interface RuleAttributes {
  kind: "mapping" | "threshold";
  serviceId: string | null;
  fieldId: string | null;
  type: TRuleType;
  tenantId: string | null;
}

/** The attributes of these rules, by id (by id up to IDS_PER_QUERY ids, else every rule's). */
async function ruleAttributes(
  prisma: PrismaClient,
  ruleIds: readonly string[],
): Promise<Map<string, RuleAttributes>> {
  const ids = [...new Set(ruleIds)];
  if (ids.length === 0) return new Map();
  const select = { id: true, serviceId: true, fieldId: true, type: true, tenantId: true } as const;
  const where = ids.length > IDS_PER_QUERY ? {} : { id: { in: ids } };
  const [mappings, thresholds] = await prisma.$transaction([
    prisma.mapping.findMany({ where, select }),
    prisma.threshold.findMany({ where, select }),
  ]);
  const attributes = new Map<string, RuleAttributes>();
  for (const [kind, rules] of [
    ["mapping", mappings],
    ["threshold", thresholds],
  ] as const)
    for (const { id, ...rule } of rules)
      attributes.set(id, { kind, ...rule, type: rule.type as TRuleType });
  return attributes;
}

function shared<T>(values: readonly T[]): T | undefined {
  const [first] = values;
  return values.length > 0 && values.every((value) => value === first) ? first : undefined;
}

/** The narrowest explorer filters that still list every rule of the warning. */
function explorerFilters(
  warning: TRuleSetWarning,
  attributes: ReadonlyMap<string, RuleAttributes>,
): TWarningExplorerFilters {
  const rules = warning.rule_ids.flatMap((id) => attributes.get(id) ?? []);
  // A rule gone meanwhile could have been anything: only the warning's own scope holds then.
  const known = rules.length === warning.rule_ids.length ? rules : [];
  const kind = shared(known.map((rule) => rule.kind));
  const fieldId = shared(known.map((rule) => rule.fieldId));
  const serviceOnly = known.length > 0 && known.every((rule) => rule.fieldId === null);
  const serviceId = serviceOnly ? shared(known.map((rule) => rule.serviceId)) : undefined;
  const type = shared(known.map((rule) => rule.type));
  // A tenant override mixes the tenant's rule and the global one it replaces: no tenant filter.
  const tenant = shared(known.map((rule) => rule.tenantId));
  return {
    ...(kind && { kind: kind === "mapping" ? "mappings" : "thresholds" }),
    ...(fieldId ? { field_id: fieldId } : serviceId ? { service_id: serviceId } : {}),
    ...(warning.group_id === null ? { no_group: true } : { group_id: warning.group_id }),
    ...(tenant === null ? { no_tenant: true } : tenant ? { tenant_id: tenant } : {}),
    ...(type && { type }),
  };
}

/**
 * The warnings a service, field or group page shows (a field's: those involving one of its rules),
 * each with its first WARNING_RULES_SHOWN rules as list rows, how many it involves in all and the
 * explorer's filters for the rest: what the page's panel needs, without the page loading every rule.
 */
export async function scopedWarnings(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  scope: TWarningScopeInput,
): Promise<TScopedWarning[]> {
  let warnings = await ruleSetWarnings(prisma, ruleSets, scope);
  if (scope.field_id !== undefined && warnings.length > 0) {
    const where = { fieldId: scope.field_id };
    const [mappings, thresholds] = await prisma.$transaction([
      prisma.mapping.findMany({ where, select: { id: true } }),
      prisma.threshold.findMany({ where, select: { id: true } }),
    ]);
    const ids = new Set([...mappings, ...thresholds].map((rule) => rule.id));
    warnings = warnings.filter((warning) => warning.rule_ids.some((id) => ids.has(id)));
  }
  const acknowledgeable = await withAcknowledgements(prisma, warnings);
  const attributes = await ruleAttributes(
    prisma,
    warnings.flatMap((warning) => warning.rule_ids),
  );
  const firstIds = (warning: TRuleSetWarning) => warning.rule_ids.slice(0, WARNING_RULES_SHOWN);
  const named = [...new Set(warnings.flatMap(firstIds))].flatMap((id) => {
    const rule = attributes.get(id);
    return rule ? [{ kind: rule.kind, id }] : [];
  });
  const rows = new Map((await loadRows(prisma, named)).map((row) => [row.id, row]));
  return acknowledgeable.map((warning) => {
    const shown = firstIds(warning);
    return {
      ...warning,
      rule_ids: shown,
      rule_count: warning.rule_ids.length,
      rules: shown.flatMap((id) => rows.get(id) ?? []),
      explorer: explorerFilters(warning, attributes),
    };
  });
}

/**
 * Per rule id, the warnings that involve it (a list's badges): only the acknowledged warnings need
 * the revisions of their rules (to know whether the acknowledgement still holds), so a window of
 * rows costs the few warnings it touches, not every rule a warning involves.
 */
export async function warningsOfRules(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  ruleIds: readonly string[],
): Promise<Map<string, TRuleWarningRef[]>> {
  const wanted = new Set(ruleIds);
  const involved = (await ruleSetWarnings(prisma, ruleSets, {})).filter((warning) =>
    warning.rule_ids.some((id) => wanted.has(id)),
  );
  const byRule = new Map<string, TRuleWarningRef[]>();
  if (involved.length === 0) return byRule;
  const acknowledgements = new Map(
    (await prisma.warningAcknowledgement.findMany()).map((row) => [row.warningKey, row]),
  );
  const keyed = involved.map((warning) => ({ warning, key: warningKey(warning) }));
  const revisions = await ruleRevisions(
    prisma,
    keyed.flatMap(({ warning, key }) => (acknowledgements.has(key) ? warning.rule_ids : [])),
  );
  for (const { warning, key } of keyed) {
    const row = acknowledgements.get(key);
    const reference: TRuleWarningRef = {
      warning_key: key,
      code: warning.code,
      service_id: warning.service_id,
      group_id: warning.group_id,
      acknowledged: row !== undefined && row.fingerprint === warningFingerprint(warning, revisions),
    };
    for (const id of new Set(warning.rule_ids)) {
      if (!wanted.has(id)) continue;
      const list = byRule.get(id);
      if (list) list.push(reference);
      else byRule.set(id, [reference]);
    }
  }
  return byRule;
}

async function currentWarning(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  key: string,
): Promise<TAcknowledgeableWarning> {
  const warnings = await ruleSetWarnings(prisma, ruleSets, {});
  const warning = warnings.find((candidate) => warningKey(candidate) === key);
  if (!warning)
    throw fail.notFound(
      "No such warning: the rules changed and it no longer applies (reload the warnings)",
    );
  const [found] = await withAcknowledgements(prisma, [warning]);
  return found!;
}

/** What the audit trail shows of an acknowledgement: the row, and the warning it is about. */
function auditView(
  row: AcknowledgementRow,
  warning?: TRuleSetWarning,
): Record<string, unknown> & { revision: number } {
  return {
    warning_key: row.warningKey,
    code: row.code,
    note: row.note,
    fingerprint: row.fingerprint,
    ...(warning && {
      message: warning.message,
      service_id: warning.service_id,
      group_id: warning.group_id,
      tenant_id: warning.tenant_id,
      rule_ids: warning.rule_ids,
    }),
    revision: row.revision,
  };
}

/**
 * Marks a warning as intended, with the operator's note; a second call replaces the note (and
 * renews an acknowledgement the warning's rules outgrew). Refused when the warning is gone (404) or
 * its rules changed since the caller read it (412), so that nobody accepts what they did not see.
 */
export async function acknowledgeWarning(
  prisma: PrismaClient,
  ruleSets: RuleSetCache,
  request: TAcknowledgeWarningRequest,
  audit: AuditContext,
): Promise<TAcknowledgeableWarning> {
  const warning = await currentWarning(prisma, ruleSets, request.warning_key);
  if (warning.fingerprint !== request.fingerprint)
    throw fail.stale(
      "The rules of this warning changed since it was read: read it again before acknowledging it",
    );
  const row = await prisma
    .$transaction(async (tx) => {
      const before = await tx.warningAcknowledgement.findUnique({
        where: { warningKey: warning.warning_key },
      });
      const data = {
        code: warning.code,
        fingerprint: warning.fingerprint,
        note: request.note,
        userId: audit.userId,
        userName: audit.userName,
        at: new Date(),
      };
      const after = before
        ? await tx.warningAcknowledgement.update({
            where: { warningKey: before.warningKey },
            data: { ...data, revision: { increment: 1 } },
          })
        : await tx.warningAcknowledgement.create({
            data: { ...data, warningKey: warning.warning_key },
          });
      await appendAuditEvent(
        tx,
        auditEvent(audit, {
          operation: before ? "update" : "create",
          resourceType: "warning",
          resourceId: warning.warning_key,
          before: before && auditView(before),
          after: auditView(after, warning),
        }),
      );
      return after;
    })
    .catch((error: unknown) => {
      // Two first acknowledgements at once: the second one's insert meets the first one's row.
      if (isUniqueViolation(error))
        throw fail.conflict("Someone acknowledged this warning at the same moment; reload it");
      throw error;
    });
  return { ...warning, acknowledgement: renderAcknowledgement(row, warning.fingerprint) };
}

/** Withdraws an acknowledgement: the warning (if it still applies) is open again. */
export async function withdrawWarningAcknowledgement(
  prisma: PrismaClient,
  key: string,
  audit: AuditContext,
): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const before = await tx.warningAcknowledgement.findUnique({ where: { warningKey: key } });
    if (!before) throw fail.notFound("This warning is not acknowledged");
    await tx.warningAcknowledgement.delete({ where: { warningKey: key } });
    await appendAuditEvent(
      tx,
      auditEvent(audit, {
        operation: "delete",
        resourceType: "warning",
        resourceId: key,
        before: auditView(before),
        after: null,
      }),
    );
  });
}
