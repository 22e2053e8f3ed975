import {
  appendAuditEvent,
  insertMapping,
  insertThreshold,
  isForeignKeyViolation,
  isUniqueViolation,
  type Prisma,
  type PrismaClient,
} from "@ratecard/db";
import type {
  TMapping,
  TMappingCreate,
  TMappingUpdate,
  TRuleListFilters,
  TThreshold,
  TThresholdCreate,
  TThresholdUpdate,
} from "@ratecard/validators";
import { auditEvent, type AuditContext } from "./audit.js";
import { fail } from "./errors.js";
import {
  noSuchField,
  noSuchGroup,
  noSuchMapping,
  noSuchService,
  noSuchThreshold,
} from "./messages.js";
import { renderMapping, renderThreshold, type Revisioned } from "./render.js";
import { moved, requireRevision, writeAtRevision, type WriteContext } from "./revisions.js";

// Mappings and thresholds are both "rules": a type, a cost, exactly one parent (service or field),
// an optional group and an optional tenant. The rules below are CloudKitty's, with its messages.

export interface RuleParent {
  serviceId: string | null;
  fieldId: string | null;
}

/** Exactly one parent: service_id xor field_id. */
export function requireOneParent(input: {
  service_id?: string | null;
  field_id?: string | null;
}): RuleParent {
  const serviceId = input.service_id ?? null;
  const fieldId = input.field_id ?? null;
  if (serviceId && fieldId) throw fail.badRequest("You can only specify one parent.");
  if (!serviceId && !fieldId) throw fail.badRequest("You must specify one parent.");
  return { serviceId, fieldId };
}

/**
 * A field mapping matches a metadata value, so it needs one; a service mapping applies to the
 * whole service and must not have one. An absent value is "" (CloudKitty's default), null stays null.
 */
export function checkMappingValue(
  parent: RuleParent,
  value: string | null | undefined,
): string | null {
  if (parent.fieldId && !value) {
    throw fail.badRequest("You must specify a value for a field mapping.");
  }
  if (parent.serviceId && value)
    throw fail.badRequest("You can't specify a value and a service_id.");
  return value === undefined ? "" : value;
}

async function requireParentExists(
  prisma: PrismaClient | Prisma.TransactionClient,
  parent: RuleParent,
): Promise<void> {
  if (parent.serviceId) {
    const found = await prisma.service.count({ where: { id: parent.serviceId } });
    if (!found) throw fail.badRequest(noSuchService(parent.serviceId));
  } else if (parent.fieldId) {
    const found = await prisma.field.count({ where: { id: parent.fieldId } });
    if (!found) throw fail.badRequest(noSuchField(parent.fieldId));
  }
}

async function requireGroupExists(
  prisma: PrismaClient | Prisma.TransactionClient,
  groupId: string | null | undefined,
): Promise<void> {
  if (!groupId) return;
  const found = await prisma.group.count({ where: { id: groupId } });
  if (!found) throw fail.badRequest(noSuchGroup(groupId));
}

function describeScope(rule: RuleParent & { tenantId: string | null; groupId: string | null }) {
  const parent = rule.serviceId ? `service ${rule.serviceId}` : `field ${rule.fieldId}`;
  const tenant = rule.tenantId === null ? "no tenant" : `tenant '${rule.tenantId}'`;
  const group = rule.groupId === null ? "no group" : `group ${rule.groupId}`;
  return `${parent}, ${tenant}, ${group}`;
}

/** The identity indexes read a null tenant as "" (COALESCE), so finding the colliding rule must too. */
function sameTenant(tenantId: string | null) {
  return tenantId ? { tenantId } : { OR: [{ tenantId: null }, { tenantId: "" }] };
}

/** Filters shared by mapping and threshold lists (and the group sub-lists). */
export function ruleListWhere(filters: TRuleListFilters) {
  return {
    ...(filters.service_id !== undefined && { serviceId: filters.service_id }),
    ...(filters.field_id !== undefined && { fieldId: filters.field_id }),
    ...(filters.group_id !== undefined && { groupId: filters.group_id }),
    // Beside group_id this matches nothing, as the two filters together say.
    ...(filters.no_group && { AND: [{ groupId: null }] }),
    ...(filters.filter_tenant && { tenantId: filters.tenant_id ?? null }),
  } satisfies Prisma.MappingWhereInput & Prisma.ThresholdWhereInput;
}

/**
 * Runs a write that may hit the rule identity index or lose a referenced row to a concurrent
 * delete, and turns those into a 409 naming the existing rule or a 400 naming the missing one.
 */
async function writeRule<T>(
  write: () => Promise<T>,
  onDuplicate: () => Promise<never>,
  onMissingReference: () => Promise<never>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) return onDuplicate();
    if (isForeignKeyViolation(error)) return onMissingReference();
    throw error;
  }
}

interface RuleInput {
  type?: "flat" | "rate" | undefined;
  cost: string;
  group_id?: string | null | undefined;
  tenant_id?: string | null | undefined;
}

/** What a create stores: the type is flat and there is no group or tenant unless given. */
function createdRuleAttributes(parent: RuleParent, input: RuleInput) {
  return {
    ...parent,
    type: input.type ?? "flat",
    cost: input.cost,
    groupId: input.group_id ?? null,
    tenantId: input.tenant_id ?? null,
  };
}

/**
 * What an update stores (CloudKitty's PUT): the parent never changes, an omitted type is flat and
 * an omitted tenant none; an omitted group_id keeps the group, an explicit null removes it.
 */
function replacedRuleAttributes(
  current: RuleParent & { groupId: string | null },
  input: RuleInput,
) {
  return {
    serviceId: current.serviceId,
    fieldId: current.fieldId,
    type: input.type ?? "flat",
    cost: input.cost,
    groupId: input.group_id === undefined ? current.groupId : input.group_id,
    tenantId: input.tenant_id ?? null,
  };
}

// ---------------------------------------------------------------------------------- mappings

export async function listMappings(
  prisma: PrismaClient,
  filters: TRuleListFilters,
): Promise<Revisioned<TMapping>[]> {
  const rows = await prisma.mapping.findMany({
    where: ruleListWhere(filters),
    orderBy: { seq: "asc" },
  });
  return rows.map(renderMapping);
}

export async function getMapping(
  prisma: PrismaClient,
  mappingId: string,
): Promise<Revisioned<TMapping>> {
  const row = await prisma.mapping.findUnique({ where: { id: mappingId } });
  if (!row) throw fail.notFound(noSuchMapping(mappingId));
  return renderMapping(row);
}

async function mappingConflict(
  prisma: PrismaClient,
  rule: RuleParent & { value: string | null; tenantId: string | null; groupId: string | null },
): Promise<never> {
  const existing = await prisma.mapping.findFirst({
    where: {
      serviceId: rule.serviceId,
      fieldId: rule.fieldId,
      ...sameTenant(rule.tenantId),
      groupId: rule.groupId,
      ...(rule.fieldId ? { value: rule.value } : {}),
    },
  });
  const what = rule.fieldId ? `Mapping for value '${rule.value}'` : "Service mapping";
  throw fail.conflict(
    `${what} already exists for ${describeScope(rule)} (UUID: ${existing?.id ?? "unknown"})`,
  );
}

async function missingRuleReference(
  prisma: PrismaClient,
  rule: RuleParent & { groupId: string | null },
): Promise<never> {
  await requireParentExists(prisma, rule);
  await requireGroupExists(prisma, rule.groupId);
  throw fail.badRequest("A referenced service, field or group no longer exists.");
}

export async function createMapping(
  prisma: PrismaClient,
  input: TMappingCreate,
  audit: AuditContext,
): Promise<Revisioned<TMapping>> {
  const parent = requireOneParent(input);
  const value = checkMappingValue(parent, input.value);
  // A missing service, field or group fails the insert's foreign key; only then is it looked up
  // (missingRuleReference), so a create is one statement.
  const rule = { ...createdRuleAttributes(parent, input), value };
  const row = await writeRule(
    () =>
      insertMapping(prisma, rule, (created) =>
        auditEvent(audit, {
          operation: "create",
          resourceType: "mapping",
          resourceId: created.id,
          before: null,
          after: renderMapping(created),
        }),
      ),
    () => mappingConflict(prisma, rule),
    () => missingRuleReference(prisma, rule),
  );
  return renderMapping(row);
}

/** Replaces the editable attributes (see replacedRuleAttributes). */
export function updateMapping(
  prisma: PrismaClient,
  input: TMappingUpdate,
  write: WriteContext,
): Promise<Revisioned<TMapping>> {
  return writeAtRevision(async () => {
    const current = await prisma.mapping.findUnique({ where: { id: input.mapping_id } });
    if (!current) throw fail.notFound(noSuchMapping(input.mapping_id));
    await requireRevision(
      prisma,
      { type: "mapping", name: "Mapping", id: current.id },
      write.expected,
      current.revision,
    );
    const value = checkMappingValue(current, input.value);
    await requireGroupExists(prisma, input.group_id);
    const rule = { ...replacedRuleAttributes(current, input), value };
    return writeRule(
      () =>
        prisma.$transaction(async (tx) => {
          const { count } = await tx.mapping.updateMany({
            where: { id: current.id, revision: current.revision },
            data: {
              value: rule.value,
              type: rule.type,
              cost: rule.cost,
              groupId: rule.groupId,
              tenantId: rule.tenantId,
              revision: { increment: 1 },
            },
          });
          if (count === 0) throw moved();
          const mapping = renderMapping(
            await tx.mapping.findUniqueOrThrow({ where: { id: current.id } }),
          );
          await appendAuditEvent(
            tx,
            auditEvent(write.audit, {
              operation: "update",
              resourceType: "mapping",
              resourceId: current.id,
              before: renderMapping(current),
              after: mapping,
            }),
          );
          return mapping;
        }),
      () => mappingConflict(prisma, rule),
      () => missingRuleReference(prisma, rule),
    );
  });
}

export function deleteMapping(
  prisma: PrismaClient,
  mappingId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.mapping.findUnique({ where: { id: mappingId } });
    if (!current) throw fail.notFound(noSuchMapping(mappingId));
    await requireRevision(
      prisma,
      { type: "mapping", name: "Mapping", id: mappingId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.mapping.deleteMany({
        where: { id: mappingId, revision: current.revision },
      });
      if (count === 0) throw moved();
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "delete",
          resourceType: "mapping",
          resourceId: mappingId,
          before: renderMapping(current),
          after: null,
        }),
      );
    });
  });
}

// -------------------------------------------------------------------------------- thresholds

export async function listThresholds(
  prisma: PrismaClient,
  filters: TRuleListFilters,
): Promise<Revisioned<TThreshold>[]> {
  const rows = await prisma.threshold.findMany({
    where: ruleListWhere(filters),
    orderBy: { seq: "asc" },
  });
  return rows.map(renderThreshold);
}

export async function getThreshold(
  prisma: PrismaClient,
  thresholdId: string,
): Promise<Revisioned<TThreshold>> {
  const row = await prisma.threshold.findUnique({ where: { id: thresholdId } });
  if (!row) throw fail.notFound(noSuchThreshold(thresholdId));
  return renderThreshold(row);
}

async function thresholdConflict(
  prisma: PrismaClient,
  rule: RuleParent & { level: string; tenantId: string | null; groupId: string | null },
): Promise<never> {
  const existing = await prisma.threshold.findFirst({
    where: {
      serviceId: rule.serviceId,
      fieldId: rule.fieldId,
      level: rule.level,
      ...sameTenant(rule.tenantId),
      groupId: rule.groupId,
    },
  });
  throw fail.conflict(
    `Threshold for level ${rule.level} already exists for ${describeScope(rule)} ` +
      `(UUID: ${existing?.id ?? "unknown"})`,
  );
}

export async function createThreshold(
  prisma: PrismaClient,
  input: TThresholdCreate,
  audit: AuditContext,
): Promise<Revisioned<TThreshold>> {
  const parent = requireOneParent(input);
  // A missing service, field or group fails the insert's foreign key; only then is it looked up
  // (missingRuleReference), so a create is one statement.
  const rule = { ...createdRuleAttributes(parent, input), level: input.level };
  const row = await writeRule(
    () =>
      insertThreshold(prisma, rule, (created) =>
        auditEvent(audit, {
          operation: "create",
          resourceType: "threshold",
          resourceId: created.id,
          before: null,
          after: renderThreshold(created),
        }),
      ),
    () => thresholdConflict(prisma, rule),
    () => missingRuleReference(prisma, rule),
  );
  return renderThreshold(row);
}

/** Same replacement rules as updateMapping, with `level` instead of `value`. */
export function updateThreshold(
  prisma: PrismaClient,
  input: TThresholdUpdate,
  write: WriteContext,
): Promise<Revisioned<TThreshold>> {
  return writeAtRevision(async () => {
    const current = await prisma.threshold.findUnique({ where: { id: input.threshold_id } });
    if (!current) throw fail.notFound(noSuchThreshold(input.threshold_id));
    await requireRevision(
      prisma,
      { type: "threshold", name: "Threshold", id: current.id },
      write.expected,
      current.revision,
    );
    await requireGroupExists(prisma, input.group_id);
    const rule = { ...replacedRuleAttributes(current, input), level: input.level };
    return writeRule(
      () =>
        prisma.$transaction(async (tx) => {
          const { count } = await tx.threshold.updateMany({
            where: { id: current.id, revision: current.revision },
            data: {
              level: rule.level,
              type: rule.type,
              cost: rule.cost,
              groupId: rule.groupId,
              tenantId: rule.tenantId,
              revision: { increment: 1 },
            },
          });
          if (count === 0) throw moved();
          const threshold = renderThreshold(
            await tx.threshold.findUniqueOrThrow({ where: { id: current.id } }),
          );
          await appendAuditEvent(
            tx,
            auditEvent(write.audit, {
              operation: "update",
              resourceType: "threshold",
              resourceId: current.id,
              before: renderThreshold(current),
              after: threshold,
            }),
          );
          return threshold;
        }),
      () => thresholdConflict(prisma, rule),
      () => missingRuleReference(prisma, rule),
    );
  });
}

export function deleteThreshold(
  prisma: PrismaClient,
  thresholdId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.threshold.findUnique({ where: { id: thresholdId } });
    if (!current) throw fail.notFound(noSuchThreshold(thresholdId));
    await requireRevision(
      prisma,
      { type: "threshold", name: "Threshold", id: thresholdId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.threshold.deleteMany({
        where: { id: thresholdId, revision: current.revision },
      });
      if (count === 0) throw moved();
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "delete",
          resourceType: "threshold",
          resourceId: thresholdId,
          before: renderThreshold(current),
          after: null,
        }),
      );
    });
  });
}
