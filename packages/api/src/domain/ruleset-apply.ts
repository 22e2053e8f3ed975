import {
  holdAuditOrder,
  type MappingRow,
  type NewAuditEvent,
  type Prisma,
  type PrismaClient,
  type ThresholdRow,
} from "@ratecard/db";
import {
  exportRuleSet,
  formatIssue,
  OBJECT_KINDS,
  planRuleSet,
  toStoredCost,
  toStoredLevel,
  type PlanCounts,
  type PlanOperation,
  type RecordOf,
  type RuleSetDocument,
  type RuleSetIssue,
  type RuleSetObjectKind,
} from "@ratecard/ruleset";
import { checkPythonSyntax, formatPythonSyntaxError, parseRuleDate } from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import {
  renderField,
  renderGroup,
  renderMapping,
  renderRatingModule,
  renderScript,
  renderService,
  renderThreshold,
} from "./render.js";
import { actorOf } from "./lifecycle.js";
import { generatedRuleName } from "./rules.js";
import { readRuleSetDocument, ruleSetRevision } from "./ruleset.js";
import { scriptChecksum } from "./scripts.js";

// Applying a rule-set document (issue 14): the plan between Ratecard's rule set and the document,
// carried out in one database transaction, keeping the document's ids, with one audit event per
// object changed. The document's own `revision` is the precondition: the revision it was planned
// against (what export and plan answer); a rule set that moved since is refused (409) and nothing
// is written, as on any other error.

/** What an apply did. */
export interface RuleSetApplyResult {
  /** The revision the document was planned against (the rule set's before the apply). */
  planned_revision: string;
  /** The rule set's revision after the apply (unchanged when there was nothing to do). */
  revision: string;
  counts: PlanCounts;
}

/** A whole rule set of 10,000 rules takes seconds on a slow disk; Prisma's default is 5 s. */
const TRANSACTION_TIMEOUT_MS = 10 * 60_000;
const TRANSACTION_MAX_WAIT_MS = 30_000;

/** Rows per multi-row statement: far below SQLite's 32,766 bound variables at ~16 columns. */
const CHUNK = 500;

/**
 * A value no document is expected to hold (a control character, then the object's own id): free and
 * unique. Not NUL, which PostgreSQL refuses in text.
 */
const parked = (id: string) => `\u001fratecard-apply ${id}`;

const REVISION_REQUIRED =
  "Invalid rule set document (1 error): revision: required to apply: the revision the document " +
  'was planned against (the "revision" of its plan or of the export it was edited from)';

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function describeIssues(issues: readonly RuleSetIssue[]): string {
  return (
    `Invalid rule set document (${issues.length} error${issues.length === 1 ? "" : "s"}): ` +
    issues.slice(0, 50).map(formatIssue).join("; ") +
    (issues.length > 50 ? `; and ${issues.length - 50} more` : "")
  );
}

/** CloudKitty compiles a script when it loads it: created or changed sources must parse. */
function scriptIssues(
  document: RuleSetDocument,
  operations: readonly PlanOperation[],
): RuleSetIssue[] {
  const written = new Set(
    operations
      .filter(
        (op) =>
          op.kind === "script" &&
          (op.op === "create" || (op.op === "update" && op.changes?.includes("data"))),
      )
      .map((op) => op.id),
  );
  const issues: RuleSetIssue[] = [];
  document.scripts.forEach((script, index) => {
    if (!written.has(script.id)) return;
    const error = checkPythonSyntax(script.data);
    if (error)
      issues.push({ path: `scripts[${index}].data`, message: formatPythonSyntaxError(error) });
  });
  return issues;
}

async function lastChange(tx: Prisma.TransactionClient): Promise<string> {
  const last = await tx.auditEvent.findFirst({
    where: { resourceType: { in: [...OBJECT_KINDS] } },
    orderBy: { seq: "desc" },
    select: { userName: true, at: true, operation: true, resourceType: true, resourceId: true },
  });
  if (!last) return "";
  return ` (last change: ${last.operation} of ${last.resourceType} ${last.resourceId} by ${
    last.userName ?? "an unknown user"
  } at ${last.at.toISOString()})`;
}

/**
 * Applies `input` (a rule-set document as received: parsed JSON or YAML) to Ratecard's rule set.
 * Refuses with every validation error and its JSON path (400), when the document names no
 * revision (400), when the rule set is no longer at the document's revision (409), and when the
 * plan has errors or a created or changed script does not parse (400); nothing is written then.
 */
export async function applyRuleSetDocument(
  prisma: PrismaClient,
  input: unknown,
  audit: AuditContext,
): Promise<RuleSetApplyResult> {
  const desired = readRuleSetDocument(input);
  if (desired.revision === "") throw fail.badRequest(REVISION_REQUIRED);

  return prisma.$transaction(
    async (tx) => {
      // No other change commits from here to this one's commit (PostgreSQL; SQLite's writers are
      // serial): the revision checked is the one the changes are made on.
      await holdAuditOrder(tx);
      const revision = await ruleSetRevision(tx);
      if (revision !== desired.revision) {
        throw fail.conflict(
          `The rule set changed since the document was planned: planned against revision ` +
            `${desired.revision}, Ratecard is at revision ${revision}${await lastChange(tx)}. ` +
            "Plan again and review the changes.",
        );
      }
      const current = await exportRuleSet(tx, { revision });
      const plan = planRuleSet(current, desired);
      const issues = [...plan.errors, ...scriptIssues(desired, plan.operations)];
      if (issues.length > 0) throw fail.badRequest(describeIssues(issues));
      await refuseDeletedIds(tx, plan.operations);
      if (plan.operations.length > 0) await carryOut(tx, plan.operations, audit);
      return {
        planned_revision: revision,
        revision: await ruleSetRevision(tx),
        counts: plan.counts,
      };
    },
    { timeout: TRANSACTION_TIMEOUT_MS, maxWait: TRANSACTION_MAX_WAIT_MS },
  );
}

/**
 * A deleted rule or script (the lifecycle's soft delete) keeps its row and its id, out of the rule
 * set: a document that creates an object with that id again is refused (409), naming them, rather
 * than failing on the id's unique index or bringing the deleted row back behind the trail's back.
 */
async function refuseDeletedIds(
  tx: Prisma.TransactionClient,
  operations: readonly PlanOperation[],
) {
  // A replaced object (moved to another parent) is deleted first by this apply: its id is free.
  const replaced = new Set(
    operations.filter((op) => op.op === "delete").map((op) => `${op.kind}:${op.id}`),
  );
  const created = (kind: RuleSetObjectKind) =>
    operations
      .filter((op) => op.op === "create" && op.kind === kind && !replaced.has(`${kind}:${op.id}`))
      .map((op) => op.id);
  const taken: string[] = [];
  for (const kind of ["mapping", "threshold", "script"] as const) {
    for (const part of chunks(created(kind))) {
      const where = { where: { id: { in: part } }, select: { id: true } };
      const rows =
        kind === "mapping"
          ? await tx.mapping.findMany(where)
          : kind === "threshold"
            ? await tx.threshold.findMany(where)
            : await tx.script.findMany(where);
      taken.push(...rows.map((row) => `${kind} ${row.id}`));
    }
  }
  if (taken.length === 0) return;
  throw fail.conflict(
    `The document creates ${taken.length === 1 ? "an object" : `${taken.length} objects`} with the id ` +
      `of a deleted one (${taken.slice(0, 10).join(", ")}${taken.length > 10 ? ", ..." : ""}): ` +
      "a deleted rule or script keeps its id; give the new one another id.",
  );
}

// ------------------------------------------------------------------------------- carrying out

type Tx = Prisma.TransactionClient;
type Row = Record<string, unknown> & { id: string };

/** The rows as they were before the apply, for the audit events' `before`. */
async function rowsBefore(
  tx: Tx,
  kind: RuleSetObjectKind,
  ids: string[],
): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  for (const part of chunks(ids)) {
    const where = { where: { id: { in: part } } };
    const found: Row[] =
      kind === "group"
        ? await tx.group.findMany(where)
        : kind === "service"
          ? await tx.service.findMany(where)
          : kind === "field"
            ? await tx.field.findMany(where)
            : kind === "mapping"
              ? await tx.mapping.findMany(where)
              : kind === "threshold"
                ? await tx.threshold.findMany(where)
                : kind === "script"
                  ? await tx.script.findMany(where)
                  : await tx.ratingModule.findMany(where);
    for (const row of found) rows.set(row.id, row);
  }
  return rows;
}

/** A row as its REST answer shows it (what audit events record). */
function render(kind: RuleSetObjectKind, row: Row): object & { revision: number } {
  switch (kind) {
    case "group":
      return renderGroup(row as never);
    case "service":
      return renderService(row as never);
    case "field":
      return renderField(row as never);
    case "mapping":
      return renderMapping(row as unknown as MappingRow);
    case "threshold":
      return renderThreshold(row as unknown as ThresholdRow);
    case "script":
      return renderScript(row as never);
    case "module":
      return renderRatingModule(row as never);
  }
}

/** A canonical document moment (UTC without an offset) as a Date; undefined/null kept. */
function moment<T extends null | undefined>(text: string | T): Date | T {
  if (typeof text !== "string") return text;
  const date = parseRuleDate(text);
  if (!date) throw new Error(`apply: ${text} is not a canonical moment`);
  return date;
}

/**
 * The lifecycle columns a record states. Absent keys are left out (undefined), so that a create
 * takes the column defaults (start: now; end, description: null) and an update keeps them.
 */
function lifecycleColumns(record: {
  start?: string;
  end?: string | null;
  name?: string | null;
  description?: string | null;
}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (record.start !== undefined) out.start = moment(record.start);
  if (record.end !== undefined) out.end = moment(record.end);
  if (record.name !== undefined) out.name = record.name;
  if (record.description !== undefined) out.description = record.description;
  return out;
}

/** The column values a record stands for (the database's fixed-digit decimals). */
function columns<K extends RuleSetObjectKind>(
  kind: K,
  record: RecordOf[K],
): Record<string, unknown> {
  switch (kind) {
    case "group":
    case "service": {
      const r = record as RecordOf["group"];
      return { id: r.id, name: r.name };
    }
    case "field": {
      const r = record as RecordOf["field"];
      return { id: r.id, name: r.name, serviceId: r.service_id };
    }
    case "mapping": {
      const r = record as RecordOf["mapping"];
      return {
        id: r.id,
        value: r.value,
        type: r.type,
        cost: toStoredCost(r.cost),
        serviceId: r.service_id,
        fieldId: r.field_id,
        groupId: r.group_id,
        tenantId: r.tenant_id,
        ...lifecycleColumns(r),
      };
    }
    case "threshold": {
      const r = record as RecordOf["threshold"];
      return {
        id: r.id,
        level: toStoredLevel(r.level),
        type: r.type,
        cost: toStoredCost(r.cost),
        serviceId: r.service_id,
        fieldId: r.field_id,
        groupId: r.group_id,
        tenantId: r.tenant_id,
        ...lifecycleColumns(r),
      };
    }
    case "script": {
      const r = record as RecordOf["script"];
      return {
        id: r.id,
        name: r.name,
        data: r.data,
        checksum: scriptChecksum(r.data),
        ...lifecycleColumns(r),
      };
    }
    default: {
      const r = record as RecordOf["module"];
      return { id: r.id, enabled: r.enabled, priority: r.priority };
    }
  }
}

/** The Prisma delegate of a kind, typed loosely: the calls below are the same for every table. */
interface Delegate {
  update(args: { where: { id: string }; data: Record<string, unknown> }): Promise<Row>;
  deleteMany(args: { where: { id: { in: string[] } } }): Promise<unknown>;
  createManyAndReturn(args: { data: Record<string, unknown>[] }): Promise<Row[]>;
}

function delegate(tx: Tx, kind: RuleSetObjectKind): Delegate {
  const delegates = {
    group: tx.group,
    service: tx.service,
    field: tx.field,
    mapping: tx.mapping,
    threshold: tx.threshold,
    script: tx.script,
    module: tx.ratingModule,
  };
  return delegates[kind] as unknown as Delegate;
}

/**
 * The keys whose change can collide, in the middle of the apply, with another object's value that
 * the same apply changes too (names swapped between two services; two rules trading their tenant or
 * group): such an update first parks its object on a value no other can hold, and only once every
 * such object is parked do the updates write their final values. Parents never change in an update
 * (a move is a delete and a create), so a rule's identity is parked through its tenant.
 */
function parkingOf(kind: RuleSetObjectKind, changes: readonly string[], id: string) {
  if (kind === "group" || kind === "service" || kind === "field" || kind === "script")
    return changes.includes("name") ? { name: parked(id) } : undefined;
  if (kind === "mapping" || kind === "threshold") {
    // A rule's name is unique among its kind (not deleted) too: two rules may trade names (the
    // database does not hold the API's 32-character limit).
    const identity = ["value", "level", "tenant_id", "group_id"];
    const parking: { tenantId?: string; name?: string } = {};
    if (changes.some((key) => identity.includes(key))) parking.tenantId = parked(id);
    if (changes.includes("name")) parking.name = parked(id);
    return parking.tenantId !== undefined || parking.name !== undefined ? parking : undefined;
  }
  return undefined;
}

/** The kinds with the lifecycle's columns (docs/lifecycle.md), which the document does not carry. */
const LIFECYCLE_KINDS = new Set<RuleSetObjectKind>(["mapping", "threshold", "script"]);

const DATA_KEYS: Record<string, string> = {
  service_id: "serviceId",
  field_id: "fieldId",
  group_id: "groupId",
  tenant_id: "tenantId",
};

/**
 * Runs the plan's operations: every delete first, leaves before their parents (the plan's order;
 * a service's fields and rules are deleted one by one before it, so each has its event); then
 * every update that could collide parks its object; then kind by kind, parents first, the
 * updates and the creates (the plan's order). Events are appended in that order, and the audit order lock (PostgreSQL) is
 * held since the start.
 */
async function carryOut(tx: Tx, operations: readonly PlanOperation[], audit: AuditContext) {
  const events: NewAuditEvent[] = [];
  const flush = async () => {
    for (const part of chunks(events.splice(0))) await tx.auditEvent.createMany({ data: part });
  };
  const event = (
    kind: RuleSetObjectKind,
    operation: "create" | "update" | "delete",
    id: string,
    before: Row | null,
    after: Row | null,
  ) =>
    events.push(
      auditEvent(audit, {
        operation,
        resourceType: kind,
        resourceId: id,
        before: before && render(kind, before),
        after: after && render(kind, after),
      }),
    );

  // What a create over REST gives a new rule or script beyond the document's keys: who created it,
  // and a rule's generated name (CloudKitty master's) when the document gives none; a lifecycle key
  // the document leaves out takes its column default (start: now). A start in the past is taken
  // as given (a document restates rules, as `force=true` does over REST).
  const lifecycleOf = (kind: RuleSetObjectKind) =>
    kind === "mapping" || kind === "threshold"
      ? { name: generatedRuleName(), createdBy: actorOf(audit) }
      : kind === "script"
        ? { createdBy: actorOf(audit) }
        : {};

  const deletes = operations.filter((op) => op.op === "delete");
  const updates = operations.filter((op) => op.op === "update");
  const creates = operations.filter((op) => op.op === "create");

  // Rows read before anything is written: `before` is what the apply replaced.
  const before = new Map<string, Row>();
  const touched = new Map<RuleSetObjectKind, string[]>();
  for (const op of [...deletes, ...updates]) {
    const ids = touched.get(op.kind) ?? [];
    ids.push(op.id);
    touched.set(op.kind, ids);
  }
  for (const [kind, ids] of touched) {
    for (const [id, row] of await rowsBefore(tx, kind, ids)) before.set(`${kind}:${id}`, row);
  }
  const beforeOf = (op: PlanOperation) => {
    const row = before.get(`${op.kind}:${op.id}`);
    if (!row) throw new Error(`apply: ${op.kind} ${op.id} vanished within the transaction`);
    return row;
  };

  // Deletes, in runs of one kind (the plan lists them grouped, leaves first).
  for (let i = 0; i < deletes.length;) {
    const kind = deletes[i]!.kind;
    let j = i;
    while (j < deletes.length && deletes[j]!.kind === kind) j++;
    const run = deletes.slice(i, j);
    for (const part of chunks(run.map((op) => op.id)))
      await delegate(tx, kind).deleteMany({ where: { id: { in: part } } });
    for (const op of run) event(kind, "delete", op.id, beforeOf(op), null);
    i = j;
  }

  for (const op of updates) {
    const parking = parkingOf(op.kind, op.changes ?? [], op.id);
    if (parking) await delegate(tx, op.kind).update({ where: { id: op.id }, data: parking });
  }
  // Then kind by kind, parents first (a rule's update may name a group this apply creates): the
  // kind's updates, to their final values, and its creates, many rows per statement.
  const kinds = [...new Set(operations.filter((op) => op.op !== "delete").map((op) => op.kind))];
  for (const kind of kinds) {
    for (const op of updates) {
      if (op.kind !== kind) continue;
      const all = columns(op.kind, op.after as never);
      const data: Record<string, unknown> = { revision: { increment: 1 } };
      for (const key of op.changes ?? []) {
        const column = DATA_KEYS[key] ?? key;
        data[column] = all[column];
      }
      // A parked rule gets its tenant back even when the tenant itself did not change.
      if (parkingOf(op.kind, op.changes ?? [], op.id)?.tenantId !== undefined)
        data.tenantId = all.tenantId;
      if (op.kind === "script" && "data" in data) data.checksum = all.checksum;
      if (LIFECYCLE_KINDS.has(op.kind)) data.updatedBy = actorOf(audit);
      const row = await delegate(tx, op.kind).update({ where: { id: op.id }, data });
      event(op.kind, "update", op.id, beforeOf(op), row);
    }
    const created = creates.filter((op) => op.kind === kind);
    for (const part of chunks(created)) {
      const rows = await delegate(tx, kind).createManyAndReturn({
        data: part.map((op) => ({ ...lifecycleOf(kind), ...columns(kind, op.after as never) })),
      });
      for (const row of rows) event(kind, "create", row.id, null, row);
      if (events.length >= CHUNK * 4) await flush();
    }
  }
  await flush();
}
