import BetterSqlite3 from "better-sqlite3";
import { Prisma } from "./generated/prisma/client.js";

function hasCode(error: unknown, prismaCode: string, sqliteCodes: readonly string[]): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) return error.code === prismaCode;
  // The prepared rule writes (rule-writes.ts) raise better-sqlite3's own errors.
  return error instanceof BetterSqlite3.SqliteError && sqliteCodes.includes(error.code);
}

/** A unique index refused the write (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return hasCode(error, "P2002", ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);
}

/** A foreign key refused the write (P2003): the referenced row vanished concurrently. */
export function isForeignKeyViolation(error: unknown): boolean {
  return hasCode(error, "P2003", ["SQLITE_CONSTRAINT_FOREIGNKEY"]);
}
