import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import type { PrismaClient } from "./generated/prisma/client.js";
import { SQLITE_CACHE_KIB, type Durability } from "./database.js";

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

/** A write waiting for the turn's shared transaction (PreparedConnection.write). */
interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

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
  /** Writes given to `write` since the last shared transaction began. */
  #queue: QueuedWrite[] = [];
  #flushScheduled = false;
  #flushing = false;

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
      db.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
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

  /**
   * Group commit: runs `work` (the statements of one write) in a transaction shared with every
   * other write given here in the same event-loop turn, in a SAVEPOINT of its own, and settles
   * once that transaction's COMMIT returned: with `work`'s result, or with its error when `work`
   * threw (its savepoint alone is rolled back; the others commit). A failed BEGIN or COMMIT fails
   * every write of the transaction, and none of them is stored.
   *
   * Why: with `synchronous=FULL` every commit waits for an fsync of the WAL, which costs far more
   * than the statements; requests that arrive together (read in one poll phase, or while the
   * previous commit's fsync blocked the thread) now share one fsync. Durability is unchanged: no
   * write is acknowledged before the commit that holds it is durable.
   */
  write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#scheduleFlush();
    });
  }

  /**
   * After the poll phase (setImmediate), so that every request read in this turn reaches the
   * queue first. A transaction still waiting for another connection's lock keeps the writes that
   * arrive meanwhile for the next one, so writes commit in the order they were given.
   */
  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#flushing) return;
    this.#flushScheduled = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#flushScheduled = false;
    this.#flushing = true;
    const batch = this.#queue;
    this.#queue = [];
    try {
      const outcomes = await this.run(() =>
        this.transaction(() => batch.map((write) => this.#inSavepoint(batch.length, write.work))),
      );
      outcomes.forEach((outcome, i) => {
        const write = batch[i]!;
        if (outcome.ok) write.resolve(outcome.value);
        else write.reject(outcome.error);
      });
    } catch (error) {
      for (const write of batch) write.reject(error);
    } finally {
      this.#flushing = false;
      if (this.#queue.length > 0) this.#scheduleFlush();
    }
  }

  /** Runs one write of a shared transaction; a write alone needs no savepoint. */
  #inSavepoint(writes: number, work: () => unknown): Outcome {
    if (writes === 1) return { ok: true, value: work() };
    try {
      // Inside an open transaction, better-sqlite3's transaction function is a SAVEPOINT that it
      // rolls back (ROLLBACK TO, RELEASE) when `work` throws.
      return { ok: true, value: this.#inTransaction!(work) };
    } catch (error) {
      // SQLite ended the whole transaction (an I/O error, a full disk): the others must not go on
      // in autocommit mode, each committed alone; the batch fails as one.
      if (!this.#db?.inTransaction) throw error;
      return { ok: false, error };
    }
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
