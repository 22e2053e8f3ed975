import { clientProvider, type Prisma, type PrismaClient } from "@ratecard/db";
import {
  exportRuleSet,
  formatIssue,
  planRuleSet,
  serializeRuleSet,
  validateRuleSet,
  type RuleSetDocument,
  type RuleSetFormat,
  type RuleSetIssue,
  type RuleSetPlan,
} from "@ratecard/ruleset";
import { fail } from "./errors.js";
import type { AuditResourceType } from "./audit.js";
import { REPLAY_KINDS } from "./history-replay.js";

// The whole rule set as one reviewable document (issue 14): export and plan. The document's
// format, canonical text and plans are @ratecard/ruleset's; this module decides what the revision
// is and reads it in the same snapshot as the rules.

/** The client is typed against SQLite's, whose isolation type lists Serializable only. */
const REPEATABLE_READ = "RepeatableRead" as "Serializable";

function isPostgres(prisma: PrismaClient): boolean {
  return clientProvider(prisma) === "postgresql";
}

/**
 * The audit trail's resource types that the rule-set document holds (the kinds the replay of the
 * trail rebuilds). Other changes (accounts, tokens, warning acknowledgements, CloudKitty targets)
 * are audited too but leave the rule set as it was: they must not move its revision, or a plan
 * would be refused for a target's new name.
 */
const RULE_SET_RESOURCE_TYPES: readonly AuditResourceType[] = REPLAY_KINDS;

/**
 * The rule set's revision: the number of the newest audit event about the rule set. Every change
 * appends one in its own transaction, so the number moves with every change of the rule set and
 * never comes back ("0": no change yet).
 */
export async function ruleSetRevision(tx: Prisma.TransactionClient): Promise<string> {
  const newest = await tx.auditEvent.findFirst({
    where: { resourceType: { in: [...RULE_SET_RESOURCE_TYPES] } },
    orderBy: { seq: "desc" },
    select: { seq: true },
  });
  return String(newest?.seq ?? 0);
}

/**
 * The current rule set and its revision, read in one snapshot: SQLite's transactions are
 * serializable; PostgreSQL's READ COMMITTED default could show a change's rules without its audit
 * event, hence REPEATABLE READ there.
 *
 * Without `lifecycle: true`, rules and scripts leave out the lifecycle's keys (start, end, name,
 * description): the rule set as CloudKitty 17 holds it, which the CloudKitty bridge (import's
 * merge, target plans) compares with a target's; a document without them, applied, keeps
 * Ratecard's lifecycle as it is. The export and the rule-set plan ask for them.
 */
export async function currentRuleSet(
  prisma: PrismaClient,
  options: { lifecycle?: boolean } = {},
): Promise<RuleSetDocument> {
  const lifecycle = options.lifecycle ?? false;
  return prisma.$transaction(
    async (tx) => exportRuleSet(tx, { revision: await ruleSetRevision(tx), lifecycle }),
    isPostgres(prisma) ? { isolationLevel: REPEATABLE_READ } : {},
  );
}

/** The document and its canonical text in `format` (the same rule set gives the same bytes). */
export async function exportRuleSetText(
  prisma: PrismaClient,
  format: RuleSetFormat,
): Promise<{ document: RuleSetDocument; text: string }> {
  const document = await currentRuleSet(prisma, { lifecycle: true });
  return { document, text: serializeRuleSet(document, format) };
}

/** Most issues a refusal lists; a document that wrong has more to fix than one answer can say. */
const MAX_ISSUES_SHOWN = 50;

function describeIssues(issues: readonly RuleSetIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).map(formatIssue);
  const more = issues.length - shown.length;
  return (
    `Invalid rule set document (${issues.length} error${issues.length === 1 ? "" : "s"}): ` +
    shown.join("; ") +
    (more > 0 ? `; and ${more} more` : "")
  );
}

/** A document as received (parsed JSON), validated: every error at once, with its JSON path. */
export function readRuleSetDocument(value: unknown): RuleSetDocument {
  const validation = validateRuleSet(value);
  if (!validation.ok) throw fail.badRequest(describeIssues(validation.issues));
  return validation.document;
}

/** The plan that would turn the current rule set into `desired`. Reads only. */
export async function planRuleSetChange(
  prisma: PrismaClient,
  desired: unknown,
): Promise<RuleSetPlan> {
  const document = readRuleSetDocument(desired);
  return planRuleSet(await currentRuleSet(prisma, { lifecycle: true }), document);
}
