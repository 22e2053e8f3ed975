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

/** Prisma's codes for a database it cannot reach, lost, timed out on, or a pool that ran dry. */
const PRISMA_UNAVAILABLE = ["P1001", "P1002", "P1008", "P1017", "P2024", "P2034"];
/** Driver adapter kinds for the same (SQLITE_BUSY comes through as SocketTimeout). */
const KIND_UNAVAILABLE = [
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
  "TransactionWriteConflict",
];
/**
 * PostgreSQL's: a connection exception (08), too many connections (53300) or another lack of
 * resources (53), the statement timeout (57014), shutdown and restart (57P01-57P03), and the
 * conflicts of concurrent transactions (40001 serialization, 40P01 deadlock): none says the request
 * was wrong, and a retry of the whole request may succeed. Conflicts are retried by the API
 * (isTransactionConflict); only one that keeps failing reaches the client as unavailable.
 */
const SQLSTATE_UNAVAILABLE = /^(08...|53...|57014|57P0[123]|40001|40P01)$/;
/**
 * SQLite's, by primary code (their extended codes add a suffix): busy after the busy timeout, an
 * I/O error, a full disk, a read-only or unopenable file.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|IOERR|FULL|READONLY|CANTOPEN)(_|$)/;
/** SQLite's primary result codes for the same, for adapter errors that carry only the number. */
const SQLITE_PRIMARY_UNAVAILABLE = new Set([5, 10, 13, 8, 14]);
/** Socket errors of the pg driver (node's) and the pg pool's own, which carry no code. */
const SOCKET_UNAVAILABLE =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;
const PG_MESSAGE_UNAVAILABLE =
  /timeout exceeded when trying to connect|Connection terminated|connection error and is not queryable|Client was closed and is not queryable|Query read timeout/i;

function unavailableHere(error: object): boolean {
  const { code, errorCode, kind, originalCode, extendedCode, message } = error as {
    code?: unknown;
    errorCode?: unknown;
    kind?: unknown;
    originalCode?: unknown;
    extendedCode?: unknown;
    message?: unknown;
  };
  const codes = [code, errorCode, originalCode].filter((c): c is string => typeof c === "string");
  if (
    error instanceof Prisma.PrismaClientKnownRequestError &&
    PRISMA_UNAVAILABLE.includes(error.code)
  ) {
    return true;
  }
  if (typeof errorCode === "string" && PRISMA_UNAVAILABLE.includes(errorCode)) return true;
  if (typeof kind === "string" && KIND_UNAVAILABLE.includes(kind)) return true;
  if (typeof extendedCode === "number" && SQLITE_PRIMARY_UNAVAILABLE.has(extendedCode & 0xff)) {
    return true;
  }
  if (codes.some((c) => SQLSTATE_UNAVAILABLE.test(c) || SQLITE_UNAVAILABLE.test(c))) return true;
  if (codes.some((c) => SOCKET_UNAVAILABLE.test(c))) return true;
  return typeof message === "string" && PG_MESSAGE_UNAVAILABLE.test(message);
}

/**
 * Whether any error in the chain Prisma, the driver adapters and the drivers wrap around each other
 * (causes, and Prisma's `meta.driverAdapterError`) satisfies `test`.
 */
function anyInChain(error: unknown, test: (error: object) => boolean): boolean {
  const seen = new Set<object>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    if (test(current)) return true;
    const { cause, meta } = current as { cause?: unknown; meta?: unknown };
    pending.push(cause, (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError);
  }
  return false;
}

/**
 * The database cannot answer now (unreachable, restarting, out of connections or disk, busy past
 * the wait, a statement timed out, a transaction lost a conflict): the request was not at fault,
 * and the same request may succeed later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return anyInChain(error, unavailableHere);
}

const SQLSTATE_CONFLICT = new Set(["40001", "40P01"]);

function conflictHere(error: object): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2034") return true;
  const { code, kind, originalCode } = error as {
    code?: unknown;
    kind?: unknown;
    originalCode?: unknown;
  };
  if (kind === "TransactionWriteConflict") return true;
  return [code, originalCode].some((c) => typeof c === "string" && SQLSTATE_CONFLICT.has(c));
}

/**
 * PostgreSQL gave up a transaction to let a concurrent one through (40001 serialization failure,
 * 40P01 deadlock; Prisma's P2034): the transaction was rolled back as a whole, and running it again
 * is how PostgreSQL expects it to be handled. A subset of isDatabaseUnavailable.
 */
export function isTransactionConflict(error: unknown): boolean {
  return anyInChain(error, conflictHere);
}
