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
import { randomUUID } from "node:crypto";
import { auditEvent, type AuditContext } from "./audit.js";
import {
  createdLifecycle,
  deletion,
  lifecycleWhere,
  matchesDescription,
  updatedLifecycle,
  type RuleUpdateMode,
} from "./lifecycle.js";
import { fail } from "./errors.js";
import {
  alreadyExists,
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

/**
 * Filters shared by mapping and threshold lists (and the group sub-lists): CloudKitty's, and
 * CloudKitty master's lifecycle filters (deleted rules hidden unless `deleted=true`).
 */
export function ruleListWhere(filters: TRuleListFilters, now = new Date()) {
  if (filters.all === false && !filters.service_id && !filters.field_id && !filters.group_id)
    throw fail.badRequest("You must specify either service_uuid, field_uuid or group_uuid.");
  return {
    ...(filters.service_id !== undefined && { serviceId: filters.service_id }),
    ...(filters.field_id !== undefined && { fieldId: filters.field_id }),
    ...(filters.group_id !== undefined && { groupId: filters.group_id }),
    ...(filters.filter_tenant && { tenantId: filters.tenant_id ?? null }),
    AND: [
      // Beside group_id this matches nothing, as the two filters together say.
      ...(filters.no_group ? [{ groupId: null }] : []),
      ...lifecycleWhere(filters, now),
    ],
  } satisfies Prisma.MappingWhereInput & Prisma.ThresholdWhereInput;
}

/** A new rule's name when none is given: 32 hexadecimal digits, as CloudKitty master makes one. */
export const generatedRuleName = (): string => randomUUID().replaceAll("-", "");

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
  name?: string | null | undefined;
  start?: string | null | undefined;
  end?: string | null | undefined;
  description?: string | null | undefined;
}

/** How a create is made: `force` (CloudKitty master's ?force=true) allows a start in the past. */
export interface CreateOptions {
  force?: boolean | undefined;
}

/** How an update treats a rule already in force (RULE_UPDATE_MODE, see lifecycle.ts). */
export interface UpdateOptions {
  mode: RuleUpdateMode;
}

/**
 * Whether an update says anything other than the lifecycle that differs from the rule as it is:
 * only what it gives is compared (CloudKitty master's _resource_changed), so a client that sends
 * the rule back unchanged with a new end is not refused.
 */
function changesRule(
  current: {
    type: string;
    cost: string;
    groupId: string | null;
    tenantId: string | null;
    name: string | null;
  },
  input: RuleInput,
): boolean {
  return (
    (input.type !== undefined && input.type !== current.type) ||
    input.cost !== current.cost ||
    (input.group_id !== undefined && input.group_id !== current.groupId) ||
    (input.tenant_id != null && input.tenant_id !== current.tenantId) ||
    (input.name != null && input.name !== current.name)
  );
}

/** The name an update stores: a new one if given, the current one otherwise. */
const updatedName = (current: { name: string | null }, input: RuleInput) =>
  input.name ?? current.name;

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
  return rows
    .filter((row) => matchesDescription(row.description, filters.description))
    .map(renderMapping);
}

/** A mapping, deleted or not (CloudKitty master shows a deleted one, with its `deleted`). */
export async function getMapping(
  prisma: PrismaClient,
  mappingId: string,
): Promise<Revisioned<TMapping>> {
  const row = await prisma.mapping.findUnique({ where: { id: mappingId } });
  if (!row) throw fail.notFound(noSuchMapping(mappingId));
  return renderMapping(row);
}

/** The rule that holds a name, if one not deleted does. */
async function nameConflict(
  find: () => Promise<{ id: string } | null>,
  kind: string,
  name: string | null,
): Promise<void> {
  if (name === null) return;
  const holder = await find();
  if (holder) throw fail.conflict(alreadyExists(kind, name, holder.id));
}

async function mappingConflict(
  prisma: PrismaClient,
  rule: RuleParent & {
    value: string | null;
    tenantId: string | null;
    groupId: string | null;
    name: string | null;
  },
  mappingId?: string,
): Promise<never> {
  await nameConflict(
    () =>
      prisma.mapping.findFirst({
        where: { name: rule.name, deleted: null, ...(mappingId && { id: { not: mappingId } }) },
      }),
    "Mapping",
    rule.name,
  );
  const existing = await prisma.mapping.findFirst({
    where: {
      serviceId: rule.serviceId,
      fieldId: rule.fieldId,
      ...sameTenant(rule.tenantId),
      groupId: rule.groupId,
      deleted: null,
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
  options: CreateOptions = {},
): Promise<Revisioned<TMapping>> {
  const parent = requireOneParent(input);
  const value = checkMappingValue(parent, input.value);
  const lifecycle = createdLifecycle(input, {
    force: options.force ?? false,
    now: new Date(),
    audit,
  });
  // A missing service, field or group fails the insert's foreign key; only then is it looked up
  // (missingRuleReference), so a create is one statement.
  const rule = {
    ...createdRuleAttributes(parent, input),
    value,
    name: input.name ?? generatedRuleName(),
    ...lifecycle,
  };
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

/**
 * Replaces the editable attributes (see replacedRuleAttributes) and the lifecycle that is given
 * (see updatedLifecycle); in strict mode a rule in force takes only a new end. A deleted mapping
 * cannot be changed (404, as in CloudKitty master).
 */
export function updateMapping(
  prisma: PrismaClient,
  input: TMappingUpdate,
  write: WriteContext,
  options: UpdateOptions = { mode: "in-place" },
): Promise<Revisioned<TMapping>> {
  return writeAtRevision(async () => {
    const current = await prisma.mapping.findUnique({ where: { id: input.mapping_id } });
    if (!current || current.deleted) throw fail.notFound(noSuchMapping(input.mapping_id));
    await requireRevision(
      prisma,
      { type: "mapping", name: "Mapping", id: current.id },
      write.expected,
      current.revision,
    );
    const value = checkMappingValue(current, input.value);
    const valueChanged = input.value !== undefined && value !== current.value;
    const lifecycle = updatedLifecycle(current, input, {
      mode: options.mode,
      now: new Date(),
      audit: write.audit,
      otherChanges: valueChanged || changesRule(current, input),
    });
    await requireGroupExists(prisma, input.group_id);
    const rule = {
      ...replacedRuleAttributes(current, input),
      value,
      name: updatedName(current, input),
    };
    const data = lifecycle.endOnly
      ? lifecycle.data
      : {
          value: rule.value,
          type: rule.type,
          cost: rule.cost,
          groupId: rule.groupId,
          tenantId: rule.tenantId,
          name: rule.name,
          ...lifecycle.data,
        };
    return writeRule(
      () =>
        prisma.$transaction(async (tx) => {
          const { count } = await tx.mapping.updateMany({
            where: { id: current.id, revision: current.revision, deleted: null },
            data: { ...data, revision: { increment: 1 } },
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
      () => mappingConflict(prisma, rule, current.id),
      () => missingRuleReference(prisma, rule),
    );
  });
}

/**
 * CloudKitty master's soft delete: the mapping stays, marked deleted (when, by whom), and frees
 * its identity for a new one. In the trail it is an `update` that sets `deleted`. A deleted
 * mapping cannot be deleted again (404).
 */
export function deleteMapping(
  prisma: PrismaClient,
  mappingId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.mapping.findUnique({ where: { id: mappingId } });
    if (!current || current.deleted) throw fail.notFound(noSuchMapping(mappingId));
    await requireRevision(
      prisma,
      { type: "mapping", name: "Mapping", id: mappingId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.mapping.updateMany({
        where: { id: mappingId, revision: current.revision, deleted: null },
        data: { ...deletion(write.audit, new Date()), revision: { increment: 1 } },
      });
      if (count === 0) throw moved();
      const after = renderMapping(await tx.mapping.findUniqueOrThrow({ where: { id: mappingId } }));
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "update",
          resourceType: "mapping",
          resourceId: mappingId,
          before: renderMapping(current),
          after,
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
  return rows
    .filter((row) => matchesDescription(row.description, filters.description))
    .map(renderThreshold);
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
  rule: RuleParent & {
    level: string;
    tenantId: string | null;
    groupId: string | null;
    name: string | null;
  },
  thresholdId?: string,
): Promise<never> {
  await nameConflict(
    () =>
      prisma.threshold.findFirst({
        where: {
          name: rule.name,
          deleted: null,
          ...(thresholdId && { id: { not: thresholdId } }),
        },
      }),
    "Threshold",
    rule.name,
  );
  const existing = await prisma.threshold.findFirst({
    where: {
      serviceId: rule.serviceId,
      fieldId: rule.fieldId,
      level: rule.level,
      ...sameTenant(rule.tenantId),
      groupId: rule.groupId,
      deleted: null,
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
  options: CreateOptions = {},
): Promise<Revisioned<TThreshold>> {
  const parent = requireOneParent(input);
  const lifecycle = createdLifecycle(input, {
    force: options.force ?? false,
    now: new Date(),
    audit,
  });
  // A missing service, field or group fails the insert's foreign key; only then is it looked up
  // (missingRuleReference), so a create is one statement.
  const rule = {
    ...createdRuleAttributes(parent, input),
    level: input.level,
    name: input.name ?? generatedRuleName(),
    ...lifecycle,
  };
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

/** Same replacement and lifecycle rules as updateMapping, with `level` instead of `value`. */
export function updateThreshold(
  prisma: PrismaClient,
  input: TThresholdUpdate,
  write: WriteContext,
  options: UpdateOptions = { mode: "in-place" },
): Promise<Revisioned<TThreshold>> {
  return writeAtRevision(async () => {
    const current = await prisma.threshold.findUnique({ where: { id: input.threshold_id } });
    if (!current || current.deleted) throw fail.notFound(noSuchThreshold(input.threshold_id));
    await requireRevision(
      prisma,
      { type: "threshold", name: "Threshold", id: current.id },
      write.expected,
      current.revision,
    );
    const lifecycle = updatedLifecycle(current, input, {
      mode: options.mode,
      now: new Date(),
      audit: write.audit,
      otherChanges: input.level !== current.level || changesRule(current, input),
    });
    await requireGroupExists(prisma, input.group_id);
    const rule = {
      ...replacedRuleAttributes(current, input),
      level: input.level,
      name: updatedName(current, input),
    };
    const data = lifecycle.endOnly
      ? lifecycle.data
      : {
          level: rule.level,
          type: rule.type,
          cost: rule.cost,
          groupId: rule.groupId,
          tenantId: rule.tenantId,
          name: rule.name,
          ...lifecycle.data,
        };
    return writeRule(
      () =>
        prisma.$transaction(async (tx) => {
          const { count } = await tx.threshold.updateMany({
            where: { id: current.id, revision: current.revision, deleted: null },
            data: { ...data, revision: { increment: 1 } },
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
      () => thresholdConflict(prisma, rule, current.id),
      () => missingRuleReference(prisma, rule),
    );
  });
}

/** A soft delete, as deleteMapping. */
export function deleteThreshold(
  prisma: PrismaClient,
  thresholdId: string,
  write: WriteContext,
): Promise<void> {
  return writeAtRevision(async () => {
    const current = await prisma.threshold.findUnique({ where: { id: thresholdId } });
    if (!current || current.deleted) throw fail.notFound(noSuchThreshold(thresholdId));
    await requireRevision(
      prisma,
      { type: "threshold", name: "Threshold", id: thresholdId },
      write.expected,
      current.revision,
    );
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.threshold.updateMany({
        where: { id: thresholdId, revision: current.revision, deleted: null },
        data: { ...deletion(write.audit, new Date()), revision: { increment: 1 } },
      });
      if (count === 0) throw moved();
      const after = renderThreshold(
        await tx.threshold.findUniqueOrThrow({ where: { id: thresholdId } }),
      );
      await appendAuditEvent(
        tx,
        auditEvent(write.audit, {
          operation: "update",
          resourceType: "threshold",
          resourceId: thresholdId,
          before: renderThreshold(current),
          after,
        }),
      );
    });
  });
}
