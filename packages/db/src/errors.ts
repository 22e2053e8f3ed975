import BetterSqlite3 from "better-sqlite3";
import { Prisma } from "./generated/prisma/client.js";

// One set of predicates for both databases. Prisma maps unique and foreign-key violations to P2002
// and P2003 on both, but a raw query's failure is P2010 with the driver's error inside, and a
// CHECK violation on PostgreSQL is no Prisma error at all: the driver adapter's error (SQLSTATE
// 23514) comes through as it is. The prepared rule writes (rule-writes.ts) raise better-sqlite3's
// own errors. Both generated clients throw the same error classes.

/** What a driver adapter says about a failed statement (DriverAdapterError's cause). */
interface DriverCause {
  kind?: string;
  code?: string;
  originalCode?: string;
}

function driverCause(error: unknown): DriverCause | undefined {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const inner = (error.meta as { driverAdapterError?: { cause?: DriverCause } } | undefined)
      ?.driverAdapterError;
    return inner?.cause;
  }
  if (error instanceof Error && error.name === "DriverAdapterError") {
    return error.cause as DriverCause | undefined;
  }
  return undefined;
}

function matches(
  error: unknown,
  codes: { prisma: readonly string[]; kind: string; sqlstate: string; sqlite: readonly string[] },
): boolean {
  if (error instanceof BetterSqlite3.SqliteError) return codes.sqlite.includes(error.code);
  if (error instanceof Prisma.PrismaClientKnownRequestError && codes.prisma.includes(error.code)) {
    return true;
  }
  const cause = driverCause(error);
  if (!cause) return false;
  return (
    cause.kind === codes.kind ||
    cause.originalCode === codes.sqlstate ||
    (cause.kind === "postgres" && cause.code === codes.sqlstate) ||
    (cause.kind === "sqlite" && codes.sqlite.includes(String(cause.code)))
  );
}

const SQLITE_UNIQUE = ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"];

/** A unique index refused the write (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return matches(error, {
    prisma: ["P2002"],
    kind: "UniqueConstraintViolation",
    sqlstate: "23505",
    sqlite: SQLITE_UNIQUE,
  });
}

/** A foreign key refused the write (P2003): the referenced row vanished concurrently. */
export function isForeignKeyViolation(error: unknown): boolean {
  return matches(error, {
    prisma: ["P2003"],
    kind: "ForeignKeyConstraintViolation",
    sqlstate: "23503",
    sqlite: ["SQLITE_CONSTRAINT_FOREIGNKEY"],
  });
}

/**
 * A CHECK constraint refused the write (one parent, rule type, canonical decimals, account
 * fields): input the API should have refused before it reached the database.
 */
export function isCheckViolation(error: unknown): boolean {
  return matches(error, {
    prisma: ["SQLITE_CONSTRAINT_CHECK"],
    kind: "CheckConstraintViolation",
    sqlstate: "23514",
    sqlite: ["SQLITE_CONSTRAINT_CHECK"],
  });
}
