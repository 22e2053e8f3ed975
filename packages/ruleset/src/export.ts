import type { DatabaseProvider, Prisma, PrismaClient } from "@ratecard/db";
import { COST_PRECISION, formatRuleDate, LEVEL_PRECISION } from "@ratecard/validators";
import { fromStored } from "./decimal.js";
import {
  canonicalizeRuleSet,
  RULESET_FORMAT,
  RULESET_VERSION,
  type RuleSetDocument,
  type RuleSetField,
  type RuleSetMapping,
  type RuleSetService,
  type RuleSetThreshold,
  type RuleType,
} from "./document.js";

export interface ExportOptions {
  /** Ratecard's rule-set revision, written into the document (the server decides what it is). */
  revision: string;
  /**
   * `postgresql` reads under REPEATABLE READ, so that the seven selects see one snapshot (a batch
   * under PostgreSQL's default READ COMMITTED could mix commits). SQLite's transactions are
   * serializable already (and its adapter refuses any other level): the default.
   */
  provider?: DatabaseProvider;
  /**
   * Whether rules and scripts carry the lifecycle's desired state (`start`, `end`, `description`,
   * a rule's `name`): true by default. Without it, the document is what CloudKitty 17 can hold,
   * which is what the CloudKitty bridge compares (and, applied, it keeps the lifecycle as it is).
   */
  lifecycle?: boolean;
}

const ruleColumns = {
  id: true,
  type: true,
  cost: true,
  serviceId: true,
  fieldId: true,
  groupId: true,
  tenantId: true,
  start: true,
  end: true,
  name: true,
  description: true,
} as const;

function reads(prisma: PrismaClient | Prisma.TransactionClient) {
  return [
    prisma.ratingModule.findMany({ select: { id: true, enabled: true, priority: true } }),
    prisma.group.findMany({ select: { id: true, name: true } }),
    prisma.service.findMany({ select: { id: true, name: true } }),
    prisma.field.findMany({ select: { id: true, name: true, serviceId: true } }),
    // Soft-deleted rules and scripts (the lifecycle's DELETE) are not part of the rule set.
    prisma.mapping.findMany({ where: { deleted: null }, select: { ...ruleColumns, value: true } }),
    prisma.threshold.findMany({
      where: { deleted: null },
      select: { ...ruleColumns, level: true },
    }),
    prisma.script.findMany({
      where: { deleted: null },
      select: { id: true, name: true, data: true, start: true, end: true, description: true },
    }),
  ] as const;
}

type Settled<T extends readonly unknown[]> = { -readonly [K in keyof T]: Awaited<T[K]> };
type Rows = Settled<ReturnType<typeof reads>>;

// The client is typed against SQLite's, whose isolation type lists Serializable only.
const REPEATABLE_READ = "RepeatableRead" as "Serializable";

/**
 * The whole rule set as a canonical document: one query per table, each with the columns the
 * document needs, in one transaction when given the client (one snapshot: see `provider`), or
 * inside the caller's transaction when given a transaction client.
 */
export async function exportRuleSet(
  prisma: PrismaClient | Prisma.TransactionClient,
  options: ExportOptions,
): Promise<RuleSetDocument> {
  const rows =
    "$transaction" in prisma
      ? await prisma.$transaction(
          [...reads(prisma)],
          options.provider === "postgresql" ? { isolationLevel: REPEATABLE_READ } : {},
        )
      : await Promise.all(reads(prisma));
  return buildDocument(rows, options.revision, options.lifecycle ?? true);
}

interface LifecycleColumns {
  start: Date;
  end: Date | null;
  description: string | null;
}

/** A row's lifecycle keys, as the document writes them (every key: an export states them all). */
function lifecycleOf(row: LifecycleColumns) {
  return {
    start: formatRuleDate(row.start),
    end: row.end && formatRuleDate(row.end),
    description: row.description,
  };
}

function buildDocument(
  [modules, groups, services, fields, mappings, thresholds, scripts]: Rows,
  revision: string,
  lifecycle: boolean,
): RuleSetDocument {
  const ruleLifecycle = (row: LifecycleColumns & { name: string | null }) => {
    if (!lifecycle) return {};
    const { start, end, description } = lifecycleOf(row);
    return { start, end, name: row.name, description };
  };
  const cost = (text: string) => fromStored(text, COST_PRECISION);
  const treeOf = new Map<string, { mappings: RuleSetMapping[]; thresholds: RuleSetThreshold[] }>();
  const serviceTrees = new Map<string, RuleSetService>();
  const fieldTrees = new Map<string, RuleSetField>();
  for (const service of services) {
    const tree: RuleSetService = {
      id: service.id,
      name: service.name,
      mappings: [],
      thresholds: [],
      fields: [],
    };
    serviceTrees.set(service.id, tree);
    treeOf.set(`service:${service.id}`, tree);
  }
  for (const field of fields) {
    const tree: RuleSetField = { id: field.id, name: field.name, mappings: [], thresholds: [] };
    fieldTrees.set(field.id, tree);
    treeOf.set(`field:${field.id}`, tree);
    // The foreign key (ON DELETE CASCADE) guarantees the service within one snapshot.
    serviceTrees.get(field.serviceId)?.fields.push(tree);
  }
  const parentOf = (rule: { serviceId: string | null; fieldId: string | null }) =>
    treeOf.get(rule.fieldId ? `field:${rule.fieldId}` : `service:${rule.serviceId}`);

  for (const row of mappings) {
    parentOf(row)?.mappings.push({
      id: row.id,
      // A service mapping stored with "" (CloudKitty's default) has no value, as with null.
      value: row.fieldId ? row.value : null,
      type: row.type as RuleType,
      cost: cost(row.cost),
      tenant_id: row.tenantId,
      group_id: row.groupId,
      ...ruleLifecycle(row),
    });
  }
  for (const row of thresholds) {
    parentOf(row)?.thresholds.push({
      id: row.id,
      level: fromStored(row.level, LEVEL_PRECISION),
      type: row.type as RuleType,
      cost: cost(row.cost),
      tenant_id: row.tenantId,
      group_id: row.groupId,
      ...ruleLifecycle(row),
    });
  }

  return canonicalizeRuleSet({
    format: RULESET_FORMAT,
    version: RULESET_VERSION,
    revision,
    modules,
    groups,
    services: [...serviceTrees.values()],
    scripts: scripts.map(({ start, end, description, ...script }) =>
      lifecycle ? { ...script, ...lifecycleOf({ start, end, description }) } : script,
    ),
  });
}
