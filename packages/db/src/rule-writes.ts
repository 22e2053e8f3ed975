import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import type { Mapping, PrismaClient, Threshold } from "./generated/prisma/client.js";
import type { Durability } from "./database.js";

// Creating a rule is the hot write (scripts create thousands). Through Prisma's client engine it
// costs a query compilation and a statement preparation per call, several times the INSERT
// itself; here it is one statement prepared once. The functions take the PrismaClient the rest of
// the domain uses: a client opened by openDatabase on SQLite has its prepared statements
// registered below; any other client (a transaction's, another database's) writes through
// Prisma, with the same rows and the same errors (isUniqueViolation, isForeignKeyViolation).

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

/** Creates a mapping in its own transaction (one statement) and returns its row. */
export function insertMapping(prisma: PrismaClient, data: NewMapping): Promise<Mapping> {
  const writer = writers.get(prisma);
  return writer ? writer.insertMapping(data) : prisma.mapping.create({ data });
}

/** Creates a threshold in its own transaction (one statement) and returns its row. */
export function insertThreshold(prisma: PrismaClient, data: NewThreshold): Promise<Threshold> {
  const writer = writers.get(prisma);
  return writer ? writer.insertThreshold(data) : prisma.threshold.create({ data });
}

const writers = new WeakMap<PrismaClient, SqliteRuleWriter>();

/** Gives `prisma`'s rule creates to `writer` (openDatabase, for its own client only). */
export function registerRuleWriter(prisma: PrismaClient, writer: SqliteRuleWriter): void {
  writers.set(prisma, writer);
}

/**
 * How long a write waits for another connection's write lock before it fails, as long as
 * better-sqlite3's default busy timeout on Prisma's connection.
 */
const BUSY_WAIT_MS = 5_000;
const MAX_BACKOFF_MS = 32;

/** SQLITE_BUSY and its extended codes (_SNAPSHOT, _RECOVERY, _TIMEOUT). */
function isBusy(error: unknown): boolean {
  return error instanceof BetterSqlite3.SqliteError && error.code.startsWith("SQLITE_BUSY");
}

/** Prisma stores DateTime as ISO text with an explicit offset; rows written here read the same. */
const timestamp = (date: Date) => date.toISOString().replace("Z", "+00:00");

/**
 * A connection of its own, used for single-statement writes in autocommit mode (each one a
 * transaction, fsynced per `durability`). It never waits inside SQLite: another connection may
 * hold the write lock across awaits (Prisma's interactive transactions on this process's other
 * connection, or another process), and a blocking wait would stall the event loop that has to run
 * that transaction to its end. So its busy timeout is 0, and SQLITE_BUSY is retried after a timer,
 * with backoff, for BUSY_WAIT_MS at most.
 */
export class SqliteRuleWriter {
  #db: BetterSqlite3.Database | undefined;
  #statements: ReturnType<typeof prepare> | undefined;

  constructor(
    private readonly file: string,
    private readonly durability: Durability,
  ) {}

  /** Opened on the first write: a server that only reads never pays for the connection. */
  #prepared(): ReturnType<typeof prepare> {
    if (!this.#statements) {
      const db = new BetterSqlite3(this.file, { fileMustExist: true, timeout: 0 });
      this.#db = db;
      db.pragma(`synchronous = ${this.durability.toUpperCase()}`);
      db.pragma("foreign_keys = ON");
      this.#statements = prepare(db);
    }
    return this.#statements;
  }

  insertMapping(data: NewMapping): Promise<Mapping> {
    return this.#write(() => {
      const now = new Date();
      const id = randomUUID();
      const { changes, lastInsertRowid } = this.#prepared().mapping.run({
        ...data,
        id,
        now: timestamp(now),
      });
      if (changes !== 1) throw new Error(`inserting a mapping changed ${changes} rows`);
      return { seq: Number(lastInsertRowid), id, ...data, createdAt: now, updatedAt: now };
    });
  }

  insertThreshold(data: NewThreshold): Promise<Threshold> {
    return this.#write(() => {
      const now = new Date();
      const id = randomUUID();
      const { changes, lastInsertRowid } = this.#prepared().threshold.run({
        ...data,
        id,
        now: timestamp(now),
      });
      if (changes !== 1) throw new Error(`inserting a threshold changed ${changes} rows`);
      return { seq: Number(lastInsertRowid), id, ...data, createdAt: now, updatedAt: now };
    });
  }

  async #write<T>(write: () => T): Promise<T> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    let backoff = 1;
    for (;;) {
      try {
        return write();
      } catch (error) {
        if (!isBusy(error) || Date.now() + backoff > deadline) throw error;
      }
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  close(): void {
    this.#db?.close();
    this.#db = undefined;
    this.#statements = undefined;
  }
}

function prepare(db: BetterSqlite3.Database) {
  return {
    mapping: db.prepare(
      `INSERT INTO "hashmap_mappings"
         ("id", "value", "type", "cost", "service_id", "field_id", "group_id", "tenant_id",
          "created_at", "updated_at")
       VALUES (@id, @value, @type, @cost, @serviceId, @fieldId, @groupId, @tenantId, @now, @now)`,
    ),
    threshold: db.prepare(
      `INSERT INTO "hashmap_thresholds"
         ("id", "level", "type", "cost", "service_id", "field_id", "group_id", "tenant_id",
          "created_at", "updated_at")
       VALUES (@id, @level, @type, @cost, @serviceId, @fieldId, @groupId, @tenantId, @now, @now)`,
    ),
  };
}
