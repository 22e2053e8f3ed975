import { randomUUID } from "node:crypto";
import type { Mapping, PrismaClient, Threshold } from "./generated/prisma/client.js";
import { preparedConnectionOf } from "./prepared-connection.js";

// Creating a rule is the hot write (scripts create thousands): one prepared INSERT in its own
// transaction (see prepared-connection.ts), or Prisma's create for any other client.

/** What a new mapping stores; its id, sequence number and timestamps are made here. */
export interface NewMapping {
  serviceId: string | null;
  fieldId: string | null;
  value: string | null;
  type: string;
  cost: string;
  groupId: string | null;
  tenantId: string | null;
}

export interface NewThreshold {
  serviceId: string | null;
  fieldId: string | null;
  level: string;
  type: string;
  cost: string;
  groupId: string | null;
  tenantId: string | null;
}

const INSERT_MAPPING = `INSERT INTO "hashmap_mappings"
  ("id", "value", "type", "cost", "service_id", "field_id", "group_id", "tenant_id",
   "created_at", "updated_at")
  VALUES (@id, @value, @type, @cost, @serviceId, @fieldId, @groupId, @tenantId, @now, @now)`;

const INSERT_THRESHOLD = `INSERT INTO "hashmap_thresholds"
  ("id", "level", "type", "cost", "service_id", "field_id", "group_id", "tenant_id",
   "created_at", "updated_at")
  VALUES (@id, @level, @type, @cost, @serviceId, @fieldId, @groupId, @tenantId, @now, @now)`;

/** Prisma stores DateTime as ISO text with an explicit offset; rows written here read the same. */
const timestamp = (date: Date) => date.toISOString().replace("Z", "+00:00");

/** Creates a mapping in its own transaction (one statement) and returns its row. */
export function insertMapping(prisma: PrismaClient, data: NewMapping): Promise<Mapping> {
  const connection = preparedConnectionOf(prisma);
  if (!connection) return prisma.mapping.create({ data });
  return connection.run(() => {
    const statement = connection.statement(INSERT_MAPPING);
    const now = new Date();
    const id = randomUUID();
    const { lastInsertRowid } = statement.run({ ...data, id, now: timestamp(now) });
    return { seq: Number(lastInsertRowid), id, ...data, createdAt: now, updatedAt: now };
  });
}

/** Creates a threshold in its own transaction (one statement) and returns its row. */
export function insertThreshold(prisma: PrismaClient, data: NewThreshold): Promise<Threshold> {
  const connection = preparedConnectionOf(prisma);
  if (!connection) return prisma.threshold.create({ data });
  return connection.run(() => {
    const statement = connection.statement(INSERT_THRESHOLD);
    const now = new Date();
    const id = randomUUID();
    const { lastInsertRowid } = statement.run({ ...data, id, now: timestamp(now) });
    return { seq: Number(lastInsertRowid), id, ...data, createdAt: now, updatedAt: now };
  });
}
