import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import type { PrismaClient } from "./generated/prisma/client.js";
import type { Durability } from "./database.js";

// Hot statements (a rule create, a token lookup) cost a query compilation and a statement
// preparation per call through Prisma's client engine, several times the statement itself. The
// typed functions beside this file run them as statements prepared once, on a connection of their
// own, for a PrismaClient opened by openDatabase on SQLite; any other client (a transaction's,
// another database's) goes through Prisma, with the same rows and the same errors.

const connections = new WeakMap<PrismaClient, PreparedConnection>();

/** Gives `prisma`'s hot statements to `connection` (openDatabase, for its own client only). */
export function registerPreparedConnection(
  prisma: PrismaClient,
  connection: PreparedConnection,
): void {
  connections.set(prisma, connection);
}

/** The prepared connection behind `prisma`, or undefined: then use Prisma. */
export function preparedConnectionOf(prisma: PrismaClient): PreparedConnection | undefined {
  return connections.get(prisma);
}

/**
 * How long a statement waits for another connection's write lock before it fails, as long as
 * better-sqlite3's default busy timeout on Prisma's connection.
 */
const BUSY_WAIT_MS = 5_000;
const MAX_BACKOFF_MS = 32;

/** SQLITE_BUSY and its extended codes (_SNAPSHOT, _RECOVERY, _TIMEOUT). */
function isBusy(error: unknown): boolean {
  return error instanceof BetterSqlite3.SqliteError && error.code.startsWith("SQLITE_BUSY");
}

/**
 * A connection whose every statement runs in autocommit mode: each write is one transaction,
 * fsynced per `durability`, and each read sees the last commit, never an open transaction's
 * writes. It never waits inside SQLite: another connection may hold the write lock across awaits
 * (Prisma's interactive transactions on this process's other connection, or another process), and
 * a blocking wait would stall the event loop that has to run that transaction to its end. So its
 * busy timeout is 0, and SQLITE_BUSY is retried after a timer, with backoff, for BUSY_WAIT_MS at
 * most.
 */
export class PreparedConnection {
  #db: BetterSqlite3.Database | undefined;
  #closed = false;
  /** better-sqlite3's transaction wrapper, made once: it runs the function it is given. */
  #inTransaction: BetterSqlite3.Transaction<(inner: () => unknown) => unknown> | undefined;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly file: string,
    private readonly durability: Durability,
  ) {}

  /** Opened on first use: a process that never runs a hot statement never pays for it. */
  statement(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#open().prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #open(): BetterSqlite3.Database {
    // A write still waiting for the lock when the database closed must not reopen it.
    if (this.#closed) throw new Error("The database is closed.");
    if (!this.#db) {
      const db = new BetterSqlite3(this.file, { fileMustExist: true, timeout: 0 });
      db.pragma(`synchronous = ${this.durability.toUpperCase()}`);
      db.pragma("foreign_keys = ON");
      this.#db = db;
    }
    return this.#db;
  }

  /**
   * Runs `work` (several statements) in one transaction, begun IMMEDIATE so that a busy database
   * fails at BEGIN, before anything ran, and `run` can try it again whole. Call it inside `run`.
   */
  transaction<T>(work: () => T): T {
    if (!this.#inTransaction) {
      const db = this.#open();
      this.#inTransaction = db.transaction(<T>(inner: () => T): T => inner());
    }
    return this.#inTransaction.immediate(work) as T;
  }

  /** Runs `work` (one statement or one transaction), again after a timer while another connection holds the lock. */
  async run<T>(work: () => T): Promise<T> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    let backoff = 1;
    for (;;) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error) || Date.now() + backoff > deadline) throw error;
      }
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  close(): void {
    this.#closed = true;
    this.#statements.clear();
    this.#inTransaction = undefined;
    this.#db?.close();
    this.#db = undefined;
  }
}
